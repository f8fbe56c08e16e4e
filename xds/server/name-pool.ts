/**
 * NamePool: one string per distinct resource name that proxies subscribe to. Each proxy's request decodes its own
 * copy of every name it watches (a sidecar watches a load assignment per cluster of the mesh), so 400 sidecars
 * watching 1,000 names held 400,000 strings; pooled, they share one per name. Bounded: past `max` distinct names
 * (far above any mesh's resource names) a name is kept as decoded, so names a client makes up cannot grow it further.
 */
export class NamePool {
  readonly #names = new Map<string, string>();
  constructor(private readonly max = 100_000) {}

  /** The pooled string equal to `name` (pooling it while there is room). */
  intern(name: string): string {
    const known = this.#names.get(name);
    if (known !== undefined) return known;
    if (this.#names.size < this.max) this.#names.set(name, name);
    return name;
  }

  /** Distinct names pooled. */
  get size(): number {
    return this.#names.size;
  }
}

/** The process-wide pool of subscribed resource names (the ADS handlers'). */
export const subscribedNames = new NamePool();
