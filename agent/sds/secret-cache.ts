/**
 * The agent's workload secret: issued once at start, then rotated before it expires. The rotation time
 * is Istio's: `notAfter - lifetime * SECRET_GRACE_PERIOD_RATIO` (with the default 0.5, half-way through
 * the lifetime). A failed issue is retried with capped exponential backoff. Subscribers (the SDS streams,
 * the proxyless file writer) hear every new secret; `cert_expiry_seconds{resource_name}` is set on each.
 */
import type { Logger } from 'pino';
import { systemClock, type CancelTimer, type Clock, type Metrics } from '../../core/index.js';
import type { CertificateProvider, WorkloadSecret } from './workload-secret.js';

/** Longest the rotation timer waits before it looks at the wall clock again (see `#scheduleRotation`). */
export const ROTATION_RECHECK_MS = 60_000;

/** Options of a `SecretCache`. */
export interface SecretCacheOptions {
  readonly provider: CertificateProvider;
  /** SECRET_GRACE_PERIOD_RATIO, in (0, 1). */
  readonly gracePeriodRatio: number;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly metrics?: Metrics;
  /** Retry backoff after a failed issue (default 1 s doubling to 60 s). */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
}

/** The workload secret and its rotation. */
export class SecretCache {
  readonly #o: SecretCacheOptions;
  readonly #clock: Clock;
  readonly #listeners = new Set<(s: WorkloadSecret) => void>();
  #current: WorkloadSecret | undefined;
  #first: Promise<WorkloadSecret> | undefined;
  #timer: CancelTimer | undefined;
  #closed = false;
  /** Secrets issued so far. */
  issued = 0;

  constructor(options: SecretCacheOptions) {
    if (!(options.gracePeriodRatio > 0 && options.gracePeriodRatio < 1)) {
      throw new RangeError(`SECRET_GRACE_PERIOD_RATIO=${options.gracePeriodRatio}: use a number between 0 and 1`);
    }
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** The current secret, if one was issued. */
  get current(): WorkloadSecret | undefined {
    return this.#current;
  }

  /** The first secret (issued on the first call, retried until it succeeds or the cache closes). */
  ready(): Promise<WorkloadSecret> {
    this.#first ??= this.#issueWithRetry();
    return this.#first;
  }

  /** Calls `listener` with every secret issued from now on; returns the unsubscribe. */
  subscribe(listener: (s: WorkloadSecret) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** When the current secret will be rotated (wall-clock ms). */
  rotationAtMs(s: WorkloadSecret): number {
    return s.notAfterMs - (s.notAfterMs - s.notBeforeMs) * this.#o.gracePeriodRatio;
  }

  async #issueWithRetry(): Promise<WorkloadSecret> {
    let delay = this.#o.retry?.initialMs ?? 1_000;
    for (;;) {
      try {
        const s = await this.#o.provider.issue();
        this.#install(s);
        return s;
      } catch (e) {
        if (this.#closed) throw e;
        this.#o.logger.warn({ err: (e as Error).message, provider: this.#o.provider.name, retryMs: delay }, 'workload certificate request failed; retrying');
        await this.#clock.sleep(delay, undefined, { keepAlive: true });
        if (this.#closed) throw e;
        delay = Math.min(delay * 2, this.#o.retry?.maxMs ?? 60_000);
      }
    }
  }

  #install(s: WorkloadSecret): void {
    this.#current = s;
    this.issued++;
    const expiry = (s.notAfterMs - this.#clock.wallNow()) / 1000;
    this.#o.metrics?.gauge('cert_expiry_seconds').set({ resource_name: 'default' }, expiry);
    this.#o.logger.info({ notAfter: new Date(s.notAfterMs).toISOString(), provider: this.#o.provider.name }, 'workload certificate issued');
    // NOTE: a listener that fails (certificate files on a full disk) must neither keep the others from the new secret
    // nor pass for a failed issue (which would request another certificate): it is logged, and the rotation goes on.
    for (const l of this.#listeners) {
      try {
        l(s);
      } catch (e) {
        this.#o.logger.error({ err: (e as Error).message }, 'a consumer of the new workload certificate failed; the others have it');
      }
    }
    this.#scheduleRotation(s);
  }

  /**
   * Rotates `s` once the wall clock reaches its rotation time. NOTE: validity is wall-clock time but timers
   * run on the monotonic clock, and the two part when the system time is stepped or a VM resumes (its
   * monotonic clock stood still while it slept): a timer set for the whole wait would fire hours after the
   * certificate expired. So the wait is taken in steps of at most {@link ROTATION_RECHECK_MS}, and each
   * step compares the wall clock again (a forward jump rotates at the next step, a backward one waits).
   */
  #scheduleRotation(s: WorkloadSecret): void {
    const inMs = Math.max(0, this.rotationAtMs(s) - this.#clock.wallNow());
    this.#timer?.();
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = undefined;
      if (this.#closed || this.#current !== s) return;
      if (this.#clock.wallNow() < this.rotationAtMs(s)) return this.#scheduleRotation(s);
      void this.#issueWithRetry().catch(() => undefined);
    }, Math.min(inMs, ROTATION_RECHECK_MS));
  }

  /** Stops rotation; the provider is closed too. */
  close(): void {
    this.#closed = true;
    this.#timer?.();
    this.#o.provider.close?.();
  }
}
