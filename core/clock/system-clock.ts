import { sleepOnTimer, type CancelTimer, type Clock, type TimerOptions } from './clock.js';

/**
 * The process's clocks: `performance.now()` (monotonic), `Date.now()` (wall) and Node's `setTimeout`.
 * Use the shared {@link systemClock}; the class exists so a test can extend it.
 */
export class SystemClock implements Clock {
  now(): number {
    return performance.now();
  }

  wallNow(): number {
    return Date.now();
  }

  date(): Date {
    return new Date();
  }

  setTimer(callback: () => void, ms: number, options?: TimerOptions): CancelTimer {
    const timer = setTimeout(callback, Math.max(0, ms));
    if (!options?.keepAlive) timer.unref();
    return () => clearTimeout(timer);
  }

  sleep(ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void> {
    return sleepOnTimer(this, ms, signal, options);
  }
}

/** The default clock of every `clock?: Clock` option. */
export const systemClock: Clock = new SystemClock();
