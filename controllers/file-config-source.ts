/**
 * The `--configDir` source: every `*.yaml` / `*.yml` file under a directory (recursively), each
 * possibly holding several documents. Every document is validated with crds/ `validateConfig`; a bad
 * document is rejected with an error naming the file, the document (1-based), its kind/name and the
 * field, and everything else is kept. Every directory of the tree is watched with its own
 * non-recursive `fs.watch` (a recursive watcher on Linux stops reporting a file once an editor replaced
 * it by rename); the files the events name are re-read after a short debounce, and the whole tree is
 * rescanned periodically for events a watcher can miss. Each scan is diffed against the last one into
 * added/updated/deleted events.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Observable } from 'rxjs';
import { parseAllDocuments } from 'yaml';
import { configKeyString, type Config, type ConfigEvent, type ModelInput } from '../core/index.js';
import { validateConfig } from '../crds/index.js';

/** One rejected document. */
export interface RejectedConfig {
  readonly file: string;
  /** 1-based position of the document in its file. */
  readonly document: number;
  /** `Kind namespace/name` as far as it could be read, else `unknown`. */
  readonly kind: string;
  readonly name: string;
  readonly errors: readonly { readonly path: string; readonly message: string }[];
  /** One line naming everything above. */
  readonly message: string;
}

/** Options of the file source. Durations in milliseconds. */
export interface FileConfigSourceOptions {
  readonly dir: string;
  /** Namespace for documents without one (`--namespace` / POD_NAMESPACE). */
  readonly defaultNamespace: string;
  /** Quiet period after a file event before rescanning (coalesces partial writes); default 20. */
  readonly fileDebounceMs?: number;
  /** Periodic rescan; default 5000; 0 disables. */
  readonly rescanIntervalMs?: number;
  /** Called for each rejected document of each scan that finds it (log it, count it). */
  readonly onRejected?: (r: RejectedConfig) => void;
  /** Called when a scan cannot read the directory at all (the previous configs are kept). */
  readonly onScanError?: (err: Error) => void;
}

/** The outcome of one scan. */
export interface ScanResult {
  readonly configs: ReadonlyMap<string, Config>;
  readonly rejected: readonly RejectedConfig[];
  /** Every directory of the tree (absolute, the root first): what a watcher must cover. */
  readonly dirs: readonly string[];
}

/** Hidden entries (editor swap files, ConfigMap `..data` dirs) are skipped, as are non-YAML files. */
function isHidden(name: string): boolean {
  return name.startsWith('.');
}

