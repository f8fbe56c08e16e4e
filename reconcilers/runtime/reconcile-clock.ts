/** Time for the reconciler runtime and leader election, injectable so tests run on virtual time. */
export interface ReconcileClock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; the returned function cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

/** The wall clock: `performance.now()` and unref'd `setTimeout` (a pending retry never keeps the process alive). */
export const SYSTEM_RECONCILE_CLOCK: ReconcileClock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`, or rejects with the signal's reason when it aborts first. */
export function sleepOn(clock: ReconcileClock, ms: number, signal?: AbortSignal): Promise<void> {
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
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
