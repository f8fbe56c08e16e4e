/**
 * The per-file results of the `--configDir` scans (see file-config-scan.ts) and the configs they
 * define, kept up to date file by file, so that a change to one file costs that file's documents, not
 * the whole directory:
 *
 * - Each key's definitions are kept in file order; the first one is served, a later one is a duplicate.
 * - A re-read document whose text did not change keeps its config object, and a definition that is the
 *   same (key, document, object) as before is not touched at all.
 * - Every key whose served config changed is recorded with the config served before; {@link ScanCache.result}
 *   turns only those keys into events, and rechecks duplicates only in the files whose definitions
 *   changed. Nothing in it walks every file or every key (the periodic rescan stats every file, but a
 *   file whose stamp is unchanged is neither read nor diffed).
 */
import { relative } from 'node:path';
import type { Config, ConfigEvent } from '../core/index.js';
import { rejectDocument, versionOf, type FileConfig, type FileEntry, type RejectedConfig } from './file-config-scan.js';

/** The outcome of one scan. */
export interface ScanResult {
  /**
   * Every served config by key: the cache's own map (a read-only view, not a copy), so it follows
   * later scans of the same cache.
   */
  readonly configs: ReadonlyMap<string, Config>;
  /** The changes since the cache's previous result (all adds on the first), in key order. */
  readonly events: readonly ConfigEvent[];
  /** Every current rejection, in file order (a file's own, then its duplicates). */
  readonly rejected: readonly RejectedConfig[];
  /** Every directory of the tree (absolute, the root first): what a watcher must cover. */
  readonly dirs: readonly string[];
}

/**
 * What a cache did: files read, keys diffed, definitions checked for duplicates. For tests and
 * debugging: the proof that the cost of a change follows the change.
 */
export interface ScanWork {
  /** Files read and parsed (a file whose stamp is unchanged is not). */
  readonly filesRead: number;
  /** Config keys the diff looked at (those whose served config may have changed). */
  readonly keysDiffed: number;
  /** Valid definitions checked for duplicates when the rejections were rebuilt. */
  readonly definitionsChecked: number;
}

/** One definition of a key: where, and the config. */
interface Definition {
  readonly path: string;
  readonly document: number;
  readonly config: Config;
}

/** Orders definitions of one key: file path, then document. */
function before(a: { path: string; document: number }, b: { path: string; document: number }): boolean {
  return a.path < b.path || (a.path === b.path && a.document < b.document);
}

/**
 * The event that turns `a` into `b` (either may be missing), or undefined when they are the same
 * object or have the same content.
 */
export function configEvent(a: Config | undefined, b: Config | undefined): ConfigEvent | undefined {
  if (a === b) return undefined;
  const c = (b ?? a)!;
  const key = { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name };
  if (a && !b) return { type: 'deleted', key, object: a, resourceVersion: versionOf(a) };
  if (!a && b) return { type: 'added', key, object: b, resourceVersion: versionOf(b) };
  // NOTE: a document whose text changed but not its content (a comment, the layout) is no change.
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  return { type: 'updated', key, object: b!, resourceVersion: versionOf(b!) };
}

/** A new entry whose configs reuse the objects of `old` for documents whose text is unchanged. */
function reuseUnchanged(old: FileEntry | undefined, next: FileEntry): FileEntry {
  if (!old) return next;
  const byHash = new Map<string, FileConfig>();
  for (const fc of [...old.configs, ...old.held]) if (fc.hash !== undefined) byHash.set(`${fc.key}\n${fc.hash}`, fc);
  if (byHash.size === 0) return next;
  let reused = false;
  const configs = next.configs.map((fc) => {
    const same = fc.hash === undefined ? undefined : byHash.get(`${fc.key}\n${fc.hash}`);
    if (!same || same.config === fc.config) return fc;
    reused = true;
    return { ...fc, config: same.config };
  });
  return reused ? { ...next, configs } : next;
}

/** See the file comment. */
export class ScanCache {
  readonly #files = new Map<string, FileEntry>();
  /** Every definition of each key, in file order; the first is the one in `#configs`. */
  readonly #owners = new Map<string, Definition[]>();
  readonly #configs = new Map<string, Config>();
  /** Keys whose served config changed since the last result, with the config served before (undefined: none). */
  readonly #changed = new Map<string, Config | undefined>();
  /** Files whose rejections must be rebuilt at the next result. */
  readonly #recheck = new Set<string>();
  /** Each file's current rejections, for the files that have any. */
  readonly #rejected = new Map<string, readonly RejectedConfig[]>();
  #work = { filesRead: 0, keysDiffed: 0, definitionsChecked: 0 };

