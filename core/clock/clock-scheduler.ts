import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { CancelTimer, Clock, TimerOptions } from './clock.js';

/**
 * One scheduled piece of work, as RxJS's `AsyncAction`: its timer runs on the clock; `work` may call
 * `this.schedule(state, delay)` to run again; when it does not, the action closes after running.
 */
class ClockAction<T> extends Subscription implements SchedulerAction<T> {
  #cancel: CancelTimer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
    private readonly options: TimerOptions | undefined,
  ) {
    super();
    this.add(() => this.#clear());
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.#clear();
    this.#cancel = this.clock.setTimer(() => this.#run(state), delay, this.options);
    return this;
  }

  #run(state: T | undefined): void {
    this.#cancel = undefined;
    try {
      this.work.call(this, state);
    } finally {
      // NOTE: work that did not schedule itself again is done (RxJS's AsyncAction closes the same way).
      if (!this.#cancel) this.unsubscribe();
    }
  }

  #clear(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }
}

/**
 * An RxJS scheduler whose `now()` is `clock.now()` and whose delays run on `clock`'s timers, so time-based
 * operators (`debouncePushes`, `delay`, `timer`, ...) run on the same clock as the rest of the program: on
 * a {@link ManualClock} they advance only with it, deterministically. `options` apply to every timer
 * (default: they do not keep the process alive).
 */
export function clockScheduler(clock: Clock, options?: TimerOptions): SchedulerLike {
  return {
    now: () => clock.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      return new ClockAction<T>(clock, work, options).schedule(state, delay);
    },
  };
}
