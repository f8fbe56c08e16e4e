/**
 * XdsCache: encoded resource bytes keyed by resource and the inputs that shape it, so a resource
 * shared by many proxies is built and encoded once. Each entry names the configs it depends on
 * (`Kind/namespace/name` keys, `ServiceEntry/<ns>/<host>` service keys, or whole kinds `kind:<Kind>`);
 * a push clears the entries that depend on what it changed. Bounded: least recently used entries
 * are evicted beyond `maxSize` (recency is tracked approximately: a hit on an entry that is still in
 * the newer half of the cache does not move it, which spares a map delete+insert on most hits).
 */

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
}

interface Entry {
  readonly bytes: Uint8Array;
  readonly deps: readonly string[];
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

  constructor(opts: XdsCacheOptions) {
    if (!Number.isInteger(opts.maxSize) || opts.maxSize < 1) throw new RangeError(`PILOT_XDS_CACHE_SIZE=${opts.maxSize}: want a positive integer`);
    this.#max = opts.maxSize;
    this.#refreshAfter = Math.max(1, Math.floor(opts.maxSize / 2));
    this.#metrics = opts.metrics;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Bytes for a key, or undefined; counts a hit or a miss. */
  get(key: string): Uint8Array | undefined {
    const e = this.#entries.get(key);
    if (!e) {
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

  /** Stores bytes with their dependencies, evicting the least recently used entries beyond the bound. */
  set(key: string, bytes: Uint8Array, deps: readonly string[]): void {
    this.#remove(key);
    this.#entries.set(key, { bytes, deps, order: ++this.#tick });
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
  }

  /**
   * Clears the entries that depend on any of the changed configs: each `Kind/ns/name` key clears
   * entries naming that key and entries depending on the whole kind (`kind:Kind`).
   */
  clear(changed: Iterable<string>): void {
    for (const key of changed) {
      this.#clearDep(key);
      const kind = key.split('/')[0];
      if (kind) this.#clearDep(`kind:${kind}`);
    }
    this.#report();
  }

  /** Clears everything (full pushes that name no configs, mesh config changes). */
  clearAll(): void {
    this.#entries.clear();
    this.#byDep.clear();
    this.#report();
  }

  #report(): void {
    this.#metrics?.size?.(this.#entries.size);
    this.#metrics?.dependentConfigs?.(this.#byDep.size);
  }

  /** Keys currently held, least recently used first (for debug). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  #clearDep(dep: string): void {
    const keys = this.#byDep.get(dep);
    if (!keys) return;
    for (const k of [...keys]) {
      this.#remove(k);
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