function isYaml(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

/** Every YAML file (sorted) and every directory (the root first) of the tree. */
function walkConfigDir(dir: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (d: string): void => {
    dirs.push(d);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (isHidden(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (isYaml(e.name)) files.push(p);
    }
  };
  walk(dir);
  return { files: files.sort(), dirs };
}

function describe(obj: unknown): { kind: string; name: string } {
  const o = (obj ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const kind = typeof o.kind === 'string' ? o.kind : 'unknown';
  const ns = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : '';
  const nm = typeof o.metadata?.name === 'string' ? o.metadata.name : 'unknown';
  return { kind, name: ns ? `${ns}/${nm}` : nm };
}

function reject(file: string, document: number, obj: unknown, errors: { path: string; message: string }[]): RejectedConfig {
  const { kind, name } = describe(obj);
  const detail = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
  return { file, document, kind, name, errors, message: `${file}: document ${document} (${kind} ${name}): ${detail}` };
}

/** A valid document, its config key and its 1-based position in its file. */
interface FileConfig {
  readonly config: Config;
  readonly key: string;
  readonly document: number;
}

/** One file's scan, reused while its stamp is unchanged. */
interface FileEntry {
  readonly stamp: string;
  readonly configs: readonly FileConfig[];
  readonly rejected: readonly RejectedConfig[];
}

/** Orders definitions of one key: file path, then document. */
function before(a: { path: string; document: number }, b: { path: string; document: number }): boolean {
  return a.path < b.path || (a.path === b.path && a.document < b.document);
}

/**
 * Per-file results of earlier scans, and the configs they define, kept up to date file by file: a
 * change to one file costs that file, not the whole directory. A key defined more than once is
 * taken from its first definition in file order.
 */
export class ScanCache {
  readonly #files = new Map<string, FileEntry>();
  /** Every definition of each key, in file order; the first is the one in `#configs`. */
  readonly #owners = new Map<string, { path: string; document: number; config: Config }[]>();
  readonly #configs = new Map<string, Config>();

  get(path: string): FileEntry | undefined {
    return this.#files.get(path);
  }

  paths(): IterableIterator<string> {
    return this.#files.keys();
  }

  /** Replaces (or, with undefined, removes) one file's results. */
  set(path: string, entry: FileEntry | undefined): void {
    const old = this.#files.get(path);
    for (const fc of old?.configs ?? []) {
      const list = this.#owners.get(fc.key)!;
      const i = list.findIndex((o) => o.path === path && o.document === fc.document);
      if (i >= 0) list.splice(i, 1);
      this.#publish(fc.key, list);
    }
    if (!entry) {
      this.#files.delete(path);
      return;
    }
    this.#files.set(path, entry);
    for (const fc of entry.configs) {
      let list = this.#owners.get(fc.key);
      if (!list) this.#owners.set(fc.key, (list = []));
      const def = { path, document: fc.document, config: fc.config };
      let i = list.length;
      while (i > 0 && before(def, list[i - 1]!)) i--;
      list.splice(i, 0, def);
      this.#publish(fc.key, list);
    }
  }

  #publish(key: string, list: readonly { config: Config }[]): void {
    if (list.length === 0) {
      this.#owners.delete(key);
      this.#configs.delete(key);
    } else this.#configs.set(key, list[0]!.config);
  }

  /** The result: a copy of the configs, and every rejection in file order (duplicates where they repeat). */
  result(dir: string, dirs: readonly string[]): ScanResult {
    const rejected: RejectedConfig[] = [];
    for (const path of [...this.#files.keys()].sort()) {
      const entry = this.#files.get(path)!;
      rejected.push(...entry.rejected);
      for (const { config: c, key, document } of entry.configs) {
        const first = this.#owners.get(key)![0]!;
        if (first.path === path && first.document === document) continue;
        const file = relative(dir, path) || path;
        rejected.push(reject(file, document, c, [{ path: 'metadata.name', message: `duplicate: ${key} is already defined in an earlier document` }]));
      }
    }
    return { configs: new Map(this.#configs), rejected, dirs };
  }
}

/** Parses and validates one file's documents. */
function scanFile(path: string, file: string, defaultNamespace: string): { configs: FileConfig[]; rejected: RejectedConfig[] } {
  const configs: FileConfig[] = [];
  const rejected: RejectedConfig[] = [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    rejected.push(reject(file, 0, undefined, [{ path: '', message: `cannot read: ${(e as Error).message}` }]));
    return { configs, rejected };
  }
  parseAllDocuments(text).forEach((doc, i) => {
    const n = i + 1;
    if (doc.errors.length > 0) {
      rejected.push(reject(file, n, undefined, doc.errors.map((e) => ({ path: '', message: `YAML: ${e.message.split('\n')[0]}` }))));
      return;
    }
    const raw = doc.toJSON() as unknown;
    if (raw === null || raw === undefined) return; // empty document (e.g. a trailing ---)
    let obj = raw;
    if (typeof raw === 'object' && !Array.isArray(raw)) {
      const r = raw as { metadata?: Record<string, unknown> };
      if (r.metadata && typeof r.metadata === 'object' && r.metadata['namespace'] === undefined) {
        obj = { ...r, metadata: { ...r.metadata, namespace: defaultNamespace } };
      }
    }
    const res = validateConfig(obj);
    if (!res.ok) {
      rejected.push(reject(file, n, obj, res.errors.map((e) => ({ path: e.path, message: e.message }))));
      return;
    }
    const c = res.config as unknown as Config;
    configs.push({ config: c, key: configKeyString({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }), document: n });
  });
  return { configs, rejected };
}

/** What identifies a file's content without reading it: size, mtime, ctime and inode (a rename-save changes the inode). */
function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return st.isFile() ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : '';
  } catch {
    return ''; // NOTE: removed meanwhile; scanFile reports it, or the caller drops it
  }
}

/** Re-reads one file into the cache unless its stamp is unchanged. */
function refreshFile(dir: string, path: string, defaultNamespace: string, cache: ScanCache): void {
  const stamp = stampOf(path);
  const entry = cache.get(path);
  if (entry && entry.stamp === stamp && stamp !== '') return;
  cache.set(path, { stamp, ...scanFile(path, relative(dir, path) || path, defaultNamespace) });
}

/**
 * Reads and validates every document under `dir`. With a `cache`, files whose size, times and inode
 * did not change since the last scan are not read again.
 */
export function scanConfigDir(dir: string, defaultNamespace: string, cache: ScanCache = new ScanCache()): ScanResult {
  const { files, dirs } = walkConfigDir(dir);
  const seen = new Set(files);
  for (const k of [...cache.paths()]) if (!seen.has(k)) cache.set(k, undefined);
  for (const path of files) refreshFile(dir, path, defaultNamespace, cache);
  return cache.result(dir, dirs);
}

/**
 * Re-reads only the `changed` paths (from watcher events) into `cache`, or returns undefined when a
 * full scan is needed instead (a directory appeared or went away, or a hidden entry changed).
 */
export function rescanChanged(dir: string, defaultNamespace: string, cache: ScanCache, dirs: readonly string[], changed: Iterable<string>): ScanResult | undefined {
  const known = new Set(dirs);
  for (const path of changed) {
    const rel = relative(dir, path);
    if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..') continue;
    // NOTE: a hidden entry changed: a ConfigMap mount swaps its `..data` symlink, which changes what
    // the visible files link to without an event naming them; scan everything (unchanged files are not re-read).
    if (rel.split(sep).some(isHidden)) return undefined;
    let isDir = false;
    let exists = true;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      exists = false;
    }
    if (isDir || (!exists && known.has(path))) return undefined;
    if (!isYaml(path)) continue;
    if (exists) refreshFile(dir, path, defaultNamespace, cache);
    else cache.set(path, undefined);
  }
  return cache.result(dir, dirs);
}

function versionOf(c: Config): string {
  return createHash('sha256').update(JSON.stringify(c)).digest('hex').slice(0, 16);
}

/**
 * The events that turn `before` into `after`, in key order. A config object that is the same object
 * in both (its file was not re-read) is unchanged without comparing its content.
 */
export function diffConfigs(before: ReadonlyMap<string, Config>, after: ReadonlyMap<string, Config>): ConfigEvent[] {
  const changed: string[] = [];
  for (const [k, b] of after) {
    const a = before.get(k);
    if (a !== b) changed.push(k);
  }
  for (const k of before.keys()) if (!after.has(k)) changed.push(k);
  const events: ConfigEvent[] = [];
  for (const k of changed.sort()) {
    const a = before.get(k);
    const b = after.get(k);
    const key = { kind: (b ?? a)!.kind, namespace: (b ?? a)!.metadata.namespace, name: (b ?? a)!.metadata.name };
    if (a && !b) events.push({ type: 'deleted', key, object: a, resourceVersion: versionOf(a) });
    else if (!a && b) events.push({ type: 'added', key, object: b, resourceVersion: versionOf(b) });
    else if (a && b && JSON.stringify(a) !== JSON.stringify(b)) events.push({ type: 'updated', key, object: b, resourceVersion: versionOf(b) });
  }
  return events;
}

/**
 * The source as an Observable of input batches: the first scan on subscribe (always emitted, even
 * when empty, so consumers know the source has synced), then one batch per scan that changed
 * something. Unsubscribing closes the watchers and timers.
 */
export function fileConfigSource(opts: FileConfigSourceOptions): Observable<readonly ModelInput[]> {
  return new Observable<readonly ModelInput[]>((subscriber) => {
    let current: ReadonlyMap<string, Config> = new Map();
    let dirs: readonly string[] = [];
    let lastRejected = '';
    const cache = new ScanCache();
    const watchers = new Map<string, FSWatcher>();
    /** Paths named by watcher events since the last scan; 'all' when an event named none. */
    let changed: Set<string> | 'all' = new Set();
    let pending: NodeJS.Timeout | undefined;
    let closed = false;

    const schedule = (path: string | undefined): void => {
      if (closed) return;
      if (path === undefined) changed = 'all';
      else if (changed !== 'all') changed.add(path);
      if (pending) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        const paths = changed;
        changed = new Set();
        scan(false, paths);
      }, opts.fileDebounceMs ?? 20);
    };

    /** Watches every directory of the tree, each with its own watcher; returns whether one was added. */
    const syncWatchers = (): boolean => {
      const want = new Set(dirs);
      for (const [d, w] of watchers) {
        if (want.has(d)) continue;
        w.close();
        watchers.delete(d);
      }
      let added = false;
      for (const d of dirs) {
        if (watchers.has(d)) continue;
        try {
          const w = watch(d, (_event, name) => schedule(name ? join(d, name.toString()) : undefined));
          w.on('error', (e) => {
            // NOTE: a watched directory that goes away errors on some platforms; the next scan re-syncs.
            w.close();
            if (watchers.get(d) === w) watchers.delete(d);
            if (d === opts.dir) opts.onScanError?.(e);
            schedule(undefined);
          });
          watchers.set(d, w);
          added = true;
        } catch (e) {
          if (d === opts.dir) opts.onScanError?.(e as Error);
        }
      }
      return added;
    };

    const scan = (first: boolean, paths: Set<string> | 'all'): void => {
      if (closed) return;
      let result: ScanResult | undefined;
      try {
        if (paths !== 'all') result = rescanChanged(opts.dir, opts.defaultNamespace, cache, dirs, paths);
        result ??= scanConfigDir(opts.dir, opts.defaultNamespace, cache);
      } catch (e) {
        if (first) {
          subscriber.error(new Error(`--configDir ${opts.dir}: ${(e as Error).message}`));
          return;
        }
        opts.onScanError?.(e as Error);
        return;
      }
      dirs = result.dirs;
      // NOTE: files written into a new directory before its watcher existed are found by one more scan.
      if (syncWatchers() && !first) schedule(undefined);
      // NOTE: report rejections when they change, not on every periodic rescan.
      const rejectedText = result.rejected.map((r) => r.message).join('\n');
      if (rejectedText !== lastRejected) {
        for (const r of result.rejected) opts.onRejected?.(r);
        lastRejected = rejectedText;
      }
      const events = diffConfigs(current, result.configs);
      current = result.configs;
      if (first || events.length > 0) subscriber.next(events.map((event) => ({ kind: 'config', event })));
    };

    scan(true, 'all');
    const every = opts.rescanIntervalMs ?? 5000;
    const interval = every > 0 && !subscriber.closed ? setInterval(() => scan(false, 'all'), every) : undefined;
    interval?.unref();
    return () => {
      closed = true;
      for (const w of watchers.values()) w.close();
      watchers.clear();
      if (pending) clearTimeout(pending);
      if (interval) clearInterval(interval);
    };
  });
}
