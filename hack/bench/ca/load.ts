// Two ways to drive the callers. Back to back: every caller calls again as soon as its answer arrives
// (the most the server can do at that concurrency). At a fixed rate: the callers share a schedule of `rate`
// calls per second, caller i owning every N-th slot; a call's latency counts from its scheduled time, so a
// server that falls behind is charged for the wait too (no coordinated omission).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Caller } from './callers.js';

/** What one phase measured. */
export interface LoadResult {
  /** Latency of every successful call in the measured window, ms. */
  readonly latenciesMs: number[];
  readonly errors: number;
  readonly firstError?: string;
  readonly elapsedSeconds: number;
}

class Recorder {
  readonly latenciesMs: number[] = [];
  errors = 0;
  firstError: string | undefined;

  async time(caller: Caller, fromMs: number): Promise<void> {
    try {
      await caller.call();
      this.latenciesMs.push(performance.now() - fromMs);
    } catch (err) {
      this.errors++;
      this.firstError ??= (err as Error).message;
    }
  }

  result(elapsedSeconds: number): LoadResult {
    return { latenciesMs: this.latenciesMs, errors: this.errors, firstError: this.firstError, elapsedSeconds };
  }
}

/** Every caller calls back to back for `seconds`. */
export async function backToBack(callers: readonly Caller[], seconds: number): Promise<LoadResult> {
  const recorder = new Recorder();
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(callers.map(async (caller) => {
    while (performance.now() < end) await recorder.time(caller, performance.now());
  }));
  return recorder.result((performance.now() - start) / 1000);
}

/** The callers together offer `rate` calls per second for `seconds`, each at most one call at a time. */
export async function fixedRate(callers: readonly Caller[], rate: number, seconds: number): Promise<LoadResult> {
  const recorder = new Recorder();
  const intervalMs = (1000 * callers.length) / rate;
  const slots = Math.floor((rate * seconds) / callers.length);
  const start = performance.now() + 10;
  await Promise.all(callers.map(async (caller, i) => {
    for (let k = 0; k < slots; k++) {
      const scheduled = start + (i * 1000) / rate + k * intervalMs;
      const wait = scheduled - performance.now();
      if (wait > 0) await sleep(wait);
      await recorder.time(caller, scheduled);
    }
  }));
  return recorder.result((performance.now() - start) / 1000);
}
