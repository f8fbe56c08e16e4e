import assert from 'node:assert/strict';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { pushRequest, type PushRequest } from '../model/push-request.js';
import { debouncePushes, type DebounceOptions } from './debounce.js';

/** A compact, comparable form of a request: `F:` or `E:` then the sorted configs. */
function show(r: PushRequest): string {
  return `${r.full ? 'F' : 'E'}:${[...r.configsUpdated].map((k) => k.name).sort().join('+')}`;
}

const full = (name: string): PushRequest => pushRequest('config', { full: true, configs: [{ kind: 'VirtualService', namespace: 't', name }], start: 0 });
const eds = (name: string): PushRequest => pushRequest('endpoint', { full: false, configs: [{ kind: 'ServiceEntry', namespace: 't', name }], start: 0 });

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => assert.deepEqual(actual, expected));
}

interface Case {
  name: string;
  opts: Omit<DebounceOptions, 'scheduler'>;
  source: string;
  values: Record<string, PushRequest>;
  expected: string;
  expectedValues: Record<string, string>;
  subs: string;
  unsub?: string;
}

const base = { debounceAfter: 3, debounceMax: 10, enableEdsDebounce: true };

const cases: Case[] = [
  {
    name: 'given changes inside the quiet period should merge them into one push after it',
    opts: base,
    source: '-a-b-------|',
    values: { a: full('a'), b: full('b') },
    expected: '------x----|',
    expectedValues: { x: 'F:a+b' },
    subs: '^----------!',
  },
  {
    name: 'given a constant stream should push at the ceiling and keep going',
    opts: base,
    source: 'abababababababababababa|',
    values: { a: full('a'), b: full('b') },
    // NOTE: the change arriving on the ceiling frame joins the window it closes; the next opens one later.
    expected: '----------x----------x-(y|)',
    expectedValues: { x: 'F:a+b', y: 'F:a' },
    subs: '^----------------------!',
  },
  {
    name: 'given EDS debounce off should pass an EDS-only change straight through',
    opts: { ...base, enableEdsDebounce: false },
    source: '-a-e------|',
    values: { a: full('a'), e: eds('e') },
    expected: '---ex-----|',
    expectedValues: { e: 'E:e', x: 'F:a' },
    subs: '^---------!',
  },
  {
    name: 'given EDS debounce on should merge an EDS-only change with a full one into a full push',
    opts: base,
    source: '-a-e------|',
    values: { a: full('a'), e: eds('e') },
    expected: '------x---|',
    expectedValues: { x: 'F:a+e' },
    subs: '^---------!',
  },
  {
    name: 'given completion inside a window should flush the pending push first',
    opts: base,
    source: '-a|',
    values: { a: full('a') },
    expected: '--(x|)',
    expectedValues: { x: 'F:a' },
    subs: '^-!',
  },
  {
    name: 'given a zero quiet period should not debounce at all',
    opts: { ...base, debounceAfter: 0 },
    source: '-ab|',
    values: { a: full('a'), b: full('b') },
    expected: '-xy|',
    expectedValues: { x: 'F:a', y: 'F:b' },
    subs: '^--!',
  },
  {
    name: 'given an unsubscribe inside a window should drop the timer and emit nothing more',
    opts: base,
    source: '-a-b---------',
    values: { a: full('a'), b: full('b') },
    expected: '-----',
    expectedValues: {},
    subs: '^---!',
    unsub: '^---!',
  },
  {
    name: 'given an unsubscribe under a constant stream should stop before the ceiling fires',
    opts: base,
    source: 'abababababababab',
    values: { a: full('a'), b: full('b') },
    expected: '----------x---',
    expectedValues: { x: 'F:a+b' },
    subs: '^------------!',
    unsub: '^------------!',
  },
];

describe('debouncePushes', () => {
  for (const c of cases) {
    it(c.name, () => {
      const ts = scheduler();
      let outputs = 0;
      let visible = 0;
      ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
        const src = c.unsub ? hot(c.source, c.values) : cold(c.source, c.values);
        const out = src.pipe(
          debouncePushes({ ...c.opts, scheduler: ts, observer: { onOutput: () => outputs++ } }),
          map((r) => {
            visible++;
            return show(r);
          }),
        );
        expectObservable(out, c.unsub).toBe(c.expected, c.expectedValues);
        expectSubscriptions(src.subscriptions).toBe(c.subs);
      });
      // NOTE: a timer left behind after teardown would still call onOutput; prove none did.
      assert.equal(outputs, visible);
    });
  }

  it('given recorded flushes should close the window only when they say, however long it waited', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      // NOTE: quiet 3 would close the windows at frames 7 and 22; the recorded decisions close them at 12 and 25.
      const flushes = hot('------------f------------f--', { f: 1 });
      const src = hot('-a--b--------------c--------|', { a: full('a'), b: full('b'), c: full('c') });
      const out = src.pipe(debouncePushes({ ...base, scheduler: ts, flushes }), map(show));
      expectObservable(out).toBe('------------x------------y--|', { x: 'F:a+b', y: 'F:c' });
    });
  });

  it('given a window of 2 ms should report a wait of 2 ms to the observer', () => {
    const ts = scheduler();
    const waits: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const out = cold('ab|', { a: full('a'), b: full('b') }).pipe(
        debouncePushes({ ...base, scheduler: ts, observer: { onOutput: (_r, w) => waits.push(w) } }),
        map(show),
      );
      expectObservable(out).toBe('--(x|)', { x: 'F:a+b' });
    });
    assert.deepEqual(waits, [2]);
  });
});
