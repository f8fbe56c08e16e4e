import assert from 'node:assert/strict';
import { systemClock } from './system-clock.js';

describe('systemClock', () => {
  it('given two readings should read monotonic time that does not go back, and the wall clock as Date.now', () => {
    const a = systemClock.now();
    const b = systemClock.now();
    assert.ok(b >= a);
    const before = Date.now();
    const wall = systemClock.wallNow();
    const date = systemClock.date().getTime();
    assert.ok(before <= wall && wall <= date && date <= Date.now());
  });

  it('given a cancelled timer and a later one should fire only the later one', async () => {
    const fired: string[] = [];
    const cancel = systemClock.setTimer(() => fired.push('cancelled'), 0);
    cancel();
    await new Promise<void>((resolve) => {
      systemClock.setTimer(() => {
        fired.push('later');
        resolve();
      }, 1, { keepAlive: true });
    });
    assert.deepEqual(fired, ['later']);
  });

  it('given a delay longer than setTimeout honours should not fire it early (Node would after 1 ms)', async () => {
    const fired: string[] = [];
    const cancel = systemClock.setTimer(() => fired.push('a month'), 31 * 24 * 3600_000);
    await new Promise<void>((resolve) => {
      systemClock.setTimer(() => {
        fired.push('5 ms');
        resolve();
      }, 5, { keepAlive: true });
    });
    cancel();
    assert.deepEqual(fired, ['5 ms']);
  });

  it('given an abort during a sleep should reject with the reason', async () => {
    const abort = new AbortController();
    const sleeping = systemClock.sleep(60_000, abort.signal);
    abort.abort(new Error('stopped'));
    await assert.rejects(sleeping, /stopped/);
  });

  it('given a short sleep should resolve', async () => {
    await systemClock.sleep(1, undefined, { keepAlive: true });
  });
});
