import assert from 'node:assert/strict';
import { ManualClock } from './manual-clock.js';

describe('ManualClock', () => {
  it('given timers set out of order and with ties should fire them in time order, ties in the order set', async () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`c@${clock.now()}`), 30);
    clock.setTimer(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimer(() => fired.push(`b1@${clock.now()}`), 20);
    clock.setTimer(() => fired.push(`b2@${clock.now()}`), 20);
    assert.deepEqual(clock.timersDueIn(), [10, 20, 20, 30]);
    assert.equal(await clock.advance(20), 3);
    assert.deepEqual(fired, ['a@10', 'b1@20', 'b2@20']);
    assert.equal(clock.now(), 20);
    assert.deepEqual(clock.timersDueIn(), [10]);
  });

  it('given a timer set by a firing timer inside the window should fire it in the same advance, at its own time', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.setTimer(() => {
      fired.push(clock.now());
      clock.setTimer(() => fired.push(clock.now()), 5);
    }, 10);
    assert.equal(clock.advanceSync(15), 2);
    assert.deepEqual(fired, [10, 15]);
    assert.equal(clock.pendingTimers, 0);
  });

  it('given a cancelled timer should not fire it, and cancelling twice should do nothing', () => {
    const clock = new ManualClock();
    let fired = 0;
    const cancel = clock.setTimer(() => (fired += 1), 10);
    clock.setTimer(() => (fired += 10), 10);
    cancel();
    cancel();
    assert.equal(clock.advanceSync(10), 1);
    assert.equal(fired, 10);
  });

  it('given a zero or negative delay should fire on the next advance, never synchronously', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.setTimer(() => fired.push(1), 0);
    clock.setTimer(() => fired.push(2), -5);
    assert.deepEqual(fired, []);
    assert.equal(clock.advanceSync(0), 2);
    assert.deepEqual(fired, [1, 2]);
  });

  it('given a start date should read the wall clock as the start plus the virtual time elapsed', () => {
    const start = new Date('2030-01-01T00:00:00Z');
    const clock = new ManualClock(start);
    assert.equal(clock.now(), 0);
    assert.equal(clock.wallNow(), start.getTime());
    clock.advanceSync(90_000);
    assert.equal(clock.now(), 90_000);
    assert.equal(clock.date().toISOString(), '2030-01-01T00:01:30.000Z');
  });

  it('given a sleep should resolve once the clock passes it, and an await chain it resumes should run within advance', async () => {
    const clock = new ManualClock();
    const steps: number[] = [];
    const task = (async (): Promise<void> => {
      await clock.sleep(100);
      steps.push(clock.now());
      await clock.sleep(50);
      steps.push(clock.now());
    })();
    await clock.advance(99);
    assert.deepEqual(steps, []);
    await clock.advance(51);
    assert.deepEqual(steps, [100, 150]);
    await task;
  });

  it('given an abort during a sleep should reject with the reason and cancel its timer', async () => {
    const clock = new ManualClock();
    const abort = new AbortController();
    const sleeping = clock.sleep(1000, abort.signal);
    assert.equal(clock.pendingTimers, 1);
    abort.abort(new Error('stopped'));
    await assert.rejects(sleeping, /stopped/);
    assert.equal(clock.pendingTimers, 0);
    await assert.rejects(clock.sleep(10, abort.signal), /stopped/, 'an aborted signal rejects at once');
    assert.equal(clock.pendingTimers, 0);
  });

  const badAdvances = [
    { name: 'given a negative advance should throw and leave time alone', ms: -1 },
    { name: 'given a NaN advance should throw and leave time alone', ms: Number.NaN },
    { name: 'given an infinite advance should throw and leave time alone', ms: Number.POSITIVE_INFINITY },
  ];
  for (const c of badAdvances) {
    it(c.name, () => {
      const clock = new ManualClock();
      clock.advanceSync(5);
      assert.throws(() => clock.advanceSync(c.ms), /ManualClock: cannot advance by/);
      assert.equal(clock.now(), 5);
    });
  }

  it('given a wall-clock jump either way should move wallNow only, firing no timer', () => {
    const clock = new ManualClock(1_000_000);
    let fired = 0;
    clock.setTimer(() => fired++, 10);
    clock.jumpWall(86_400_000);
    assert.deepEqual([clock.now(), clock.wallNow(), fired, clock.timersDueIn()], [0, 87_400_000, 0, [10]]);
    clock.jumpWall(-90_000_000);
    assert.equal(clock.wallNow(), -2_600_000);
  });
});

