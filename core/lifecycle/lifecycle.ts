/** What shutting down did. */
export interface ShutdownResult {
  /** The signal that started it; undefined when `close()` was called. */
  readonly signal?: NodeJS.Signals;
  /** True when the closers were still running at the deadline. */
  readonly forced: boolean;
  /** Errors thrown by closers, with the closer's name. */
  readonly errors: readonly { name: string; error: unknown }[];
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * The running parts of a program (listeners, watches, timers) and their orderly shutdown: closers run
 * one after another in reverse order of registration, so what started last stops first.
 *
 * A program calls `runUntilSignal` before it starts anything, so a signal that arrives during start-up
 * is not lost: shutdown begins at once, and whatever start-up registers after that is closed as soon as
 * it is registered.
 */
export class Lifecycle {
  readonly #closers: { name: string; close: () => void | Promise<void> }[] = [];
  /** Closers registered after shutdown began, already running. */
  readonly #late: Promise<void>[] = [];
  readonly #errors: { name: string; error: unknown }[] = [];
  #closing: Promise<ShutdownResult> | undefined;
  /** Pending `runUntilSignal` calls, told when shutdown begins without a signal. */
  readonly #onClose: (() => void)[] = [];

  /** True once shutdown has begun. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** Registers a closer; `name` identifies it in errors. After shutdown began, the closer runs at once. */
  add(name: string, close: () => void | Promise<void>): void {
    if (this.#closing === undefined) {
      this.#closers.push({ name, close });
      return;
    }
    this.#late.push(
      (async () => {
        try {
          await close();
        } catch (error) {
          this.#errors.push({ name, error });
        }
      })(),
    );
  }

  /**
   * Waits for SIGTERM or SIGINT, then closes everything within `shutdownMs` (resolving at the deadline
   * even if a closer hangs). When `close()` is called first (a start-up failure, a test), it resolves with
   * that shutdown instead. Its signal listeners are removed before it resolves.
   */
  runUntilSignal(shutdownMs: number): Promise<ShutdownResult> {
    return new Promise<ShutdownResult>((resolve) => {
      const stopListening = (): void => {
        for (const [s, h] of handlers) process.off(s, h);
      };
      const handlers = SIGNALS.map((signal) => {
        const handler = (): void => {
          stopListening();
          resolve(this.close(shutdownMs, signal));
        };
        process.on(signal, handler);
        return [signal, handler] as const;
      });
      this.#onClose.push(() => {
        stopListening();
        resolve(this.#closing!);
      });
    });
  }

  /** Closes everything once (later calls get the same result), resolving by `deadlineMs` at the latest. */
  close(deadlineMs = Infinity, signal?: NodeJS.Signals): Promise<ShutdownResult> {
    if (this.#closing === undefined) {
      this.#closing = this.#closeAll(deadlineMs, signal);
      for (const listener of this.#onClose.splice(0)) listener();
    }
    return this.#closing;
  }

  async #closeAll(deadlineMs: number, signal: NodeJS.Signals | undefined): Promise<ShutdownResult> {
    const errors = this.#errors;
    const closeInOrder = async (): Promise<false> => {
      for (const closer of [...this.#closers].reverse()) {
        try {
          await closer.close();
        } catch (error) {
          errors.push({ name: closer.name, error });
        }
      }
      // Parts that start-up registered while the others were closing.
      await Promise.all(this.#late);
      return false;
    };
    let timer: NodeJS.Timeout | undefined;
    const deadline = Number.isFinite(deadlineMs) ? new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), deadlineMs))) : undefined;
    try {
      const forced = await (deadline ? Promise.race([closeInOrder(), deadline]) : closeInOrder());
      return { ...(signal ? { signal } : {}), forced, errors: [...errors] };
    } finally {
      clearTimeout(timer);
    }
  }
}
