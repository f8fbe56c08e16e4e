import assert from 'node:assert/strict';
import { timeoutSignal } from './timeout-signal.js';

describe('timeoutSignal', () => {
  it('given a fractional delay (a deadline from performance.now()), should give a signal where AbortSignal.timeout throws', () => {
    assert.throws(() => AbortSignal.timeout(7998.97), RangeError, 'the platform refuses it');
    const signal = timeoutSignal(7998.97);
    assert.equal(signal.aborted, false);
  });

  it('given 1.5 ms, should abort with a TimeoutError', async () => {
    const signal = timeoutSignal(1.5);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    assert.equal((signal.reason as Error).name, 'TimeoutError');
  });

  it('given a negative delay, should abort at once (on the next timer turn); given NaN or Infinity, should say what was wrong', async () => {
    const signal = timeoutSignal(-3);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    assert.throws(() => timeoutSignal(Number.NaN), /finite number of milliseconds \(got NaN\)/);
    assert.throws(() => timeoutSignal(Number.POSITIVE_INFINITY), /got Infinity/);
  });
});
