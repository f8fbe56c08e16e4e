// Fetches and caches an OIDC issuer's signing keys: `<issuer>/.well-known/openid-configuration`, then its
// `jwks_uri`. Refetched every refresh interval and on an unknown kid (at most once per `minRefetchIntervalMs`).
import * as http from 'node:http';
import * as https from 'node:https';
import type { Logger } from 'pino';
import { systemClock, type CancelTimer, type Clock } from '../../../core/index.js';
import { importJwks, type VerificationKey } from './jwt-verifier.js';

/** The issuer's keys could not be fetched or read; the message names the URL and the cause. */
export class JwksFetchError extends Error {
  override readonly name = 'JwksFetchError';
}

/** The metric handles the resolver counts fetches with (a slice of core's `Metrics`). */
export interface JwksMetrics {
  counter(name: 'pilot_jwks_resolver_network_fetch_success_total' | 'pilot_jwks_resolver_network_fetch_fail_total'): { inc(value?: number): void };
}

/** Settings of a resolver. */
export interface JwksResolverOptions {
  /** TOKEN_ISSUER: an http(s) URL. */
  readonly issuer: string;
  /** PILOT_JWT_PUB_KEY_REFRESH_INTERVAL; 0 disables the background refresh. */
  readonly refreshIntervalMs: number;
  /** JWKS_RESOLVER_INSECURE_SKIP_VERIFY. */
  readonly insecureSkipVerify: boolean;
  /** Least time between two fetches caused by an unknown kid or a failed fetch. Default 5 s. */
  readonly minRefetchIntervalMs?: number;
  /** Per-request timeout. Default 10 s. */
  readonly timeoutMs?: number;
  /** Time of the refetch limit and the periodic refresh; default the system clock. */
  readonly clock?: Clock;
}

const MAX_BODY_BYTES = 1 << 20;

/** What the cache holds after a fetch. */
interface KeySet {
  readonly keys: readonly VerificationKey[];
  readonly fetchedAt: number;
}

/**
 * The keys of one OIDC issuer. `keys()` answers from the cache, fetching on first use; `refetchForUnknownKid()`
 * fetches again unless a fetch happened within `minRefetchIntervalMs`. `start()` arms the periodic refresh,
 * `close()` disarms it.
 */
export class JwksResolver {
  #current: KeySet | undefined;
  #inFlight: Promise<KeySet> | undefined;
  #lastAttempt = -Infinity;
  #lastError: JwksFetchError | undefined;
  #cancelRefresh: CancelTimer | undefined;
  readonly #clock: Clock;
  readonly #agent: https.Agent;
  /** Network fetches done (discovery + JWKS count as one), for tests and debug pages. */
  fetches = 0;

  constructor(
    readonly options: JwksResolverOptions,
    readonly deps: { readonly metrics: JwksMetrics; readonly logger?: Logger },
  ) {
    this.#clock = options.clock ?? systemClock;
    this.#agent = new https.Agent({ rejectUnauthorized: !options.insecureSkipVerify, keepAlive: false });
  }

