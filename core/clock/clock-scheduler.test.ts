import assert from 'node:assert/strict';
import { Subject, timer, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { pushRequest, type PushRequest } from '../model/push-request.js';
import { debouncePushes, type DebounceOptions } from '../rx/debounce.js';
import { clockScheduler } from './clock-scheduler.js';
import { ManualClock } from './manual-clock.js';

const full = (name: string): PushRequest => pushRequest('config', { full: true, configs: [{ kind: 'VirtualService', namespace: 't', name }], start: 0 });
const eds = (name: string): PushRequest => pushRequest('endpoint', { full: false, configs: [{ kind: 'ServiceEntry', namespace: 't', name }], start: 0 });
const show = (r: PushRequest): string => `${r.full ? 'F' : 'E'}:${[...r.configsUpdated].map((k) => k.name).sort().join('+')}`;

interface Input {
  readonly at: number;
  readonly req: PushRequest;
}

/** Runs `inputs` through debouncePushes on `scheduler`: `at(ms, fn)` puts work on its timeline, `run()` drains it. */
function debounceOn(
  scheduler: SchedulerLike,
  at: (ms: number, fn: () => void) => void,
  run: () => void,
  opts: Omit<DebounceOptions, 'scheduler' | 'observer'>,
  inputs: readonly Input[],
  endAt: number,
): string[] {
  const out: string[] = [];
  const source = new Subject<PushRequest>();
  for (const i of inputs) at(i.at, () => source.next(i.req));
  at(endAt, () => source.complete());
  source
    .pipe(debouncePushes({ ...opts, scheduler, observer: { onOutput: (req, waitedMs) => out.push(`${scheduler.now()} ${show(req)} waited ${waitedMs}`) } }))
    .subscribe({ complete: () => out.push(`${scheduler.now()} complete`) });
  run();
  return out;
}

const opts = { debounceAfter: 100, debounceMax: 1000, enableEdsDebounce: true };
const every = (from: number, step: number, count: number, req: (i: number) => PushRequest): Input[] =>
  Array.from({ length: count }, (_, i) => ({ at: from + i * step, req: req(i) }));

const cases: { name: string; opts: Omit<DebounceOptions, 'scheduler' | 'observer'>; inputs: Input[]; endAt: number }[] = [
  { name: 'given changes inside the quiet period', opts, inputs: [{ at: 10, req: full('a') }, { at: 60, req: full('b') }], endAt: 2000 },
  { name: 'given a constant stream that hits the ceiling', opts, inputs: every(0, 50, 50, (i) => full(`c${i % 3}`)), endAt: 2600 },
  { name: 'given a change on the exact frame the quiet period ends', opts, inputs: [{ at: 0, req: full('a') }, { at: 100, req: full('b') }, { at: 200, req: full('c') }], endAt: 1000 },
  { name: 'given EDS debounce off and mixed changes', opts: { ...opts, enableEdsDebounce: false }, inputs: [{ at: 5, req: full('a') }, { at: 30, req: eds('e') }, { at: 90, req: full('b') }], endAt: 500 },
  { name: 'given completion while a window is open', opts, inputs: [{ at: 0, req: full('a') }, { at: 40, req: eds('e') }], endAt: 70 },
];

describe('clockScheduler', () => {
  for (const c of cases) {
    it(`${c.name}, debounce on a ManualClock should push at the same times, with the same contents, as on RxJS's TestScheduler`, () => {
      const testScheduler = new TestScheduler(assert.deepEqual);
      testScheduler.maxFrames = Number.POSITIVE_INFINITY;
      const want = debounceOn(testScheduler, (ms, fn) => testScheduler.schedule(fn, ms), () => testScheduler.flush(), c.opts, c.inputs, c.endAt);

      const clock = new ManualClock();
      const got = debounceOn(clockScheduler(clock), (ms, fn) => clock.setTimer(fn, ms), () => clock.advanceSync(c.endAt + c.opts.debounceMax), c.opts, c.inputs, c.endAt);
      assert.ok(want.length > 1, 'the case pushes something');
      assert.deepEqual(got, want);
      assert.equal(clock.pendingTimers, 0, 'no timer is left behind');
    });
  }

  it('given a debounce window on a ManualClock should push only when the clock reaches the end of the quiet period', () => {
    const clock = new ManualClock();
    const source = new Subject<PushRequest>();
    const out: number[] = [];
    const sub = source.pipe(debouncePushes({ ...opts, scheduler: clockScheduler(clock) })).subscribe(() => out.push(clock.now()));
    source.next(full('a'));
    clock.advanceSync(99);
    assert.deepEqual(out, []);
    clock.advanceSync(1);
    assert.deepEqual(out, [100]);
    sub.unsubscribe();
  });

  it('given an unsubscribe with a window open should cancel the clock timer', () => {
    const clock = new ManualClock();
    const source = new Subject<PushRequest>();
    const sub = source.pipe(debouncePushes({ ...opts, scheduler: clockScheduler(clock) })).subscribe();
    source.next(full('a'));
    assert.equal(clock.pendingTimers, 1);
    sub.unsubscribe();
    assert.equal(clock.pendingTimers, 0);
  });

  it('given work that schedules itself again (a periodic timer) should run it at each period on the clock', () => {
    const clock = new ManualClock();
    const ticks: string[] = [];
    const sub = timer(10, 25, clockScheduler(clock)).subscribe((n) => ticks.push(`${n}@${clock.now()}`));
    clock.advanceSync(60);
    assert.deepEqual(ticks, ['0@10', '1@35', '2@60']);
    sub.unsubscribe();
    assert.equal(clock.pendingTimers, 0);
  });
});
