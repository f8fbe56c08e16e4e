/** The identity of one config object, used at every seam instead of a parsed string. */

/** Identifies one config object: `kind/namespace/name` (namespace empty for cluster-scoped). */
export interface ConfigKey {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The string form of a ConfigKey, used as a map key: `kind/namespace/name`. */
export function configKeyString(k: ConfigKey): string {
  return `${k.kind}/${k.namespace}/${k.name}`;
}


/**
 * An immutable set of ConfigKeys compared by value (kind, namespace, name), iterated in insertion order.
 * What a PushRequest names as changed: typed keys at the seams, never strings to parse.
 */
export class ConfigKeySet implements Iterable<ConfigKey> {
  /** The empty set. */
  static readonly EMPTY = new ConfigKeySet();
  readonly #keys: ReadonlyMap<string, ConfigKey>;

  constructor(keys: Iterable<ConfigKey> = []) {
    const m = new Map<string, ConfigKey>();
    for (const k of keys) {
      const s = configKeyString(k);
      if (!m.has(s)) m.set(s, Object.freeze({ kind: k.kind, namespace: k.namespace, name: k.name }));
    }
    this.#keys = m;
  }

  get size(): number {
    return this.#keys.size;
  }

  has(key: ConfigKey): boolean {
    return this.#keys.has(configKeyString(key));
  }

  [Symbol.iterator](): Iterator<ConfigKey> {
    return this.#keys.values();
  }

  /** The keys in string form (`kind/namespace/name`), in insertion order: for logs, debug views and reports. */
  strings(): string[] {
    return [...this.#keys.keys()];
  }

  /** The keys of both sets (this one's first). */
  union(other: ConfigKeySet): ConfigKeySet {
    if (other.size === 0) return this;
    if (this.size === 0) return other;
    return new ConfigKeySet([...this, ...other]);
  }
}
