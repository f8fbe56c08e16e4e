/**
 * Scanning the `--configDir` tree (the reading half of file-config-source.ts): which files to read, how
 * to read them without blocking, and the per-file results that make up the served configs.
 *
 * - Only regular files (and symlinks to them) are read; a FIFO, socket or device named `*.yaml` is one
 *   rejected file, never opened. Reads are asynchronous and opened with O_NONBLOCK, and a file's size is
 *   checked before it is read, so no file can block the process or make it read without bound.
 * - Each file is parsed with crds/ `parseConfigYaml` and each document validated with crds/
 *   `validateConfig`, both on the worker thread of a `YamlWorkerParser` (small files inline: a few
 *   milliseconds at most), so neither a huge mapping nor its 100,000 schema errors stall the event loop.
 * - A rejected document that is a new version of an object this file defined validly before keeps that
 *   earlier version served ("last good"), until the document is fixed or removed, or the file deleted.
 *   The object is the document's kind/namespace/name when it can be read, else the object the same
 *   document position defined; a file that cannot be read at all keeps every object it defined.
 */
import { createHash } from 'node:crypto';
import { constants, readdirSync, statSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { configKeyString, type Config } from '../core/index.js';
import { parseConfigYaml, type ParsedYaml, type YamlWorkerParser } from '../crds/index.js';

/** One rejected document (or file, with document 0). */
export interface RejectedConfig {
  readonly file: string;
  /** 1-based position of the document in its file; 0 when the whole file was refused. */
  readonly document: number;
  /** `Kind` as far as it could be read, else `unknown`. */
  readonly kind: string;
  /** `namespace/name` as far as it could be read, else `unknown`. */
  readonly name: string;
  readonly errors: readonly { readonly path: string; readonly message: string }[];
  /** One line naming everything above. */
  readonly message: string;
  /** Identifies this bad version (file, object or position, content, errors): it is reported once. */
  readonly version: string;
  /** The config key of the object the document was meant to be, when known. */
  readonly key?: string;
  /** The last valid version still served instead: where it was defined and its version. */
  readonly served?: { readonly file: string; readonly document: number; readonly version: string };
}

/** A valid (or held last-good) document, its config key and its 1-based position in its file. */
export interface FileConfig {
  readonly config: Config;
  readonly key: string;
  readonly document: number;
}

/** One file's scan, reused while its stamp is unchanged. */
export interface FileEntry {
  readonly stamp: string;
  readonly configs: readonly FileConfig[];
  readonly rejected: readonly RejectedConfig[];
  /** Last-good versions kept in place of rejected documents (see the file comment). */
  readonly held: readonly FileConfig[];
}

/** What reading a file needs. */
export interface ScanContext {
  readonly dir: string;
  /** Namespace for documents without one. */
  readonly defaultNamespace: string;
  /** Parses files of `inlineBelowBytes` or more off the event loop; without it every file is parsed inline. */
  readonly parser?: YamlWorkerParser;
  /** Default 16 KiB: at most a few milliseconds of parsing on the event loop. */
  readonly inlineBelowBytes?: number;
}

/** Hidden entries (editor swap files, ConfigMap `..data` dirs) are skipped, as are non-YAML files. */
export function isHidden(name: string): boolean {
  return name.startsWith('.');
}

export function isYaml(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

/** Every YAML file (sorted) and every directory (the root first) of the tree, with each directory's identity (inode and birth time). */
export function walkConfigDir(dir: string): { files: string[]; dirs: string[]; inodes: Map<string, string> } {
  const files: string[] = [];
  const dirs: string[] = [];
  const inodes = new Map<string, string>();
  const walk = (d: string): void => {
    dirs.push(d);
    const st = statSync(d);
    inodes.set(d, `${st.ino}:${st.birthtimeMs}`);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (isHidden(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (isYaml(e.name)) files.push(p);
    }
  };
  walk(dir);
  return { files: files.sort(), dirs, inodes };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A config's version: a hash of its content. */
export function versionOf(c: Config): string {
  return hash(JSON.stringify(c));
}

/** What kind of file a stat describes, in words. */
function fileType(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

interface Identity {
  readonly kind?: string | undefined;
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
}

function identityOf(obj: unknown): Identity {
  const o = (obj ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return { kind: str(o.kind), name: str(o.metadata?.name), namespace: str(o.metadata?.namespace) };
}

/** Builds one rejection; `contentHash` tells versions of the same document apart. */
export function rejectDocument(
  file: string,
  document: number,
  id: Identity,
  defaultNamespace: string,
  errors: { path: string; message: string }[],
  contentHash: string,
): RejectedConfig {
  const kind = id.kind ?? 'unknown';
  const namespace = id.namespace ?? defaultNamespace;
  const name = id.name !== undefined ? `${namespace}/${id.name}` : 'unknown';
  const detail = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');

  const key = id.kind !== undefined && id.name !== undefined ? configKeyString({ kind: id.kind, namespace, name: id.name }) : undefined;
  return {
    file,
    document,
    kind,
    name,
    errors,
    message: document === 0 ? `${file}: ${detail}` : `${file}: document ${document} (${kind} ${name}): ${detail}`,
    version: [file, key ?? `#${document}`, contentHash, detail].join('\n'),
    ...(key !== undefined ? { key } : {}),
  };
}

/** Reads one file without blocking: refuses anything but a regular file, and files over `maxBytes`. */
async function readRegularFile(path: string, maxBytes: number): Promise<{ bytes: Buffer } | { error: string; stamp: string }> {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    return { error: `cannot read: ${(e as Error).message}`, stamp: '' };
  }
  if (!st.isFile()) return { error: `${fileType(st)}, not a regular file: not read`, stamp: `special:${st.ino}:${st.mode}` };
  if (st.size > maxBytes) return { error: `file is ${st.size} bytes, more than ${maxBytes} (limit maxFileBytes)`, stamp: '' };
  // NOTE: O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening it must not wait for a writer.
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: Error) => e);
  if (fh instanceof Error) return { error: `cannot read: ${fh.message}`, stamp: '' };
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) return { error: `${fileType(fst)}, not a regular file: not read`, stamp: `special:${fst.ino}:${fst.mode}` };
    // NOTE: read at most one byte past the limit, however much the file grew since the stat.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(fst.size, 0) + 1));
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    if (n > maxBytes) return { error: `file is more than ${maxBytes} bytes (limit maxFileBytes)`, stamp: '' };
    return { bytes: buf.subarray(0, n) };
  } catch (e) {
    return { error: `cannot read: ${(e as Error).message}`, stamp: '' };
  } finally {
    await fh.close();
  }
}

/** Parses and validates: on the worker thread unless the file is small (or there is no worker). */
async function parse(bytes: Buffer, ctx: ScanContext): Promise<ParsedYaml> {
  const options = { validate: { defaultNamespace: ctx.defaultNamespace } };
  if (!ctx.parser || bytes.byteLength < (ctx.inlineBelowBytes ?? 16 * 1024)) return parseConfigYaml(bytes, ctx.parser?.limits, options);
  return ctx.parser.parse(bytes, options);
}

/** Parses and validates one file's documents (no last-good yet: see {@link withLastGood}). */
export async function scanFile(path: string, ctx: ScanContext, stamp: string): Promise<FileEntry> {
  const file = relative(ctx.dir, path) || path;
  const configs: FileConfig[] = [];
  const rejected: RejectedConfig[] = [];
  const maxBytes = ctx.parser?.limits.maxFileBytes ?? 16 * 1024 * 1024;
  const read = await readRegularFile(path, maxBytes);
  if ('error' in read) {
    rejected.push(rejectDocument(file, 0, {}, ctx.defaultNamespace, [{ path: '', message: read.error }], read.stamp));
    return { stamp: read.stamp === '' ? stamp : read.stamp, configs, rejected, held: [] };
  }
  const parsed = await parse(read.bytes, ctx);
  if (!parsed.ok) {
    rejected.push(rejectDocument(file, 0, {}, ctx.defaultNamespace, [{ path: '', message: parsed.error }], hash(read.bytes.toString('latin1'))));
    return { stamp, configs, rejected, held: [] };
  }
  for (const d of parsed.documents) {
    if (d.error !== undefined) {
      rejected.push(rejectDocument(file, d.document, d, ctx.defaultNamespace, [{ path: '', message: d.error }], d.hash));
      continue;
    }
    const res = d.validation;
    if (res === undefined) {
      if (d.value === null || d.value === undefined) continue; // empty document (e.g. a trailing ---)
      rejected.push(rejectDocument(file, d.document, {}, ctx.defaultNamespace, [{ path: '', message: 'a config object must be a mapping with apiVersion, kind, metadata and spec' }], d.hash));
      continue;
    }
    if (!res.ok) {
      rejected.push(rejectDocument(file, d.document, identityOf(d.value), ctx.defaultNamespace, res.errors.map((e) => ({ path: e.path, message: e.message })), d.hash));
      continue;
    }
    const c = res.config as unknown as Config;
    configs.push({ config: c, key: configKeyString({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }), document: d.document });
  }
  return { stamp, configs, rejected, held: [] };
}

/**
 * The new entry of a file with the last-good versions of `old` kept for its rejected documents (see the
 * file comment), and each such rejection saying which version is still served.
 */
export function withLastGood(file: string, old: FileEntry | undefined, next: FileEntry): FileEntry {
  if (!old || next.rejected.length === 0) return next;
  const before = new Map<string, FileConfig>();
  for (const fc of [...old.configs, ...old.held]) before.set(fc.key, fc);
  const byDocument = new Map<number, string>();
  for (const fc of old.configs) byDocument.set(fc.document, fc.key);
  for (const r of old.rejected) if (r.key !== undefined && before.has(r.key)) byDocument.set(r.document, r.key);
  const defined = new Set(next.configs.map((fc) => fc.key));
  const held: FileConfig[] = [];
  const heldKeys = new Set<string>();
  const hold = (key: string | undefined, document: number): FileConfig | undefined => {
    if (key === undefined || defined.has(key) || heldKeys.has(key)) return undefined;
    const last = before.get(key);
    if (!last) return undefined;
    heldKeys.add(key);
    const kept = { ...last, document: document === 0 ? last.document : document };
    held.push(kept);
    return kept;
  };
  const rejected = next.rejected.map((r): RejectedConfig => {
    const keys = r.document === 0 ? [...before.keys()] : [r.key ?? byDocument.get(r.document)];
    let kept: FileConfig | undefined;
    for (const k of keys) kept = hold(k, r.document) ?? kept;
    if (!kept) return r;
    return { ...r, key: r.key ?? kept.key, served: { file, document: kept.document, version: versionOf(kept.config) } };
  });
  return { ...next, rejected, held };
}

/** Orders definitions of one key: file path, then document. */
function before(a: { path: string; document: number }, b: { path: string; document: number }): boolean {
  return a.path < b.path || (a.path === b.path && a.document < b.document);
}

/**
 * Per-file results of earlier scans, and the configs they define, kept up to date file by file: a
 * change to one file costs that file, not the whole directory. A key defined more than once is
 * taken from its first definition in file order; held last-good versions count as definitions.
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
    for (const fc of [...(old?.configs ?? []), ...(old?.held ?? [])]) {
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
    for (const fc of [...entry.configs, ...entry.held]) {
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

  /** Whether `key` is defined by a valid document (not only a held last-good version). */
  definedValid(key: string): boolean {
    for (const o of this.#owners.get(key) ?? []) {
      if (this.#files.get(o.path)?.configs.some((fc) => fc.key === key && fc.document === o.document)) return true;
    }
    return false;
  }

  /** The result: a copy of the configs, and every rejection in file order. */
  result(dir: string, dirs: readonly string[]): ScanResult {
    const rejected: RejectedConfig[] = [];
    for (const path of [...this.#files.keys()].sort()) {
      const entry = this.#files.get(path)!;
      rejected.push(...entry.rejected);
      for (const { config: c, key, document } of entry.configs) {
        const first = this.#owners.get(key)![0]!;
        if (first.path === path && first.document === document) continue;
        const file = relative(dir, path) || path;
        const id = { kind: c.kind, name: c.metadata.name, namespace: c.metadata.namespace };
        rejected.push(rejectDocument(file, document, id, c.metadata.namespace, [{ path: 'metadata.name', message: `duplicate: ${key} is already defined in an earlier document` }], versionOf(c)));
      }
    }
    return { configs: new Map(this.#configs), rejected, dirs };
  }
}

/** The outcome of one scan. */
export interface ScanResult {
  readonly configs: ReadonlyMap<string, Config>;
  readonly rejected: readonly RejectedConfig[];
  /** Every directory of the tree (absolute, the root first): what a watcher must cover. */
  readonly dirs: readonly string[];
}

/** What identifies a file's content without reading it: size, mtime, ctime and inode (a rename-save changes the inode). */
function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return st.isFile() ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : `special:${st.ino}:${st.mode}`;
  } catch {
    return ''; // NOTE: removed meanwhile; scanFile reports it, or the caller drops it
  }
}

/** Re-reads one file into the cache unless its stamp is unchanged. */
async function refreshFile(path: string, ctx: ScanContext, cache: ScanCache): Promise<void> {
  const stamp = stampOf(path);
  const entry = cache.get(path);
  if (entry && entry.stamp === stamp && stamp !== '') return;
  const next = await scanFile(path, ctx, stamp);
  cache.set(path, withLastGood(relative(ctx.dir, path) || path, cache.get(path), next));
}

/**
 * Reads and validates every document under `ctx.dir`. With a `cache`, files whose size, times and inode
 * did not change since the last scan are not read again. Throws only when the directory cannot be listed.
 */
export async function scanConfigDir(ctx: ScanContext, cache: ScanCache = new ScanCache()): Promise<ScanResult & { inodes: ReadonlyMap<string, string> }> {
  const { files, dirs, inodes } = walkConfigDir(ctx.dir);
  const seen = new Set(files);
  for (const k of [...cache.paths()]) if (!seen.has(k)) cache.set(k, undefined);
  for (const path of files) await refreshFile(path, ctx, cache);
  return { ...cache.result(ctx.dir, dirs), inodes };
}

/**
 * Re-reads only the `changed` paths (from watcher events) into `cache`, or returns undefined when a
 * full scan is needed instead (a directory appeared or went away, or a hidden entry changed).
 */
export async function rescanChanged(ctx: ScanContext, cache: ScanCache, dirs: readonly string[], changed: Iterable<string>): Promise<ScanResult | undefined> {
  const known = new Set(dirs);
  const files: string[] = [];
  for (const path of changed) {
    const rel = relative(ctx.dir, path);
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
    if (isYaml(path)) files.push(path);
  }
  for (const path of files) {
    let exists = true;
    try {
      statSync(path);
    } catch {
      exists = false;
    }
    if (exists) await refreshFile(path, ctx, cache);
    else cache.set(path, undefined);
  }
  return cache.result(ctx.dir, dirs);
}
