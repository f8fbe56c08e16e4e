/**
 * The one source of time for meshd, pilot-agent, meshctl and the operator. Code that reads the time or
 * waits takes a `clock?: Clock` option defaulting to {@link systemClock}; tests, and the replay of a
 * recorded event log, pass a {@link ManualClock} instead, on which time moves only when told and timers
 * fire in a deterministic order.
 *
 * Which reading to use:
 * - {@link Clock.now} (monotonic ms) for durations, deadlines, backoff, rate limits and debounce windows;
 * - {@link Clock.wallNow} / {@link Clock.date} (wall clock) only where a real date is compared with dates
 *   from elsewhere: certificate validity, token expiry, lease and condition timestamps.
 */

/** Cancels a timer set by {@link Clock.setTimer}; calling it after the timer fired, or twice, does nothing. */
export type CancelTimer = () => void;

/** Options of a timer. */
export interface TimerOptions {
  /**
   * Whether the pending timer keeps the process alive (Node's `ref`). Default false: background timers
   * (retries, renewals, rotation checks) never hold a program open; its servers and lifecycle do.
   */
  readonly keepAlive?: boolean;
}

/**
 * A source of time and timers. Implementations: {@link SystemClock} (the process's clocks and Node timers)
 * and {@link ManualClock} (virtual time for tests and replay).
 */
export interface Clock {
  /** Milliseconds on a monotonic scale (never goes back; its origin means nothing). */
  now(): number;
  /** Milliseconds since the Unix epoch on the wall clock (may jump when the system time is set). */
  wallNow(): number;
  /** The wall-clock time as a Date: `new Date(wallNow())`. */
  date(): Date;
  /**
   * Calls `callback` once after `ms` milliseconds (0 or less: as soon as possible, never synchronously).
   * Returns the function that cancels it.
   */
  setTimer(callback: () => void, ms: number, options?: TimerOptions): CancelTimer;
  /**
   * Resolves after `ms` milliseconds, or rejects with the signal's reason when `signal` aborts first (at
   * once when it is already aborted); the timer is cancelled either way.
   */
  sleep(ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void>;
}

/**
 * {@link Clock.sleep} built on {@link Clock.setTimer}, shared by the implementations so that both abort the
 * same way.
 */
export function sleepOnTimer(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms, options);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