  get(path: string): FileEntry | undefined {
    return this.#files.get(path);
  }

  paths(): IterableIterator<string> {
    return this.#files.keys();
  }

  /** What this cache did since it was made (counters only grow). */
  get work(): ScanWork {
    return { ...this.#work };
  }

  /**
   * Replaces (or, with undefined, removes) one file's results. Its documents whose text is unchanged
   * keep their config objects; only the definitions that differ are moved.
   */
  set(path: string, next: FileEntry | undefined): void {
    const old = this.#files.get(path);
    const entry = next && reuseUnchanged(old, next);
    this.#recheck.add(path);
    if (entry) {
      this.#work.filesRead++;
      this.#files.set(path, entry);
    } else this.#files.delete(path);
    const id = (key: string, document: number): string => `${key}\n${document}`;
    const was = new Map<string, FileConfig>();
    for (const fc of [...(old?.configs ?? []), ...(old?.held ?? [])]) was.set(id(fc.key, fc.document), fc);
    const now: FileConfig[] = [];
    for (const fc of [...(entry?.configs ?? []), ...(entry?.held ?? [])]) {
      const k = id(fc.key, fc.document);
      if (was.get(k)?.config === fc.config) was.delete(k);
      else now.push(fc);
    }
    for (const fc of was.values()) {
      const list = this.#owners.get(fc.key)!;
      const i = list.findIndex((o) => o.path === path && o.document === fc.document);
      if (i >= 0) list.splice(i, 1);
      this.#publish(fc.key, list);
    }
    for (const fc of now) {
      let list = this.#owners.get(fc.key);
      if (!list) this.#owners.set(fc.key, (list = []));
      const def = { path, document: fc.document, config: fc.config };
      let i = list.length;
      while (i > 0 && before(def, list[i - 1]!)) i--;
      list.splice(i, 0, def);
      this.#publish(fc.key, list);
    }
  }

  /** Serves the first definition of `key`, records the change, and marks the files that define it for a duplicate check. */
  #publish(key: string, list: readonly Definition[]): void {
    for (const o of list) this.#recheck.add(o.path);
    const prev = this.#configs.get(key);
    const next = list[0]?.config;
    if (list.length === 0) this.#owners.delete(key);
    if (prev === next) return;
    if (!this.#changed.has(key)) this.#changed.set(key, prev);
    if (next === undefined) this.#configs.delete(key);
    else this.#configs.set(key, next);
  }

  /** Whether `key` is defined by a valid document (not only a held last-good version). */
  definedValid(key: string): boolean {
    for (const o of this.#owners.get(key) ?? []) {
      if (this.#files.get(o.path)?.configs.some((fc) => fc.key === key && fc.document === o.document)) return true;
    }
    return false;
  }

  /**
   * The configs, the events since the previous result (only the keys recorded as changed are looked
   * at) and every rejection in file order (only the files whose definitions changed are rechecked).
   */
  result(dir: string, dirs: readonly string[]): ScanResult {
    for (const path of this.#recheck) this.#rebuildRejections(dir, path);
    this.#recheck.clear();
    const events: ConfigEvent[] = [];
    this.#work.keysDiffed += this.#changed.size;
    for (const key of [...this.#changed.keys()].sort()) {
      const e = configEvent(this.#changed.get(key), this.#configs.get(key));
      if (e) events.push(e);
    }
    this.#changed.clear();
    const rejected = [...this.#rejected.keys()].sort().flatMap((p) => this.#rejected.get(p)!);
    return { configs: this.#configs, events, rejected, dirs };
  }

  /** A file's rejections: its own, then each valid document whose key an earlier document defines. */
  #rebuildRejections(dir: string, path: string): void {
    const entry = this.#files.get(path);
    const rejected: RejectedConfig[] = [...(entry?.rejected ?? [])];
    for (const { config: c, key, document } of entry?.configs ?? []) {
      this.#work.definitionsChecked++;
      const first = this.#owners.get(key)![0]!;
      if (first.path === path && first.document === document) continue;
      const file = relative(dir, path) || path;
      const id = { kind: c.kind, name: c.metadata.name, namespace: c.metadata.namespace };
      rejected.push(rejectDocument(file, document, id, c.metadata.namespace, [{ path: 'metadata.name', message: `duplicate: ${key} is already defined in an earlier document` }], versionOf(c)));
    }
    if (rejected.length === 0) this.#rejected.delete(path);
    else this.#rejected.set(path, rejected);
  }
}
