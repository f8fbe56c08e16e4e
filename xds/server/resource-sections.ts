/**
 * Resource sections shared by the responses that send the same resources.
 *
 * A full push sends most proxies of a scope the same resources: at S=200/N=400 over SotW, each of 400 sidecars
 * gets the same ~800 KB of clusters. Laying them out behind each response's header was one copy per proxy (~20 %
 * of the main thread in that push, profiled: copying bodies, wrapping each in an Any, fresh frame memory). A
 * section is laid out once for a sequence of resource bodies and sent as it is by every response with the same
 * bodies in the same order (framed-send.ts writes it without copying).
 *
 * Sequences are recognised by their bodies' identity, not their bytes: the generators hand out one Uint8Array per
 * resource and snapshot (the cache's), so equal sequences are the same objects, and a rebuilt resource is a new
 * object. A lookup costs a WeakMap read per body and, on a hit, a comparison of the two lists.
 *
 * Sections are kept while in use: one not used for `idleMs` is dropped (a push's responses go out within it), and
 * all of them within a byte budget. A dropped section's memory is freed once its last write is done (shared-bytes.ts).
 */
import { claim, retire, share } from './shared-bytes.js';
import { layoutDeltaResourceSection, layoutResourceSection, resourcesSize, type DeltaResourceFields, type ResourceSection } from './wire.js';

/** Sections smaller than this go inline: sharing them saves less than the extra writes cost. */
export const SHARED_SECTION_MIN_BYTES = 32 * 1024;
/** Bytes of sections kept for reuse (the least recently used go first). */
const DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024;
/** A section not used for this long is dropped. */
const DEFAULT_IDLE_MS = 1000;

interface Entry {
  readonly bodies: readonly Uint8Array[];
  /** A delta section's resources (their names and versions are in its bytes too). */
  readonly resources?: readonly DeltaResourceFields[];
  readonly section: ResourceSection;
  usedAt: number;
}

/** Options of ResourceSections; the defaults suit meshd. */
export interface ResourceSectionsOptions {
  readonly budgetBytes?: number;
  readonly minBytes?: number;
  readonly idleMs?: number;
  /** Milliseconds of a monotonic clock. */
  readonly now?: () => number;
}

/** Laid-out sections of recent body sequences, within a byte budget. */
export class ResourceSections {
  readonly #ids = new WeakMap<Uint8Array, number>();
  #nextId = 1;
  /** By type URL, count and hash of the bodies' ids; in order of last use. */
  readonly #entries = new Map<string, Entry>();
  #held = 0;
  #sweeper: NodeJS.Timeout | undefined;
  readonly #budget: number;
  readonly #min: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(opts: ResourceSectionsOptions = {}) {
    this.#budget = opts.budgetBytes ?? DEFAULT_BUDGET_BYTES;
    this.#min = opts.minBytes ?? SHARED_SECTION_MIN_BYTES;
    this.#idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** Bytes of sections held now. */
  get heldBytes(): number {
    return this.#held;
  }

  /**
   * The section of `bodies` as resources of `typeUrl` in a SotW response, for one response (claimed for it: see
   * shared-bytes.ts): one laid out before for the same bodies in the same order, else laid out now and kept.
   * Undefined when the section would be smaller than the minimum (lay it out inline).
   */
  section(typeUrl: string, bodies: readonly Uint8Array[]): ResourceSection | undefined {
    const size = resourcesSize(Buffer.byteLength(typeUrl), bodies);
    if (size < this.#min) return undefined;
    return this.#find(`sotw\n${typeUrl}`, bodies, undefined, () => layoutResourceSection(typeUrl, bodies, size));
  }

  /** As `section`, for the resources of a delta response (the same bodies under the same names and versions). */
  deltaSection(typeUrl: string, resources: readonly DeltaResourceFields[]): ResourceSection | undefined {
    let size = 0;
    for (const r of resources) size += r.body.length + r.name.length + r.version.length;
    if (size < this.#min) return undefined;
    return this.#find(`delta\n${typeUrl}`, resources.map((r) => r.body), resources, () => layoutDeltaResourceSection(typeUrl, resources));
  }

  #find(kind: string, bodies: readonly Uint8Array[], resources: readonly DeltaResourceFields[] | undefined, layout: () => ResourceSection): ResourceSection {
    const now = this.#now();
    const key = `${kind}\n${bodies.length}\n${this.#hash(bodies)}`;
    const found = this.#entries.get(key);
    if (found && sameBodies(found.bodies, bodies) && sameNamesAndVersions(found.resources, resources)) {
      // NOTE: re-inserted: a Map iterates in insertion order, so the first entry is the least recently used.
      this.#entries.delete(key);
      this.#entries.set(key, found);
      found.usedAt = now;
      claim(found.section.bytes);
      return found.section;
    }
    const section = layout();
    const size = section.bytes.length;
    share(section.bytes);
    claim(section.bytes);
    if (found) this.#drop(key, found);
    if (size > this.#budget) retire(section.bytes);
    else {
      this.#entries.set(key, { bodies, ...(resources ? { resources } : {}), section, usedAt: now });
      this.#held += size;
      for (const [k, e] of this.#entries) {
        if (this.#held <= this.#budget) break;
        this.#drop(k, e);
      }
      this.#armSweeper();
    }
    return section;
  }

  /** Drops the sections not used for `idleMs` before `now`. */
  sweep(now = this.#now()): void {
    for (const [k, e] of this.#entries) {
      // NOTE: in order of last use: the first one used recently enough ends the sweep.
      if (now - e.usedAt < this.#idleMs) break;
      this.#drop(k, e);
    }
  }

  /** Sweeps every `idleMs` while anything is held (the timer does not keep the process alive). */
  #armSweeper(): void {
    if (this.#sweeper) return;
    this.#sweeper = setTimeout(() => {
      this.#sweeper = undefined;
      this.sweep();
      if (this.#entries.size > 0) this.#armSweeper();
    }, this.#idleMs);
    this.#sweeper.unref();
  }

  #drop(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#held -= e.section.bytes.length;
    retire(e.section.bytes);
  }

  /** An order-sensitive 32-bit hash of the bodies' identities (FNV-1a over their ids). */
  #hash(bodies: readonly Uint8Array[]): number {
    let h = 0x811c9dc5;
    for (const b of bodies) {
      let id = this.#ids.get(b);
      if (id === undefined) {
        id = this.#nextId++;
        this.#ids.set(b, id);
      }
      h = Math.imul(h ^ id, 0x01000193);
    }
    return h >>> 0;
  }
}

function sameBodies(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameNamesAndVersions(a: readonly DeltaResourceFields[] | undefined, b: readonly DeltaResourceFields[] | undefined): boolean {
  if (!a || !b) return a === b;
  for (let i = 0; i < a.length; i++) if (a[i]!.name !== b[i]!.name || a[i]!.version !== b[i]!.version) return false;
  return true;
}
