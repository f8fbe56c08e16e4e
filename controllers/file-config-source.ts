/**
 * The `--configDir` source: every `*.yaml` / `*.yml` file under a directory (recursively), each
 * possibly holding several documents. Every document is validated with crds/ `validateConfig`; a bad
 * document is rejected with an error naming the file, the document (1-based), its kind/name and the
 * field, and everything else is kept. The directory is watched (recursive `fs.watch`, events
 * debounced) and rescanned periodically for events a watcher can miss; each scan is diffed against
 * the last one into added/updated/deleted events.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';
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
}

function listYamlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue; // NOTE: skips editor swap files and ConfigMap ..data dirs
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
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

/** Per-file results of earlier scans, reused while a file's size and mtime are unchanged. */
export type ScanCache = Map<string, { readonly stamp: string; readonly configs: readonly FileConfig[]; readonly rejected: readonly RejectedConfig[] }>;

/** A valid document and its 1-based position in its file. */
interface FileConfig {
  readonly config: Config;
  readonly document: number;
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
    configs.push({ config: res.config as unknown as Config, document: n });
  });
  return { configs, rejected };
}

/**
 * Reads and validates every document under `dir`. With a `cache`, files whose size and mtime did
 * not change since the last scan are not read again.
 */
export function scanConfigDir(dir: string, defaultNamespace: string, cache?: ScanCache): ScanResult {
  const configs = new Map<string, Config>();
  const rejected: RejectedConfig[] = [];
  const seen = new Set<string>();
  for (const path of listYamlFiles(dir)) {
    const file = relative(dir, path) || path;
    seen.add(path);
    let stamp = '';
    try {
      const st = statSync(path);
      stamp = `${st.size}:${st.mtimeMs}`;
    } catch {
      // NOTE: removed between listing and stat; scanFile reports it
    }
    let entry = cache?.get(path);
    if (!entry || entry.stamp !== stamp || stamp === '') {
      entry = { stamp, ...scanFile(path, file, defaultNamespace) };
      cache?.set(path, entry);
    }
    rejected.push(...entry.rejected);
    for (const { config: c, document } of entry.configs) {
      const key = configKeyString({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name });
      if (configs.has(key)) {
        rejected.push(reject(file, document, c, [{ path: 'metadata.name', message: `duplicate: ${key} is already defined in an earlier document` }]));
        continue;
      }
      configs.set(key, c);
    }
  }
  if (cache) for (const k of [...cache.keys()]) if (!seen.has(k)) cache.delete(k);
  return { configs, rejected };
}

function versionOf(c: Config): string {
  return createHash('sha256').update(JSON.stringify(c)).digest('hex').slice(0, 16);
}

/** The events that turn `before` into `after`, in key order. */
export function diffConfigs(before: ReadonlyMap<string, Config>, after: ReadonlyMap<string, Config>): ConfigEvent[] {
  const events: ConfigEvent[] = [];
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const k of keys) {
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
 * something. Unsubscribing closes the watcher and timers.
 */
export function fileConfigSource(opts: FileConfigSourceOptions): Observable<readonly ModelInput[]> {
  return new Observable<readonly ModelInput[]>((subscriber) => {
    let current: ReadonlyMap<string, Config> = new Map();
    let lastRejected = '';
    const cache: ScanCache = new Map();
    const scan = (first: boolean): void => {
      let result: ScanResult;
      try {
        result = scanConfigDir(opts.dir, opts.defaultNamespace, cache);
      } catch (e) {
        if (first) {
          subscriber.error(new Error(`--configDir ${opts.dir}: ${(e as Error).message}`));
          return;
        }
        opts.onScanError?.(e as Error);
        return;
      }
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
    scan(true);
    if (subscriber.closed) return;
    let pending: NodeJS.Timeout | undefined;
    let watcher: FSWatcher | undefined;
    const schedule = (): void => {
      if (pending) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        scan(false);
      }, opts.fileDebounceMs ?? 20);
    };
    try {
      watcher = watch(opts.dir, { recursive: true }, schedule);
      watcher.on('error', (e) => opts.onScanError?.(e));
    } catch (e) {
      opts.onScanError?.(e as Error);
    }
    const every = opts.rescanIntervalMs ?? 5000;
    const interval = every > 0 ? setInterval(() => scan(false), every) : undefined;
    interval?.unref();
    return () => {
      watcher?.close();
      if (pending) clearTimeout(pending);
      if (interval) clearInterval(interval);
    };
  });
}
