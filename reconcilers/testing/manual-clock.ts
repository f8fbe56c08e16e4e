import type { ReconcileClock } from '../runtime/reconcile-clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A virtual clock for tests: time moves only through {@link ManualClock.advance}, which fires due timers
 * in time order (ties in creation order), letting promise callbacks settle between timers.
 */
export class ManualClock implements ReconcileClock {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers not fired yet. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = [...this.#timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next || next.at > target) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = next.at;
      next.callback();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets queued promise callbacks run (several macrotask turns, so chains of awaits complete). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
