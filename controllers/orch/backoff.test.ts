import assert from 'node:assert/strict';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('given repeated failures, should double the delay up to the cap', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    const delays = Array.from({ length: 6 }, () => backoff.next());
    assert.deepEqual(delays, [100, 200, 400, 800, 1000, 1000]);
  });

  it('given a reset, should start from the initial delay again', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.failures, 0);
    assert.equal(backoff.next(), 100);
  });

  it('given jitter, should spread the delay but never past the cap', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 150, jitter: 0.5, random: () => 0.99 });
    assert.equal(backoff.next(), 100 * (1 + 0.5 * 0.99));
    assert.equal(backoff.next(), 150);
  });
});
