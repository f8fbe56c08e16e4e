/**
 * Reading the `--configDir` tree (the reading half of file-config-source.ts): which files to read, how
 * to read one without blocking, and its per-file result. The tree scans are in scan-config-dir.ts, the
 * cache of per-file results and the configs they add up to in scan-cache.ts.
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
import { join, relative } from 'node:path';
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
  /** Hash of the document's text: a re-read document with the same text is the same config. */
  readonly hash?: string;
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
    configs.push({ config: c, key: configKeyString({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }), document: d.document, hash: d.hash });
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
