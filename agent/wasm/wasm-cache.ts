/**
 * The agent's Wasm module cache (Istio's wasm remote-load cache): a module named by URL (and optionally
 * its sha256) is fetched over HTTP(S) once, checked (checksum, Wasm magic), stored as `<sha256>.wasm`, and
 * served from disk afterwards. Fetches are retried WASM_HTTP_REQUEST_MAX_RETRIES times with backoff,
 * each bounded by WASM_HTTP_REQUEST_TIMEOUT; HTTPS is verified unless the host is in
 * WASM_INSECURE_REGISTRIES. Entries unused for WASM_MODULE_EXPIRY are purged every WASM_PURGE_INTERVAL.
 * Metrics: `wasm_remote_fetch_count{result}`, `wasm_cache_lookup_count{hit}`, `wasm_cache_entries`.
 * `oci://` modules come from OCI images (oci-image.ts); their `sha256` names the image manifest's digest,
 * as in Istio. An insecure registry is tried over HTTPS without verification, then over plain HTTP.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { systemClock, type CancelTimer, type Clock, type Metrics } from '../../core/index.js';
import { fetchOciWasm, parseOciUrl, type HttpAnswer } from './oci-image.js';
import { FileWriteError, writeFileWhole } from '../write-file-whole.js';

/** Credentials for a registry (from an image pull secret). */
export interface RegistryCredentials {
  readonly username: string;
  readonly password: string;
}

/** Options of the cache, from the WASM_* variables. */
export interface WasmCacheOptions {
  readonly dir: string;
  readonly maxRetries: number;
  readonly requestTimeoutMs: number;
  readonly expiryMs: number;
  readonly purgeIntervalMs: number;
  readonly insecureRegistries: readonly string[];
  /** First retry delay (default 500 ms, doubling). */
  readonly retryBackoffMs?: number;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly clock?: Clock;
}

/** A module that could not be fetched or did not check out; `result` is the metric's label. */
export class WasmFetchError extends Error {
  override readonly name = 'WasmFetchError';
  constructor(
    readonly result: 'download_failure' | 'checksum_mismatched',
    message: string,
  ) {
    super(message);
  }
}

const WASM_MAGIC = Buffer.from([0x00, 0x61, 0x73, 0x6d]);

interface Entry {
  readonly path: string;
  readonly sha256: string;
  lastUsedMs: number;
}

/** The cache. */
export class WasmCache {
  readonly #o: WasmCacheOptions;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  #timer: CancelTimer | undefined;

  constructor(options: WasmCacheOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    mkdirSync(options.dir, { recursive: true });
  }

