import assert from 'node:assert/strict';
import { TokenBucket, type BucketClock } from './token-bucket.js';

/** A virtual clock: sleeps are recorded and advance time instantly. */
function fakeClock(): BucketClock & { sleeps: number[]; time: number } {
  const clock = {
    time: 0,
    sleeps: [] as number[],
    now: () => clock.time,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason as Error;
      clock.sleeps.push(ms);
      clock.time += ms;
    },
  };
  return clock;
}

describe('TokenBucket', () => {
  it('given a full bucket, should let `burst` takes through without waiting', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 3, clock);
    for (let i = 0; i < 3; i++) await bucket.take();
    assert.deepEqual(clock.sleeps, []);
  });

  it('given an empty bucket, should wait 1/qps per extra token', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    await bucket.take();
    await bucket.take();
    assert.deepEqual(clock.sleeps, [100]);
  });

  it('given time passes, should refill up to burst and no more', () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(2, 4, clock);
    void bucket.take();
    void bucket.take();
    void bucket.take();
    assert.equal(bucket.available(), 1);
    clock.time += 1000;
    assert.equal(bucket.available(), 3);
    clock.time += 60_000;
    assert.equal(bucket.available(), 4);
  });

  it('given an aborted wait, should give the token back and reject', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1, 1, clock);
    await bucket.take();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(bucket.take(controller.signal), /stop/);
    assert.equal(bucket.available(), 0);
  });

  const bad = [
    { name: 'given qps 0, should refuse it', qps: 0, burst: 1, message: /qps/ },
    { name: 'given burst 0, should refuse it', qps: 1, burst: 0, message: /burst/ },
    { name: 'given a fractional burst, should refuse it', qps: 1, burst: 1.5, message: /burst/ },
  ];
  for (const c of bad) {
    it(c.name, () => {
      assert.throws(() => new TokenBucket(c.qps, c.burst), c.message);
    });
  }
});
