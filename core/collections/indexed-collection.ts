/**
 * A keyed collection folded from changes into immutable snapshots with secondary indexes.
 *
 * `apply` takes a batch of upserts/deletes and returns a new snapshot; earlier snapshots stay valid
 * and unchanged. Items and index buckets are persistent maps (see persistent-map.ts), so a batch costs
 * what it touches: a one-key change copies a few small trie nodes, never the whole collection, and
 * taking a snapshot is one pointer. The result names the keys it touched, so later stages recompute
 * only those.
 */
import { PersistentMap } from './persistent-map.js';

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

type Bucket = PersistentMap<true>;

// NOTE: an index bucket is sorted when it is read, once per bucket version (buckets never change).
const sortedKeys = new WeakMap<Bucket, readonly string[]>();
function keysInOrder(bucket: Bucket): readonly string[] {
  let keys = sortedKeys.get(bucket);
  if (!keys) sortedKeys.set(bucket, (keys = Object.freeze([...bucket.keys()].sort())));
  return keys;
}

class Snapshot<T> implements CollectionSnapshot<T> {
  constructor(
    readonly version: number,
    readonly items: PersistentMap<T>,
    readonly indexes: ReadonlyMap<string, PersistentMap<Bucket>>,
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
    const bucket = idx.get(value);
    return bucket ? keysInOrder(bucket).map((k) => this.items.get(k)!) : [];
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
    const idx = new Map<string, PersistentMap<Bucket>>();
    for (const name of Object.keys(indexes)) idx.set(name, PersistentMap.empty());
    this.#current = new Snapshot<T>(0, PersistentMap.empty(), idx);
  }

  /** The latest snapshot. */
  get snapshot(): CollectionSnapshot<T> {
    return this.#current;
  }

  /** Applies a batch (later updates of the same key win) and returns the new snapshot and touched keys. */
  apply(updates: Iterable<CollectionUpdate<T>>): CollectionChange<T> {
    const prev = this.#current;
    const last = new Map<string, T | undefined>();
    for (const u of updates) last.set(u.key, u.value);
    const touched = new Set<string>();
    const itemUpdates: [string, T | undefined][] = [];
    for (const [key, now] of last) {
      const was = prev.items.get(key);
      if (was === undefined && now === undefined) continue;
      // NOTE: an identical upsert keeps the old object, so readers holding it see no change.
      if (was !== undefined && now !== undefined && this.#equals(was, now)) continue;
      touched.add(key);
      itemUpdates.push([key, now]);
    }
    if (touched.size === 0) return { snapshot: prev, previous: prev, touched };
    const indexes = new Map<string, PersistentMap<Bucket>>();
    for (const [name, fn] of Object.entries(this.#indexFns)) {
      const idx = prev.indexes.get(name)!;
      const changes = new Map<string, [string, true | undefined][]>();
      const change = (v: string, key: string, value: true | undefined): void => {
        let l = changes.get(v);
        if (!l) changes.set(v, (l = []));
        l.push([key, value]);
      };
      for (const [key, now] of itemUpdates) {
        const was = prev.items.get(key);
        const before = was !== undefined ? fn(was) : [];
        const after = now !== undefined ? fn(now) : [];
        // NOTE: only moves between buckets change a bucket; an update filed as before leaves them all alone.
        for (const v of before) if (!after.includes(v)) change(v, key, undefined);
        for (const v of after) if (!before.includes(v)) change(v, key, true);
      }
      const bucketUpdates: [string, Bucket | undefined][] = [];
      for (const [v, list] of changes) {
        const next = (idx.get(v) ?? PersistentMap.empty<true>()).withUpdates(list);
        bucketUpdates.push([v, next.size === 0 ? undefined : next]);
      }
      indexes.set(name, idx.withUpdates(bucketUpdates));
    }
    this.#current = new Snapshot(prev.version + 1, prev.items.withUpdates(itemUpdates), indexes);
    return { snapshot: this.#current, previous: prev, touched };
  }
}
