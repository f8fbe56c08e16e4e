import { sleepOnTimer, type CancelTimer, type Clock, type TimerOptions } from './clock.js';

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A virtual {@link Clock} for tests and for replaying a recorded event log: time stands still until
 * {@link ManualClock.advance} (or {@link ManualClock.advanceSync}) moves it, firing every timer that falls
 * due on the way in time order, ties in the order they were set. Given the same calls, it fires the same
 * timers at the same virtual times, every run.
 *
 * The monotonic reading starts at 0; the wall clock reads `start` plus the virtual time elapsed.
 * `keepAlive` means nothing here: no real timer exists.
 */
export class ManualClock implements Clock {
  #start: number;
  #now = 0;
  #seq = 0;
  /** Pending timers, kept sorted by (at, seq). */
  #timers: ManualTimer[] = [];

  /** @param start the wall-clock time at virtual time 0 (a Date or epoch ms); default the epoch. */
  constructor(start: Date | number = 0) {
    this.#start = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  wallNow(): number {
    return this.#start + this.#now;
  }

  date(): Date {
    return new Date(this.wallNow());
  }

  setTimer(callback: () => void, ms: number): CancelTimer {
    const delay = Number.isNaN(ms) ? 0 : Math.max(0, ms);
    const timer: ManualTimer = { at: this.#now + delay, seq: this.#seq++, callback };
    let i = this.#timers.length;
    while (i > 0 && this.#timers[i - 1]!.at > timer.at) i -= 1;
    this.#timers.splice(i, 0, timer);
    return () => {
      const at = this.#timers.indexOf(timer);
      if (at >= 0) this.#timers.splice(at, 1);
    };
  }

  sleep(ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void> {
    return sleepOnTimer(this, ms, signal, options);
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** For each pending timer, in firing order, the milliseconds until it falls due. */
  timersDueIn(): number[] {
    return this.#timers.map((t) => t.at - this.#now);
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (also those set by the
   * callbacks themselves), and lets promise callbacks settle before the first timer, after each one and
   * at the end, so chains of awaits that a timer resumes run before time moves on.
   * @returns how many timers fired
   */
  async advance(ms: number): Promise<number> {
    const target = this.#target(ms);
    let fired = 0;
    await settle();
    while (this.#fireNext(target)) {
      fired += 1;
      await settle();
    }
    this.#now = target;
    await settle();
    return fired;
  }

  /**
   * {@link ManualClock.advance} without letting promises settle: timers fire back to back, synchronously.
   * For code driven only by timer callbacks (RxJS schedulers, replay), where nothing awaits in between.
   * @returns how many timers fired
   */
  advanceSync(ms: number): number {
    const target = this.#target(ms);
    let fired = 0;
    while (this.#fireNext(target)) fired += 1;
    this.#now = target;
    return fired;
  }

  /**
   * Moves the wall clock alone by `ms` (either way), as setting the system time, an NTP step or a
   * resumed VM does; the monotonic reading and the timers stay where they are (nothing fires).
   */
  jumpWall(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`ManualClock: cannot jump the wall clock by ${ms} ms`);
    this.#start += ms;
  }

  #target(ms: number): number {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`ManualClock: cannot advance by ${ms} ms (a finite number >= 0: time moves forward only)`);
    return this.#now + ms;
  }

  /** Fires the earliest timer due at or before `target`; false when there is none. */
  #fireNext(target: number): boolean {
    const next = this.#timers[0];
    if (!next || next.at > target) return false;
    this.#timers.shift();
    this.#now = next.at;
    next.callback();
    return true;
  }
}

/** Lets queued promise callbacks run: several macrotask turns, so chains of awaits complete. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
