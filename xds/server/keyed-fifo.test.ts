import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KeyedFifo } from './keyed-fifo.js';

/** The same operations on a Map used as a FIFO (the queue's behaviour before KeyedFifo). */
class MapFifo<K, V> {
  readonly map = new Map<K, V>();
  push(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
  }
  shift(): [K, V] | undefined {
    const first = this.map.entries().next();
    if (first.done) return undefined;
    this.map.delete(first.value[0]);
    return first.value;
  }
}

describe('KeyedFifo', () => {
  it('given pushes, deletes and a key queued again, should give the oldest live entry first', () => {
    const q = new KeyedFifo<string, number>();
    q.push('a', 1);
    q.push('b', 2);
    q.push('c', 3);
    q.delete('b');
    q.push('a', 4);
    assert.equal(q.size, 2);
    assert.equal(q.get('a'), 4);
    assert.deepEqual([q.shift(), q.shift(), q.shift()], [['c', 3], ['a', 4], undefined]);
    assert.equal(q.size, 0);
  });

  it('given any sequence of operations, should agree with a Map used as a FIFO', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), key: fc.integer({ min: 0, max: 20 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('shift' as const) }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const q = new KeyedFifo<number, number>();
        const m = new MapFifo<number, number>();
        for (const o of ops) {
          if (o.kind === 'push') {
            q.push(o.key, o.value);
            m.push(o.key, o.value);
          } else if (o.kind === 'delete') assert.equal(q.delete(o.key), m.map.delete(o.key));
          else if (o.kind === 'shift') assert.deepEqual(q.shift(), m.shift());
          else {
            q.clear();
            m.map.clear();
          }
          assert.equal(q.size, m.map.size);
        }
        for (const k of m.map.keys()) assert.equal(q.get(k), m.map.get(k));
      }),
      { numRuns: 300 },
    );
  });
});
