import { systemClock, type Clock } from '../../core/index.js';

/**
 * A token bucket rate limiter, as client-go's `--kube-api-qps`/`--kube-api-burst`: it holds at most `burst`
 * tokens, refills `qps` tokens per second, and starts full. Each {@link TokenBucket.take} reserves one token
 * at once (so callers are served in arrival order) and waits until that token has been refilled.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  /**
   * @param qps tokens per second, > 0
   * @param burst capacity, >= 1
   * @param clock time of the refill and the waits; default {@link systemClock}
   * @throws RangeError when qps or burst is out of range
   */
  constructor(qps: number, burst: number, clock: Clock = systemClock) {
    if (!(qps > 0) || !Number.isFinite(qps)) throw new RangeError(`token bucket qps must be a number > 0, got ${qps}`);
    if (!(burst >= 1) || !Number.isInteger(burst)) throw new RangeError(`token bucket burst must be an integer >= 1, got ${burst}`);
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** Tokens available now (negative while callers wait for reserved tokens). */
  available(): number {
    this.#refill();
    return this.#tokens;
  }

  /**
   * Takes one token, waiting until it is available. When `signal` aborts while waiting, the token is given
   * back and the promise rejects with the signal's reason.
   */
  async take(signal?: AbortSignal): Promise<void> {
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = (-this.#tokens / this.#qps) * 1000;
    try {
      // NOTE: a caller waiting for a token keeps the process alive (a CLI's rate-limited request must finish).
      await this.#clock.sleep(waitMs, signal, { keepAlive: true });
    } catch (err) {
      this.#tokens += 1;
      throw err;
    }
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#last);
    this.#last = now;
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed / 1000) * this.#qps);
  }
}
