import assert from 'node:assert/strict';
import { ManualClock } from '../../core/index.js';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('given a full bucket, should let `burst` takes through without waiting', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(10, 3, clock);
    for (let i = 0; i < 3; i++) await bucket.take();
    assert.equal(clock.pendingTimers, 0, 'no take waited');
  });

  it('given an empty bucket, should wait 1/qps per extra token', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(10, 1, clock);
    await bucket.take();
    let taken = false;
    const second = bucket.take().then(() => (taken = true));
    assert.deepEqual(clock.timersDueIn(), [100]);
    await clock.advance(99);
    assert.equal(taken, false, 'still waiting after 99 ms');
    await clock.advance(1);
    assert.equal(taken, true, 'taken after 100 ms');
    await second;
  });

  it('given time passes, should refill up to burst and no more', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(2, 4, clock);
    void bucket.take();
    void bucket.take();
    void bucket.take();
    assert.equal(bucket.available(), 1);
    clock.advanceSync(1000);
    assert.equal(bucket.available(), 3);
    clock.advanceSync(60_000);
    assert.equal(bucket.available(), 4);
  });

  it('given an aborted wait, should give the token back and reject', async () => {
    const clock = new ManualClock();
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
