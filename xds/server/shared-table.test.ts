import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SharedTable, type TableEntry } from './shared-table.js';

const entries = (t: SharedTable): [string, string | undefined][] => [...t].sort().map((n) => [n, t.get(n)]);

describe('SharedTable', () => {
  it('given the same change to the same table should return one new table to every caller', () => {
    const base = SharedTable.EMPTY.with([['a', '1'], ['b', '1']], []);
    const x = base.with([['b', '2'], ['c', '1']], ['a']);
    const y = base.with([['b', '2'], ['c', '1']], ['a']);
    assert.equal(x, y);
    assert.notEqual(x, base);
    assert.deepEqual(entries(x), [['b', '2'], ['c', '1']]);
    assert.deepEqual(entries(base), [['a', '1'], ['b', '1']], 'the old table is left as it was');
  });

  it('given a change that changes nothing should return the same table', () => {
    const base = SharedTable.EMPTY.with([['a', '1']], []);
    assert.equal(base.with([['a', '1']], ['missing']), base);
    assert.equal(base.with([], []), base);
    assert.equal(base.with([], ['a']), SharedTable.EMPTY);
  });

  it('given equal content reached along different paths should return the table already alive', () => {
    const early = SharedTable.EMPTY.with([['a', '1']], []).with([['b', '1']], []).with([['a', '2']], []);
    const late = SharedTable.EMPTY.with([['b', '1'], ['a', '2']], []);
    assert.equal(late, early);
    const names = SharedTable.EMPTY.withNames(['x', 'y']);
    assert.equal(SharedTable.EMPTY.withNames(['y', 'x']), names);
    assert.deepEqual(names.sorted(), ['x', 'y']);
  });

  it('given names that contain separators should keep changes that would read alike apart', () => {
    const base = SharedTable.EMPTY.with([['z', '0']], []);
    const one = base.with([['a', 'b\u0000c']], []);
    const two = base.with([['a\u0000b', 'c']], []);
    assert.notEqual(one, two);
    assert.equal(one.get('a'), 'b\u0000c');
    assert.equal(two.get('a\u0000b'), 'c');
    assert.equal(base.with([['a:1', '']], []).has('a:1'), true);
    assert.equal(base.with([['a', ':1']], []).get('a'), ':1');
  });

  it('given a name both set and removed in one change should remove it', () => {
    const t = SharedTable.EMPTY.with([['a', '1'], ['b', '1']], ['a']);
    assert.deepEqual(entries(t), [['b', '1']]);
  });

  it('given a list of names should hold exactly those names, and share the step between equal tables', () => {
    const base = SharedTable.EMPTY.with([['a', '1'], ['b', ''], ['c', '']], []);
    const next = base.withNames(['b', 'd', 'a']);
    assert.deepEqual(entries(next), [['a', ''], ['b', ''], ['d', '']], 'a versioned entry becomes a name, c leaves');
    assert.equal(base.withNames(new Set(['a', 'd', 'b'])), next, 'the same step from the same table is one table');
    assert.equal(next.withNames(['d', 'b', 'a', 'b']), next, 'the same names (in any order, repeated) change nothing');
    assert.equal(SharedTable.EMPTY.withNames(['a', 'b', 'd']), next, 'reached from empty, the live table of equal content');
    assert.equal(next.withNames([]), SharedTable.EMPTY);
  });

  it('given random name lists in turn should hold exactly the last list', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'outbound|80||x');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(fc.tuple(name, fc.constantFrom('', '1')), { maxLength: 4 }), fc.array(name, { maxLength: 6 })), { maxLength: 20 }), (steps) => {
        let t = SharedTable.EMPTY;
        for (const [versions, names] of steps) {
          t = t.with(versions as TableEntry[], []);
          t = t.withNames(names);
          assert.deepEqual(entries(t), [...new Set(names)].sort().map((n) => [n, '']));
        }
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('given random changes from several streams should hold what a Map holds and share equal tables', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'outbound|80||x', 'x\u0000y');
    const change = fc.record({
      set: fc.array(fc.tuple(name, fc.constantFrom('', '1', '2', 'v3')), { maxLength: 5 }),
      removed: fc.array(name, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(2), change), { maxLength: 30 }), (steps) => {
        const tables = [SharedTable.EMPTY, SharedTable.EMPTY, SharedTable.EMPTY];
        const maps = [new Map<string, string>(), new Map<string, string>(), new Map<string, string>()];
        for (const [i, c] of steps) {
          tables[i] = tables[i]!.with(c.set as TableEntry[], c.removed);
          for (const [n, v] of c.set) maps[i]!.set(n, v);
          for (const n of c.removed) maps[i]!.delete(n);
          assert.deepEqual(entries(tables[i]!), [...maps[i]!].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
        }
        const key = (m: Map<string, string>): string => JSON.stringify([...m].sort());
        for (const i of [0, 1]) for (const j of [1, 2]) if (i < j && key(maps[i]!) === key(maps[j]!)) assert.equal(tables[i], tables[j]);
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});
