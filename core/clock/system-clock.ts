import { sleepOnTimer, type CancelTimer, type Clock, type TimerOptions } from './clock.js';

/** The longest delay Node's `setTimeout` honours (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
    let timer: NodeJS.Timeout;
    // NOTE: Node fires a setTimeout longer than MAX_TIMER_MS after 1 ms; a longer delay (a renewal at half
    // of a 90-day certificate's life) is waited out in steps.
    const arm = (left: number): void => {
      timer = setTimeout(left > MAX_TIMER_MS ? () => arm(left - MAX_TIMER_MS) : callback, Math.min(left, MAX_TIMER_MS));
      if (!options?.keepAlive) timer.unref();
    };
    arm(Math.max(0, ms));
    return () => clearTimeout(timer);
  }

  sleep(ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void> {
    return sleepOnTimer(this, ms, signal, options);
  }
}

/** The default clock of every `clock?: Clock` option. */
export const systemClock: Clock = new SystemClock();
