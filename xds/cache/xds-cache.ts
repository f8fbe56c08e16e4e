/**
 * XdsCache: encoded resource bytes keyed by resource and the inputs that shape it, so a resource
 * shared by many proxies is built and encoded once. Each entry names the configs it depends on
 * (`Kind/namespace/name` keys, `ServiceEntry/<ns>/<host>` service keys, or whole kinds `kind:<Kind>`);
 * a push clears the entries that depend on what it changed. Bounded: least recently used entries
 * are evicted beyond `maxSize` (recency is tracked approximately: a hit on an entry that is still in
 * the newer half of the cache does not move it, which spares a map delete+insert on most hits).
 *
 * Stale writes are refused (as istiod's typed cache refuses writes older than its token). Every write
 * and every invalidation carries the token of the snapshot it comes from (`PushSnapshot.token`). An
 * invalidation remembers its token per dependency it names and per key it drops; a write built from an
 * older snapshot than any of those, or older than the entry already held, is dropped: otherwise a build
 * that started before a config change and finished after the change's invalidation would put bytes of
 * the old config back, to be served until that config changed again.
 */

import { configKeyString, type ConfigKey } from '../../core/index.js';

/** Metric hooks: xds_cache_reads{type=hit|miss}, xds_cache_evictions, xds_cache_size. */
export interface XdsCacheMetrics {
  read?(type: 'hit' | 'miss'): void;
  /** `size`: dropped to stay within the bound; `clear`: dropped because a dependency changed. */
  eviction?(type: 'size' | 'clear'): void;
  size?(n: number): void;
  /** xds_cache_dependent_config_size: distinct dependencies the entries name. */
  dependentConfigs?(n: number): void;
}

/** Options of the cache. */
export interface XdsCacheOptions {
  /** PILOT_XDS_CACHE_SIZE; at least 1. */
  readonly maxSize: number;
  readonly metrics?: XdsCacheMetrics;
  /**
   * How many invalidation tokens (per dependency and per dropped key) are remembered before they are
   * folded into one floor (every write older than the floor is refused); default max(4096, maxSize).
   */
  readonly maxTokens?: number;
}

interface Entry {
  readonly bytes: Uint8Array;
  readonly deps: readonly string[];
  /** The snapshot token the bytes were built from. */
  readonly token: number;
  /** The insertion tick when the entry was last (re-)inserted. */
  order: number;
}

/** See the file comment. */
export class XdsCache {
  readonly #max: number;
  readonly #metrics: XdsCacheMetrics | undefined;
  /** Insertion order = recency order (a hit re-inserts). */
  readonly #entries = new Map<string, Entry>();
  readonly #byDep = new Map<string, Set<string>>();
  /** Counts insertions; an entry with fewer than `#refreshAfter` insertions since its own is in the newer half. */
  #tick = 0;
  readonly #refreshAfter: number;
  /** The latest invalidation token of each dependency (`Kind/ns/name` and `kind:Kind`). */
  readonly #depTokens = new Map<string, number>();
  /** The latest invalidation token of each key dropped by an invalidation. */
  readonly #keyTokens = new Map<string, number>();
  /** Writes built from a token below this are refused (clearAll, and folded token maps). */
  #floor = 0;
  readonly #maxTokens: number;

