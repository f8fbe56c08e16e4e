import assert from 'node:assert/strict';
import { ManualClock } from '../../core/index.js';
import { defaultRequestLimit, RateLimiter } from './rate-limiter.js';
import { defaultPushThrottle } from './server-options.js';

describe('RateLimiter', () => {
  it('given a burst of 1 at 10/s, should admit one now, then one every 100ms, refusing beyond the wait bound', () => {
    const clock = new ManualClock();
    clock.advanceSync(1000);
    const l = new RateLimiter({ ratePerSecond: 10, clock });
    assert.equal(l.reserve(1000), 0);
    assert.equal(l.reserve(1000), 100);
    assert.equal(l.reserve(1000), 200);
    for (let i = 3; i <= 10; i++) assert.equal(l.reserve(1000), i * 100);
    assert.equal(l.reserve(1000), undefined, 'the 12th would wait 1.1 s');
    clock.advanceSync(500);
    assert.equal(l.reserve(1000), 600);
  });

  it('given an idle period, should not bank more than the burst', () => {
    const clock = new ManualClock();
    const l = new RateLimiter({ ratePerSecond: 1, burst: 2, clock });
    clock.advanceSync(60_000);
    assert.equal(l.reserve(0), 0);
    assert.equal(l.reserve(0), 0);
    assert.equal(l.reserve(0), undefined);
  });

  it('given wait(), should sleep for the reserved delay and answer false without sleeping when refused', async () => {
    const clock = new ManualClock();
    const l = new RateLimiter({ ratePerSecond: 2, clock });
    assert.equal(await l.wait(1000), true);
    assert.equal(clock.pendingTimers, 0, 'the first caller does not sleep');
    const second = l.wait(1000);
    assert.deepEqual(clock.timersDueIn(), [500]);
    assert.equal(await l.wait(100), false);
    assert.equal(clock.pendingTimers, 1, 'a refused caller does not sleep');
    await clock.advance(500);
    assert.equal(await second, true);
  });

  const derived = [
    { cores: 1, want: 20 },
    { cores: 2, want: 25 },
    { cores: 4, want: 35 },
    { cores: 32, want: 100 },
  ];
  for (const d of derived) {
    it(`given ${d.cores} cores and 0 configured, should derive ${d.want} for the push throttle and request limit (Istio)`, () => {
      assert.equal(defaultPushThrottle(d.cores), d.want);
      assert.equal(defaultRequestLimit(d.cores), d.want);
    });
  }
});

describe('RateLimiter at very low rates', () => {
  it('given an idle bucket, a tiny rate and no allowed wait, should still admit the first caller', () => {
    const clock = new ManualClock();
    clock.advanceSync(123456.789);
    const l = new RateLimiter({ ratePerSecond: 0.001, clock });
    assert.equal(l.reserve(0), 0);
    assert.equal(l.reserve(0), undefined);
  });
});
