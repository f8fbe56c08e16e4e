/**
 * An immutable string-keyed map whose updates copy only what they touch, so a snapshot of a large
 * collection is one pointer and a one-key change costs a few small copies, not the whole map.
 *
 * Up to {@link FLAT_MAX} entries it is one flat `Map`, copied on write. Above that it is a two-level
 * trie of 64 x 64 leaves chosen by a hash of the key (FNV-1a): a change copies the root (64 slots),
 * one branch (64 slots) and the leaves it touches (about size/4096 entries each).
 *
 * Iteration order is deterministic for a given history of updates (insertion order while flat, hash
 * order in the trie); callers that need an order sort.
 */

/** Entries a flat map holds before it becomes a trie (it becomes flat again below half of it). */
export const FLAT_MAX = 256;
const FANOUT = 64;

type Leaf<V> = ReadonlyMap<string, V>;
type Branch<V> = readonly (Leaf<V> | undefined)[];
type Root<V> = readonly (Branch<V> | undefined)[];

function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Where a key lives in the trie: branch (top 6 bits of the hash) and leaf (the next 6). */
function slot(key: string): number {
  return hash(key) >>> 20;
}

/** One change: an upsert, or a delete when the value is undefined. */
export type MapUpdate<V> = readonly [key: string, value: V | undefined];

/** See the file comment. Instances never change; every update returns a new map. */
export class PersistentMap<V> implements Iterable<[string, V]> {
  static readonly #EMPTY = new PersistentMap<never>(0, new Map<string, never>(), undefined);

  /** The empty map. */
  static empty<V>(): PersistentMap<V> {
    return PersistentMap.#EMPTY as PersistentMap<V>;
  }

  /** A map of the given entries (later duplicates win). */
  static of<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    return PersistentMap.empty<V>().withUpdates(entries);
  }

  readonly size: number;
  readonly #flat: Leaf<V> | undefined;
  readonly #root: Root<V> | undefined;

  private constructor(size: number, flat: Leaf<V> | undefined, root: Root<V> | undefined) {
    this.size = size;
    this.#flat = flat;
    this.#root = root;
    Object.freeze(this);
  }

  get(key: string): V | undefined {
    if (this.#flat) return this.#flat.get(key);
    const s = slot(key);
    return this.#root![s >>> 6]?.[s & 63]?.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): IterableIterator<[string, V]> {
    if (this.#flat) {
      yield* this.#flat.entries();
      return;
    }
    for (const branch of this.#root!) {
      if (!branch) continue;
      for (const leaf of branch) if (leaf) yield* leaf.entries();
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /** The map with `key` set to `value`. */
  set(key: string, value: V): PersistentMap<V> {
    return this.withUpdates([[key, value]]);
  }

  /** The map without `key`. */
  delete(key: string): PersistentMap<V> {
    return this.withUpdates([[key, undefined]]);
  }

  /**
   * The map with a batch of changes applied in order (an undefined value deletes). Returns this same
   * map when no change altered anything (values compared by identity).
   */
  withUpdates(updates: Iterable<MapUpdate<V>>): PersistentMap<V> {
    const list = Array.isArray(updates) ? (updates as readonly MapUpdate<V>[]) : [...updates];
    if (list.length === 0) return this;
    if (this.#flat) {
      let next: Map<string, V> | undefined;
      for (const [k, v] of list) {
        const cur = (next ?? this.#flat).get(k);
        if (cur === v) continue;
        next ??= new Map(this.#flat);
        if (v === undefined) next.delete(k);
        else next.set(k, v);
      }
      if (!next) return this;
      return next.size > FLAT_MAX ? PersistentMap.#trieOf(next) : new PersistentMap(next.size, next, undefined);
    }
    const root = this.#root!;
    const branches = new Map<number, (Leaf<V> | undefined)[]>();
    const leaves = new Map<number, Map<string, V>>();
    let size = this.size;
    for (const [k, v] of list) {
      const s = slot(k);
      let leaf = leaves.get(s);
      const cur = (leaf ?? root[s >>> 6]?.[s & 63])?.get(k);
      if (cur === v) continue;
      if (!leaf) {
        leaf = new Map(root[s >>> 6]?.[s & 63] ?? []);
        leaves.set(s, leaf);
        let branch = branches.get(s >>> 6);
        if (!branch) branches.set(s >>> 6, (branch = root[s >>> 6]?.slice() ?? new Array<Leaf<V> | undefined>(FANOUT).fill(undefined)));
        branch[s & 63] = leaf;
      }
      if (v === undefined) {
        leaf.delete(k);
        size -= 1;
      } else {
        if (cur === undefined) size += 1;
        leaf.set(k, v);
      }
    }
    if (leaves.size === 0) return this;
    for (const [s, leaf] of leaves) if (leaf.size === 0) branches.get(s >>> 6)![s & 63] = undefined;
    const nextRoot = root.slice();
    for (const [b, branch] of branches) nextRoot[b] = branch.some((l) => l !== undefined) ? branch : undefined;
    const next = new PersistentMap<V>(size, undefined, nextRoot);
    return size < FLAT_MAX / 2 ? new PersistentMap(size, new Map(next.entries()), undefined) : next;
  }

  static #trieOf<V>(entries: ReadonlyMap<string, V>): PersistentMap<V> {
    const root: ((Map<string, V> | undefined)[] | undefined)[] = new Array(FANOUT).fill(undefined);
    for (const [k, v] of entries) {
      const s = slot(k);
      const branch = (root[s >>> 6] ??= new Array<Map<string, V> | undefined>(FANOUT).fill(undefined));
      (branch[s & 63] ??= new Map()).set(k, v);
    }
    return new PersistentMap(entries.size, undefined, root);
  }
}