  /** Starts the periodic purge. */
  start(): void {
    const tick = (): void => {
      this.purge();
      this.#timer = this.#clock.setTimer(tick, this.#o.purgeIntervalMs);
    };
    this.#timer = this.#clock.setTimer(tick, this.#o.purgeIntervalMs);
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The local file of the module at `url` (fetching it unless cached); rejects with WasmFetchError. */
  async get(url: string, sha256?: string, credentials?: RegistryCredentials): Promise<string> {
    const key = `${url}#${sha256 ?? ''}`;
    const cached = this.#entries.get(key);
    this.#o.metrics.counter('wasm_cache_lookup_count').inc({ hit: cached ? 'true' : 'false' });
    if (cached) {
      cached.lastUsedMs = this.#clock.now();
      return cached.path;
    }
    const oci = url.startsWith('oci://');
    if (!oci && !/^https?:\/\//.test(url)) throw new WasmFetchError('download_failure', `${url}: only http(s):// and oci:// Wasm URLs are supported`);
    let bytes: Buffer;
    let checked: string;
    try {
      if (oci) {
        const fetched = await this.#withRetries(url, () => this.#fetchOci(url, credentials));
        bytes = fetched.wasm;
        checked = fetched.manifestDigest.replace(/^sha256:/, '');
      } else {
        bytes = await this.#withRetries(url, () => this.#fetch(url));
        checked = createHash('sha256').update(bytes).digest('hex');
      }
    } catch (e) {
      this.#o.metrics.counter('wasm_remote_fetch_count').inc({ result: 'download_failure' });
      throw new WasmFetchError('download_failure', `${url}: ${(e as Error).message}`);
    }
    if (sha256 && checked !== sha256.toLowerCase().replace(/^sha256:/, '')) {
      this.#o.metrics.counter('wasm_remote_fetch_count').inc({ result: 'checksum_mismatched' });
      throw new WasmFetchError('checksum_mismatched', `${url}: ${oci ? 'image digest' : 'sha256'} is ${checked}, expected ${sha256}`);
    }
    const got = createHash('sha256').update(bytes).digest('hex');
    if (!bytes.subarray(0, 4).equals(WASM_MAGIC)) {
      this.#o.metrics.counter('wasm_remote_fetch_count').inc({ result: 'download_failure' });
      throw new WasmFetchError('download_failure', `${url}: not a Wasm binary (no \\0asm header)`);
    }
    const path = join(this.#o.dir, `${got}.wasm`);
    // NOTE: whole or not at all: a full disk leaves no torn module behind.
    try {
      writeFileWhole(path, bytes);
    } catch (e) {
      this.#o.metrics.counter('wasm_remote_fetch_count').inc({ result: 'download_failure' });
      const reason = e instanceof FileWriteError ? e.reason : (e as Error).message;
      throw new WasmFetchError('download_failure', `${url}: cannot store it as ${path}: ${reason}`);
    }
    this.#entries.set(key, { path, sha256: got, lastUsedMs: this.#clock.now() });
    this.#o.metrics.counter('wasm_remote_fetch_count').inc({ result: 'success' });
    this.#o.metrics.gauge('wasm_cache_entries').set(this.#entries.size);
    return path;
  }

  async #withRetries<T>(url: string, fetch: () => Promise<T>): Promise<T> {
    let delay = this.#o.retryBackoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch();
      } catch (e) {
        if (attempt >= this.#o.maxRetries) throw new Error(`${(e as Error).message} (after ${attempt + 1} attempts)`);
        this.#o.logger.debug({ url, attempt, err: (e as Error).message }, 'Wasm fetch failed; retrying');
        await this.#clock.sleep(delay);
        delay *= 2;
      }
    }
  }

  #insecure(u: URL): boolean {
    const list = this.#o.insecureRegistries;
    return list.includes('*') || list.includes(u.host) || list.includes(u.hostname);
  }

  async #fetch(url: string): Promise<Buffer> {
    const a = await this.#request(url, {});
    if (a.status !== 200) throw new Error(`HTTP ${a.status}`);
    return a.body;
  }

  async #fetchOci(url: string, credentials: RegistryCredentials | undefined): Promise<{ wasm: Buffer; manifestDigest: string }> {
    const ref = parseOciUrl(url);
    const get = (u: string, headers: Readonly<Record<string, string>>): Promise<HttpAnswer> => this.#request(u, headers);
    const o = { get, ...(credentials ? { credentials } : {}) };
    if (!this.#insecure(new URL(`https://${ref.registry}`))) return fetchOciWasm(ref, { ...o, scheme: 'https' });
    try {
      return await fetchOciWasm(ref, { ...o, scheme: 'https' });
    } catch (e) {
      // NOTE: an insecure registry may serve plain HTTP: a TLS handshake failure falls back to it.
      if (!/EPROTO|SSL|TLS|ECONNRESET|socket hang up/i.test(`${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`)) throw e;
      return fetchOciWasm(ref, { ...o, scheme: 'http' });
    }
  }

  #request(url: string, headers: Readonly<Record<string, string>>): Promise<HttpAnswer> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { headers, timeout: this.#o.requestTimeoutMs, rejectUnauthorized: !this.#insecure(u) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.#o.requestTimeoutMs}ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Removes entries unused for the expiry; returns how many. */
  purge(): number {
    const now = this.#clock.now();
    let removed = 0;
    for (const [key, e] of this.#entries) {
      if (now - e.lastUsedMs < this.#o.expiryMs) continue;
      this.#entries.delete(key);
      if (![...this.#entries.values()].some((x) => x.path === e.path)) rmSync(e.path, { force: true });
      removed++;
    }
    this.#o.metrics.gauge('wasm_cache_entries').set(this.#entries.size);
    return removed;
  }

  /** Stops the purge timer. */
  close(): void {
    this.#timer?.();
  }
}
