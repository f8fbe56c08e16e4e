/**
 * What a stream holds per type, as immutable tables shared by every stream in the same state: the names a
 * proxy subscribed to, and the resources it was sent (delta: with the version it holds; SotW: names only).
 *
 * NOTE: these were a Map and a Set per stream and type: at S=200 services and N=400 sidecars, 3,200 tables
 * of 400-600 entries (31 MB of a 100 MB live heap), growing with services x proxies. Proxies of one scope
 * subscribe to the same names and are sent the same versions, so their tables are equal. A change returns a
 * new table, and every stream that applies the same change to the same table gets the same new one (a small
 * transition cache per table, keyed by a digest of the change); a table reached along another path with the
 * same content (a proxy that connected later) is found by its content hash and, after a full comparison, used
 * instead. A stream whose history is its own pays a copy per change, as a per-stream table paid its updates.
 */
import { createHash } from 'node:crypto';

/** One entry a change sets: a name and its version ('' in a table of names). */
export type TableEntry = readonly [name: string, version: string];

/** Transitions a table remembers (the newest; dead ones are dropped first). */
const MAX_TRANSITIONS = 8;
/** A change digest shorter than this is its own key; a longer one is hashed. */
const INLINE_KEY = 256;

/** Two 32-bit FNV-1a hashes (different offsets) of one entry; a table's content hash XORs them. */
function entryHash(name: string, version: string): readonly [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const mix = (s: string): void => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
  };
  mix(name);
  a = Math.imul(a ^ 0xff, 0x01000193);
  b = Math.imul(b ^ 0xff, 0x01000193);
  mix(version);
  return [a >>> 0, b >>> 0];
}

/** Tables by content (hash and size), weakly: a table no stream holds any more is collected. */
const byContent = new Map<string, WeakRef<SharedTable>>();
const forget = new FinalizationRegistry<string>((key) => {
  const ref = byContent.get(key);
  if (ref && ref.deref() === undefined) byContent.delete(key);
});

let empty: SharedTable | undefined;

/** An immutable name -> version table; see the file comment. Iterates its names. */
export class SharedTable implements Iterable<string> {
  /** The empty table (every stream starts from it). */
  static get EMPTY(): SharedTable {
    return (empty ??= new SharedTable(new Map(), 0, 0));
  }

  readonly #map: ReadonlyMap<string, string>;
  readonly #h1: number;
  readonly #h2: number;
  readonly #next = new Map<string, WeakRef<SharedTable>>();
  #sorted: readonly string[] | undefined;

  private constructor(map: ReadonlyMap<string, string>, h1: number, h2: number) {
    this.#map = map;
    this.#h1 = h1;
    this.#h2 = h2;
  }

  /**
   * The table of exactly `names` (version ''), reached from this table by what differs: proxies that move
   * between the same two name lists share the transition, and only the difference is keyed and hashed.
   */
  withNames(names: Iterable<string>): SharedTable {
    const want = names instanceof Set ? (names as ReadonlySet<string>) : new Set(names);
    const set: TableEntry[] = [];
    let kept = 0;
    for (const name of want) {
      const version = this.#map.get(name);
      if (version !== undefined) kept++;
      if (version !== '') set.push([name, '']);
    }
    const removed: string[] = [];
    // NOTE: when every entry of this table is among the names, nothing leaves (the usual step: a name or two added).
    if (kept < this.#map.size) for (const name of this.#map.keys()) if (!want.has(name)) removed.push(name);
    return this.with(set, removed);
  }

  get size(): number {
    return this.#map.size;
  }

  get(name: string): string | undefined {
    return this.#map.get(name);
  }

  has(name: string): boolean {
    return this.#map.has(name);
  }

  keys(): IterableIterator<string> {
    return this.#map.keys();
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.#map.keys();
  }

  /** The names in sorted order, computed once per table. */
  sorted(): readonly string[] {
    return (this.#sorted ??= [...this.#map.keys()].sort());
  }

  /**
   * This table with `set` applied and then `removed` deleted (a name in both is removed). Returns this table
   * when nothing changes, and the same object to every caller that applies the same change to this table.
   */
  with(set: Iterable<TableEntry>, removed: Iterable<string>): SharedTable {
    // NOTE: only what changes counts, so equal tables reached by different-looking changes meet again.
    const sets = new Map<string, string>();
    for (const [name, version] of set) if (this.#map.get(name) !== version || sets.has(name)) sets.set(name, version);
    const drops = new Set<string>();
    for (const name of removed) {
      sets.delete(name);
      if (this.#map.has(name)) drops.add(name);
    }
    if (sets.size === 0 && drops.size === 0) return this;
    const key = changeKey(sets, drops);
    const known = this.#next.get(key)?.deref();
    if (known) return known;
    const next = this.#derive(sets, drops);
    this.#remember(key, next);
    return next;
  }

  /** The table with the change applied: one of equal content if one is alive, else a new one. */
  #derive(sets: ReadonlyMap<string, string>, drops: ReadonlySet<string>): SharedTable {
    let h1 = this.#h1;
    let h2 = this.#h2;
    let size = this.#map.size;
    const fold = (name: string, version: string): void => {
      const [a, b] = entryHash(name, version);
      h1 ^= a;
      h2 ^= b;
    };
    for (const [name, version] of sets) {
      const old = this.#map.get(name);
      if (old === undefined) size++;
      else fold(name, old);
      fold(name, version);
    }
    for (const name of drops) {
      fold(name, this.#map.get(name)!);
      size--;
    }
    if (size === 0) return SharedTable.EMPTY;
    const contentKey = `${h1 >>> 0}:${h2 >>> 0}:${size}`;
    const twin = byContent.get(contentKey)?.deref();
    if (twin && twin.#equalsChanged(this, sets, drops)) return twin;
    const map = new Map(this.#map);
    for (const [name, version] of sets) map.set(name, version);
    for (const name of drops) map.delete(name);
    const table = new SharedTable(map, h1 >>> 0, h2 >>> 0);
    byContent.set(contentKey, new WeakRef(table));
    forget.register(table, contentKey);
    return table;
  }

  /** Whether this table equals `base` with `sets` applied and `drops` deleted (sizes already agree). */
  #equalsChanged(base: SharedTable, sets: ReadonlyMap<string, string>, drops: ReadonlySet<string>): boolean {
    for (const [name, version] of sets) if (this.#map.get(name) !== version) return false;
    for (const name of drops) if (this.#map.has(name)) return false;
    for (const [name, version] of base.#map) {
      if (sets.has(name) || drops.has(name)) continue;
      if (this.#map.get(name) !== version) return false;
    }
    return true;
  }

  #remember(key: string, next: SharedTable): void {
    if (this.#next.size >= MAX_TRANSITIONS) {
      for (const [k, ref] of this.#next) if (ref.deref() === undefined) this.#next.delete(k);
      if (this.#next.size >= MAX_TRANSITIONS) this.#next.delete(this.#next.keys().next().value!);
    }
    this.#next.set(key, new WeakRef(next));
  }
}

/** A key naming a change exactly: its entries in order, then its removals (hashed when long). */
function changeKey(sets: ReadonlyMap<string, string>, drops: ReadonlySet<string>): string {
  // NOTE: every string is length-prefixed: names come from proxies, and no name may make two changes share a key.
  const parts: string[] = [];
  for (const [name, version] of sets) parts.push(`${name.length}:${name}${version.length}:${version}`);
  parts.push(`/${drops.size}/`);
  for (const name of drops) parts.push(`${name.length}:${name}`);
  const text = parts.join('');
  return text.length < INLINE_KEY ? text : createHash('sha256').update(text).digest('base64');
}