  constructor(opts: XdsCacheOptions) {
    if (!Number.isInteger(opts.maxSize) || opts.maxSize < 1) throw new RangeError(`PILOT_XDS_CACHE_SIZE=${opts.maxSize}: want a positive integer`);
    this.#max = opts.maxSize;
    this.#refreshAfter = Math.max(1, Math.floor(opts.maxSize / 2));
    this.#metrics = opts.metrics;
    this.#maxTokens = opts.maxTokens ?? Math.max(4096, opts.maxSize);
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Bytes for a key, or undefined; counts a hit or a miss. `token`: the snapshot the reader builds from;
   * bytes built from a newer snapshot are a miss when the key or one of its inputs was invalidated after
   * the reader's snapshot (they hold a change the reader's snapshot does not have).
   * NOTE: without this a push that waited in the queue served bytes another proxy's newer push had cached,
   * under its older version: the bytes a proxy got then hung on which proxy was pushed first.
   */
  get(key: string, token?: number): Uint8Array | undefined {
    const e = this.#entries.get(key);
    if (!e || (token !== undefined && e.token > token && this.#changedSince(key, e.deps, token))) {
      this.#metrics?.read?.('miss');
      return undefined;
    }
    if (this.#tick - e.order >= this.#refreshAfter) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
      e.order = ++this.#tick;
    }
    this.#metrics?.read?.('hit');
    return e.bytes;
  }

  /**
   * Stores bytes built from the snapshot numbered `token` with their dependencies, evicting the least
   * recently used entries beyond the bound. Returns false (and stores nothing) when the bytes are stale:
   * built from a snapshot older than an invalidation of the key or of one of `deps`, or older than the
   * bytes already held for the key.
   */
  set(key: string, bytes: Uint8Array, deps: readonly string[], token: number): boolean {
    if (this.#stale(key, deps, token)) return false;
    this.#remove(key);
    this.#entries.set(key, { bytes, deps, token, order: ++this.#tick });
    for (const d of deps) {
      let s = this.#byDep.get(d);
      if (!s) this.#byDep.set(d, (s = new Set()));
      s.add(key);
    }
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#remove(oldest);
      this.#metrics?.eviction?.('size');
    }
    this.#report();
    return true;
  }

  /**
   * Clears the entries that depend on any of the changed configs: each `Kind/ns/name` key clears
   * entries naming that key and entries depending on the whole kind (`kind:Kind`). `token` is the
   * snapshot that has the change: later writes built from older snapshots that depend on it are refused.
   */
  clear(changed: Iterable<ConfigKey>, token: number): void {
    for (const key of changed) {
      this.#clearDep(configKeyString(key), token);
      this.#clearDep(`kind:${key.kind}`, token);
    }
    this.#report();
  }

  /**
   * Clears everything (full pushes that name no configs, mesh config changes); writes built from
   * snapshots older than `token` are refused from now on.
   */
  clearAll(token: number): void {
    this.#entries.clear();
    this.#byDep.clear();
    this.#depTokens.clear();
    this.#keyTokens.clear();
    this.#floor = Math.max(this.#floor, token);
    this.#report();
  }

  /** Whether the key or one of its deps was invalidated after snapshot `token` (or may have been: the floor). */
  #changedSince(key: string, deps: readonly string[], token: number): boolean {
    if (this.#floor > token) return true;
    if ((this.#keyTokens.get(key) ?? -1) > token) return true;
    for (const d of deps) if ((this.#depTokens.get(d) ?? -1) > token) return true;
    return false;
  }

  #stale(key: string, deps: readonly string[], token: number): boolean {
    if (token < this.#floor) return true;
    const held = this.#entries.get(key);
    if (held && held.token >= token) return true;
    if ((this.#keyTokens.get(key) ?? -1) > token) return true;
    for (const d of deps) if ((this.#depTokens.get(d) ?? -1) > token) return true;
    return false;
  }

  /** Remembers an invalidation token, folding the map into the floor when it grows past the bound. */
  #remember(tokens: Map<string, number>, name: string, token: number): void {
    if ((tokens.get(name) ?? -1) >= token) return;
    tokens.set(name, token);
    if (tokens.size <= this.#maxTokens) return;
    // NOTE: forgetting which names were invalidated is safe only if every write older than the newest
    // forgotten token is refused: a few fresh writes are then not cached, never a stale one.
    for (const t of tokens.values()) this.#floor = Math.max(this.#floor, t);
    tokens.clear();
  }

  #report(): void {
    this.#metrics?.size?.(this.#entries.size);
    this.#metrics?.dependentConfigs?.(this.#byDep.size);
  }

  /** Keys currently held, least recently used first (for debug). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  #clearDep(dep: string, token: number): void {
    this.#remember(this.#depTokens, dep, token);
    const keys = this.#byDep.get(dep);
    if (!keys) return;
    for (const k of [...keys]) {
      this.#remove(k);
      this.#remember(this.#keyTokens, k, token);
      this.#metrics?.eviction?.('clear');
    }
  }

  #remove(key: string): void {
    const e = this.#entries.get(key);
    if (!e) return;
    this.#entries.delete(key);
    for (const d of e.deps) {
      const s = this.#byDep.get(d);
      s?.delete(key);
      if (s && s.size === 0) this.#byDep.delete(d);
    }
  }
}
