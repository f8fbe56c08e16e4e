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
 */
export class Lifecycle {
  readonly #closers: { name: string; close: () => void | Promise<void> }[] = [];
  #closing: Promise<ShutdownResult> | undefined;

  /** Registers a closer; `name` identifies it in errors. */
  add(name: string, close: () => void | Promise<void>): void {
    this.#closers.push({ name, close });
  }

  /**
   * Waits for SIGTERM or SIGINT, then closes everything within `shutdownMs` (resolving at the deadline
   * even if a closer hangs). Its signal listeners are removed before it resolves.
   */
  runUntilSignal(shutdownMs: number): Promise<ShutdownResult> {
    return new Promise<NodeJS.Signals>((resolve) => {
      const handlers = SIGNALS.map((signal) => {
        const handler = (): void => {
          for (const [s, h] of handlers) process.off(s, h);
          resolve(signal);
        };
        process.on(signal, handler);
        return [signal, handler] as const;
      });
    }).then((signal) => this.close(shutdownMs, signal));
  }

  /** Closes everything once (later calls get the same result), resolving by `deadlineMs` at the latest. */
  close(deadlineMs = Infinity, signal?: NodeJS.Signals): Promise<ShutdownResult> {
    this.#closing ??= this.#closeAll(deadlineMs, signal);
    return this.#closing;
  }

  async #closeAll(deadlineMs: number, signal: NodeJS.Signals | undefined): Promise<ShutdownResult> {
    const errors: { name: string; error: unknown }[] = [];
    const closeInOrder = async (): Promise<false> => {
      for (const closer of [...this.#closers].reverse()) {
        try {
          await closer.close();
        } catch (error) {
          errors.push({ name: closer.name, error });
        }
      }
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
