/**
 * An AbortSignal that aborts after `ms` milliseconds, as `AbortSignal.timeout`, for any finite `ms`.
 * NOTE: `AbortSignal.timeout` throws a RangeError for a delay that is not a whole number, and a deadline worked out
 * from `performance.now()` never is: a leader's lease renewal, bounded by the time left to its renew deadline, failed
 * that way on every attempt. The delay is rounded up, never down; a negative one means at once.
 */
export function timeoutSignal(ms: number): AbortSignal {
  if (!Number.isFinite(ms)) throw new RangeError(`timeout must be a finite number of milliseconds (got ${ms})`);
  return AbortSignal.timeout(Math.max(0, Math.ceil(ms)));
}
