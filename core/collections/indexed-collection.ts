/**
 * A keyed collection folded from changes into immutable snapshots with secondary indexes.
 *
 * `apply` takes a batch of upserts/deletes and returns a new snapshot; earlier snapshots stay valid
 * and unchanged (copy-on-write: the item map is copied, and only the index buckets a change touched).
 * The result names the keys it touched, so later stages recompute only those.
 */

/** One change to a collection: an upsert when `value` is given, a delete otherwise. */
export interface CollectionUpdate<T> {
  readonly key: string;
  readonly value?: T;
}

/** Index functions: index name -> the index values an item is filed under. */
export type IndexFunctions<T> = Readonly<Record<string, (item: T) => readonly string[]>>;

/** An immutable view of a collection at one version. */
export interface CollectionSnapshot<T> {
  /** Increases by one with every applied batch that changed something. */
  readonly version: number;
  readonly size: number;
  get(key: string): T | undefined;
  has(key: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<T>;
  entries(): IterableIterator<[string, T]>;
  /** Items filed under `value` in index `index`, in key order. Unknown index names throw. */
  byIndex(index: string, value: string): readonly T[];
  /** The values an index holds (e.g. every host VirtualServices name). */
  indexValues(index: string): IterableIterator<string>;
}

/** The result of applying a batch. */
export interface CollectionChange<T> {
  readonly snapshot: CollectionSnapshot<T>;
  readonly previous: CollectionSnapshot<T>;
  /** Keys whose value was added, replaced or removed (no-op upserts of an identical value excluded). */
  readonly touched: ReadonlySet<string>;
}

class Snapshot<T> implements CollectionSnapshot<T> {
  constructor(
    readonly version: number,
    readonly items: ReadonlyMap<string, T>,
    readonly indexes: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>,
  ) {
    Object.freeze(this);
  }
  get size(): number {
    return this.items.size;
  }
  get(key: string): T | undefined {
    return this.items.get(key);
  }
  has(key: string): boolean {
    return this.items.has(key);
  }
  keys(): IterableIterator<string> {
    return this.items.keys();
  }
  values(): IterableIterator<T> {
    return this.items.values();
  }
  entries(): IterableIterator<[string, T]> {
    return this.items.entries();
  }
  byIndex(index: string, value: string): readonly T[] {
    const idx = this.indexes.get(index);
    if (!idx) throw new Error(`collection has no index "${index}"`);
    return (idx.get(value) ?? []).map((k) => this.items.get(k)!);
  }
  indexValues(index: string): IterableIterator<string> {
    const idx = this.indexes.get(index);
    if (!idx) throw new Error(`collection has no index "${index}"`);
    return idx.keys();
  }
}

/**
 * A collection with named indexes. `equals` decides whether an upsert changes anything
 * (default: the same object, or the same JSON).
 */
export class IndexedCollection<T> {
  #current: Snapshot<T>;
  readonly #indexFns: IndexFunctions<T>;
  readonly #equals: (a: T, b: T) => boolean;

  constructor(indexes: IndexFunctions<T> = {}, equals?: (a: T, b: T) => boolean) {
    this.#indexFns = indexes;
    this.#equals = equals ?? ((a, b) => a === b || JSON.stringify(a) === JSON.stringify(b));
    const idx = new Map<string, ReadonlyMap<string, readonly string[]>>();
    for (const name of Object.keys(indexes)) idx.set(name, new Map());
    this.#current = new Snapshot<T>(0, new Map(), idx);
  }

  /** The latest snapshot. */
  get snapshot(): CollectionSnapshot<T> {
    return this.#current;
  }

  /** Applies a batch (later updates of the same key win) and returns the new snapshot and touched keys. */
  apply(updates: Iterable<CollectionUpdate<T>>): CollectionChange<T> {
    const prev = this.#current;
    const items = new Map(prev.items);
    const touched = new Set<string>();
    const old = new Map<string, T | undefined>();
    for (const u of updates) {
      const before = items.get(u.key);
      if (!old.has(u.key)) old.set(u.key, prev.items.get(u.key));
      if (u.value === undefined) {
        if (before !== undefined) items.delete(u.key);
      } else {
        items.set(u.key, u.value);
      }
    }
    for (const [key, was] of old) {
      const now = items.get(key);
      if (was === undefined && now === undefined) continue;
      if (was !== undefined && now !== undefined && this.#equals(was, now)) {
        items.set(key, was); // keep the old object: identical content
        continue;
      }
      touched.add(key);
    }
    if (touched.size === 0) return { snapshot: prev, previous: prev, touched };
    const indexes = new Map<string, ReadonlyMap<string, readonly string[]>>();
    for (const [name, fn] of Object.entries(this.#indexFns)) {
      const idx = new Map(prev.indexes.get(name));
      const changedBuckets = new Map<string, Set<string>>();
      const bucket = (v: string): Set<string> => {
        let b = changedBuckets.get(v);
        if (!b) changedBuckets.set(v, (b = new Set(idx.get(v) ?? [])));
        return b;
      };
      for (const key of touched) {
        const was = old.get(key);
        const now = items.get(key);
        if (was !== undefined) for (const v of fn(was)) bucket(v).delete(key);
        if (now !== undefined) for (const v of fn(now)) bucket(v).add(key);
      }
      for (const [v, keys] of changedBuckets) {
        if (keys.size === 0) idx.delete(v);
        else idx.set(v, Object.freeze([...keys].sort()));
      }
      indexes.set(name, idx);
    }
    this.#current = new Snapshot(prev.version + 1, items, indexes);
    return { snapshot: this.#current, previous: prev, touched };
  }
}