  /** Arms the background refresh every `refreshIntervalMs` (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.#cancelRefresh || !(this.options.refreshIntervalMs > 0)) return;
    this.#armRefresh();
  }

  #armRefresh(): void {
    this.#cancelRefresh = this.#clock.setTimer(() => {
      this.#armRefresh();
      this.#fetch().catch(() => undefined);
    }, this.options.refreshIntervalMs);
  }

  close(): void {
    this.#cancelRefresh?.();
    this.#cancelRefresh = undefined;
    this.#agent.destroy();
  }

  /** The cached keys; fetches when there are none yet (rate-limited after a failure). */
  async keys(): Promise<readonly VerificationKey[]> {
    if (this.#current) return this.#current.keys;
    if (this.#inFlight) return (await this.#inFlight).keys;
    if (this.#lastError && this.#clock.wallNow() - this.#lastAttempt < this.#minInterval) throw this.#lastError;
    return (await this.#fetch()).keys;
  }

  /**
   * Fetches again for a kid not in the cache, unless the last fetch was within `minRefetchIntervalMs`;
   * resolves to the (possibly unchanged) keys.
   */
  async refetchForUnknownKid(): Promise<readonly VerificationKey[]> {
    if (this.#inFlight) return (await this.#inFlight).keys;
    if (this.#clock.wallNow() - this.#lastAttempt < this.#minInterval) {
      if (this.#current) return this.#current.keys;
      throw this.#lastError ?? new JwksFetchError(`issuer ${this.options.issuer}: no keys fetched yet`);
    }
    try {
      return (await this.#fetch()).keys;
    } catch (err) {
      if (this.#current) return this.#current.keys;
      throw err;
    }
  }

  get #minInterval(): number {
    return this.options.minRefetchIntervalMs ?? 5000;
  }

  #fetch(): Promise<KeySet> {
    if (this.#inFlight) return this.#inFlight;
    this.#lastAttempt = this.#clock.wallNow();
    const run = this.#load().then(
      (set) => {
        this.#current = set;
        this.#lastError = undefined;
        this.deps.metrics.counter('pilot_jwks_resolver_network_fetch_success_total').inc();
        return set;
      },
      (err: unknown) => {
        const error = err instanceof JwksFetchError ? err : new JwksFetchError(`issuer ${this.options.issuer}: ${(err as Error).message}`);
        this.#lastError = error;
        this.deps.metrics.counter('pilot_jwks_resolver_network_fetch_fail_total').inc();
        this.deps.logger?.warn({ issuer: this.options.issuer, err: error.message }, 'JWKS fetch failed');
        throw error;
      },
    ).finally(() => {
      this.#inFlight = undefined;
    });
    this.#inFlight = run;
    return run;
  }

  async #load(): Promise<KeySet> {
    this.fetches++;
    const discoveryUrl = `${this.options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const discovery = await this.#getJson(discoveryUrl);
    const jwksUri = (discovery as { jwks_uri?: unknown } | null)?.jwks_uri;
    if (typeof jwksUri !== 'string' || jwksUri === '') throw new JwksFetchError(`${discoveryUrl}: no jwks_uri in the discovery document`);
    const jwks = await this.#getJson(jwksUri);
    let imported: ReturnType<typeof importJwks>;
    try {
      imported = importJwks(jwks);
    } catch (err) {
      throw new JwksFetchError(`${jwksUri}: ${(err as Error).message}`);
    }
    if (imported.skipped.length > 0) this.deps.logger?.warn({ jwksUri, skipped: imported.skipped }, 'JWKS keys skipped');
    if (imported.keys.length === 0) throw new JwksFetchError(`${jwksUri}: no usable RSA or EC signature key`);
    this.deps.logger?.info({ issuer: this.options.issuer, jwksUri, kids: imported.keys.map((k) => k.kid ?? '') }, 'JWKS fetched');
    return { keys: imported.keys, fetchedAt: this.#clock.wallNow() };
  }

  #getJson(url: string): Promise<unknown> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.reject(new JwksFetchError(`"${url}" is not a URL`));
    }
    const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : undefined;
    if (!client) return Promise.reject(new JwksFetchError(`${url}: scheme must be http or https`));
    return new Promise<unknown>((resolve, reject) => {
      const fail = (why: string): void => reject(new JwksFetchError(`${url}: ${why}`));
      const req = client.get(parsed, { agent: parsed.protocol === 'https:' ? this.#agent : undefined, timeout: this.options.timeoutMs ?? 10_000, headers: { accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            res.destroy();
            fail(`body larger than ${MAX_BODY_BYTES} bytes`);
          } else chunks.push(chunk);
        });
        res.on('error', (err) => fail(err.message));
        res.on('end', () => {
          if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode ?? '?'}`);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            fail(`not JSON (${(err as Error).message})`);
          }
          return undefined;
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.options.timeoutMs ?? 10_000}ms`)));
      req.on('error', (err) => fail(err.message));
    });
  }
}
