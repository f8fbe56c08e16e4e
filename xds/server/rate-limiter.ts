/**
 * Admission of new xDS streams (`PILOT_MAX_REQUESTS_PER_SECOND`): a token bucket, as Istio's
 * `rate.NewLimiter(limit, 1)` with `Wait` bounded to one second. A caller reserves the next free slot;
 * if that slot is further away than `maxWaitMs` the caller is refused (the stream then ends with
 * RESOURCE_EXHAUSTED and the client retries with backoff, perhaps on another meshd).
 */
import { availableParallelism } from 'node:os';
import { systemClock, type Clock } from '../../core/index.js';

/** Istio's default when the variable is 0: `min(15 + 5 * cores, 100)` requests per second. */
export function defaultRequestLimit(cores = availableParallelism()): number {
  return Math.min(15 + 5 * cores, 100);
}

/** Options of a RateLimiter. */
export interface RateLimiterOptions {
  /** Tokens per second (> 0). */
  readonly ratePerSecond: number;
  /** Bucket size; Istio uses 1. */
  readonly burst?: number;
  /** Time of the bucket and the waits (which do not keep the process alive); default the system clock. */
  readonly clock?: Clock;
}

/** A token bucket with bounded waiting. */
export class RateLimiter {
  readonly #intervalMs: number;
  readonly #burstMs: number;
  readonly #clock: Clock;
  /** The time at which the bucket is full again ("theoretical arrival time"). */
  #tat = -Infinity;

  constructor(opts: RateLimiterOptions) {
    if (!(opts.ratePerSecond > 0)) throw new RangeError(`rate must be > 0 per second (got ${opts.ratePerSecond})`);
    const burst = opts.burst ?? 1;
    if (!(burst >= 1)) throw new RangeError(`burst must be >= 1 (got ${burst})`);
    this.#intervalMs = 1000 / opts.ratePerSecond;
    this.#burstMs = this.#intervalMs * burst;
    this.#clock = opts.clock ?? systemClock;
  }

  /**
   * Reserves a token. Returns the milliseconds to wait before using it (0 = now), or `undefined` when the
   * wait would exceed `maxWaitMs` (nothing is reserved then).
   */
  reserve(maxWaitMs: number): number | undefined {
    const now = this.#clock.now();
    const tat = Math.max(this.#tat, now);
    // NOTE: (tat - now) first, so that an idle bucket gives exactly 0 (no floating-point residue).
    const wait = tat - now + (this.#intervalMs - this.#burstMs);
    if (wait > maxWaitMs) return undefined;
    this.#tat = tat + this.#intervalMs;
    return Math.max(0, wait);
  }

  /** Waits for a token; resolves false (without waiting) when it would take more than `maxWaitMs`. */
  async wait(maxWaitMs: number): Promise<boolean> {
    const w = this.reserve(maxWaitMs);
    if (w === undefined) return false;
    if (w > 0) await this.#clock.sleep(w);
    return true;
  }
}
