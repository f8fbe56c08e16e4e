/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay; default 800 ms (client-go's reflector starts at 800 ms). */
  readonly initialMs?: number;
  /** Largest delay; default 30 s. */
  readonly maxMs?: number;
  /** Growth factor per failure; default 2. */
  readonly factor?: number;
  /** Random spread added to each delay, as a fraction of it; default 0.1. Set 0 for exact delays. */
  readonly jitter?: number;
  /** Random numbers in [0, 1), injectable for tests; default Math.random. */
  readonly random?: () => number;
}

/**
 * Capped exponential backoff: each {@link Backoff.next} returns the delay to wait before the next attempt,
 * growing by `factor` up to `maxMs`; {@link Backoff.reset} after a success starts again from `initialMs`.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #failures = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.1;
    this.#random = options.random ?? Math.random;
    if (!(this.#initialMs >= 0) || !(this.#maxMs >= this.#initialMs) || !(this.#factor >= 1) || !(this.#jitter >= 0)) {
      throw new RangeError('backoff needs 0 <= initialMs <= maxMs, factor >= 1 and jitter >= 0');
    }
  }

  /** The number of failures since the last reset. */
  get failures(): number {
    return this.#failures;
  }

  /** Records a failure and returns the delay before the next attempt, in milliseconds. */
  next(): number {
    const base = Math.min(this.#maxMs, this.#initialMs * this.#factor ** this.#failures);
    this.#failures += 1;
    return Math.min(this.#maxMs, base * (1 + this.#jitter * this.#random()));
  }

  /** Records a success: the next failure waits `initialMs` again. */
  reset(): void {
    this.#failures = 0;
  }
}
