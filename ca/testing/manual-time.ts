// A clock and a scheduler driven by hand, so rotation tests need no sleeps.
import type { Clock } from '../authority/mesh-ca.js';
import type { Scheduler } from '../authority/root-rotator.js';

/** A clock that moves only when told. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date) {
    this.#ms = start.getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): void {
    this.#ms += ms;
  }
}

/** Records scheduled tasks; `runDue()` runs the ones due at the clock's time. */
export class ManualScheduler implements Scheduler {
  readonly pending: { at: number; delayMs: number; task: () => void }[] = [];

  constructor(readonly clock: ManualClock) {}

  schedule(delayMs: number, task: () => void): () => void {
    const entry = { at: this.clock.now().getTime() + delayMs, delayMs, task };
    this.pending.push(entry);
    return () => {
      const i = this.pending.indexOf(entry);
      if (i >= 0) this.pending.splice(i, 1);
    };
  }

  /** Runs (and removes) every task due now; returns how many ran. */
  runDue(): number {
    const now = this.clock.now().getTime();
    const due = this.pending.filter((p) => p.at <= now);
    for (const entry of due) {
      this.pending.splice(this.pending.indexOf(entry), 1);
      entry.task();
    }
    return due.length;
  }
}

/** Polls `condition` on each turn of the event loop until it holds; rejects after `deadlineMs` (real time). */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`waitFor: ${what} did not happen within ${deadlineMs}ms`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
