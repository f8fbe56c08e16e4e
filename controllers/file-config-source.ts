/**
 * The `--configDir` source: every `*.yaml` / `*.yml` file under a directory (recursively), each
 * possibly holding several documents. Reading, parsing (with bounded cost, off the event loop for all
 * but small files) and validating are in file-config-scan.ts; a bad document or file is rejected with
 * an error naming the file, the document (1-based), its kind/name and the field, and everything else is
 * kept, including the last valid version of an object whose new version is rejected.
 *
 * Every directory of the tree is watched with its own non-recursive `fs.watch` (a recursive watcher on
 * Linux stops reporting a file once an editor replaced it by rename), and the directory holding the
 * config dir is watched for the config dir itself, so a config dir deleted and recreated is watched
 * again at once. The files the events name are re-read after a short debounce, and the whole tree is
 * rescanned periodically for events a watcher can miss. Scans run one at a time; each emits the
 * added/updated/deleted events of the keys its files changed (see scan-cache.ts: the cost of a change is
 * that of the changed files, not of the directory). Each distinct bad version is reported once.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Observable } from 'rxjs';
import type { ModelInput } from '../core/index.js';
import { DEFAULT_YAML_LIMITS, YamlWorkerParser, type YamlLimits } from '../crds/index.js';
import type { RejectedConfig, ScanContext } from './file-config-scan.js';
import type { RejectedConfigEntry, RejectedConfigs } from './rejected-configs.js';
import { ScanCache, type ScanResult, type ScanWork } from './scan-cache.js';
import { rescanChanged, scanConfigDir } from './scan-config-dir.js';

export { scanFile, type FileEntry, type RejectedConfig, type ScanContext } from './file-config-scan.js';
export { ScanCache, type ScanResult, type ScanWork } from './scan-cache.js';
export { scanConfigDir, rescanChanged } from './scan-config-dir.js';

/** Options of the file source. Durations in milliseconds. */
export interface FileConfigSourceOptions {
  readonly dir: string;
  /** Namespace for documents without one (`--namespace` / POD_NAMESPACE). */
  readonly defaultNamespace: string;
  /** Quiet period after a file event before rescanning (coalesces partial writes); default 20. */
  readonly fileDebounceMs?: number;
  /** Periodic rescan; default 5000; 0 disables. */
  readonly rescanIntervalMs?: number;
  /** Limits of each file (size, documents, keys, aliases); default crds/ DEFAULT_YAML_LIMITS. */
  readonly limits?: YamlLimits;
  /** Called once per distinct bad version of a document or file (log it, count it). */
  readonly onRejected?: (r: RejectedConfig) => void;
  /** Called when an object whose version was rejected is defined by a valid document again. */
  readonly onRecovered?: (r: RejectedConfig) => void;
  /** Called when a scan cannot read the directory at all (the previous configs are kept). */
  readonly onScanError?: (err: Error) => void;
  /** Kept up to date with the current rejections (source `config-dir`), for `/debug/rejectedz`. */
  readonly rejections?: RejectedConfigs;
  /** Called after each scan with what it cost (files read, keys diffed, definitions checked): for tests and debugging. */
  readonly onScanned?: (work: ScanWork) => void;
}

/** The `/debug/rejectedz` entry of a file rejection. */
function entryOf(r: RejectedConfig, since: string): RejectedConfigEntry {
  return {
    source: 'config-dir',
    object: r.kind === 'unknown' && r.name === 'unknown' ? 'unknown' : `${r.kind} ${r.name}`,
    location: r.document === 0 ? r.file : `${r.file} document ${r.document}`,
    reason: r.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '),
    since,
    served: r.served ? `${r.served.file} document ${r.served.document} (version ${r.served.version})` : null,
  };
}

/**
 * The source as an Observable of input batches: the first scan on subscribe (always emitted, even
 * when empty, so consumers know the source has synced), then one batch per scan that changed
 * something. Unsubscribing closes the watchers, timers and the parser thread.
 */
export function fileConfigSource(opts: FileConfigSourceOptions): Observable<readonly ModelInput[]> {
  return new Observable<readonly ModelInput[]>((subscriber) => {
    const parser = new YamlWorkerParser({ limits: opts.limits ?? DEFAULT_YAML_LIMITS });
    const ctx: ScanContext = { dir: opts.dir, defaultNamespace: opts.defaultNamespace, parser };
    let dirs: readonly string[] = [];
    let inodes: ReadonlyMap<string, string> = new Map();
    /** Each current bad version, with when it was first seen. */
    const reported = new Map<string, { r: RejectedConfig; since: string }>();
    const cache = new ScanCache();
    const watchers = new Map<string, { w: FSWatcher; ino: string | undefined }>();
    let parentWatcher: FSWatcher | undefined;
    /** Paths named by watcher events since the last scan; 'all' when an event named none. */
    let changed: Set<string> | 'all' = new Set();
    let pending: NodeJS.Timeout | undefined;
    let closed = false;
    let first = true;
    /** Scans asked for while one runs: merged, run next. */
    let queued: Set<string> | 'all' | undefined;
    let running = false;

    const schedule = (path: string | undefined): void => {
      if (closed) return;
      if (path === undefined) changed = 'all';
      else if (changed !== 'all') changed.add(path);
      if (pending) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        const paths = changed;
        changed = new Set();
        request(paths);
      }, opts.fileDebounceMs ?? 20);
    };

    const closeWatchers = (): void => {
      for (const { w } of watchers.values()) w.close();
      watchers.clear();
    };

    /** Watches every directory of the tree, each with its own watcher; returns whether one was added. */
    const syncWatchers = (): boolean => {
      const want = new Set(dirs);
      for (const [d, { w, ino }] of watchers) {
        // NOTE: a directory replaced by another of the same name (new inode) needs a new watcher.
        if (want.has(d) && (ino === undefined || inodes.get(d) === undefined || inodes.get(d) === ino)) continue;
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
            if (watchers.get(d)?.w === w) watchers.delete(d);
            if (d === opts.dir) opts.onScanError?.(e);
            schedule(undefined);
          });
          watchers.set(d, { w, ino: inodes.get(d) });
          added = true;
        } catch (e) {
          if (d === opts.dir) opts.onScanError?.(e as Error);
        }
      }
      return added;
    };

    /** Tells each new bad version once, and each recovery; refreshes the /debug view. */
    const report = (result: ScanResult): void => {
      const now = new Date().toISOString();
      const seen = new Set<string>();
      for (const r of result.rejected) {
        seen.add(r.version);
        const known = reported.get(r.version);
        if (known) {
          known.r = r;
          continue;
        }
        reported.set(r.version, { r, since: now });
        opts.onRejected?.(r);
      }
      for (const [v, { r }] of reported) {
        if (seen.has(v)) continue;
        reported.delete(v);
        if (r.key !== undefined && cache.definedValid(r.key)) opts.onRecovered?.(r);
      }
      opts.rejections?.replace('config-dir', [...reported.values()].map(({ r, since }) => entryOf(r, since)));
    };

    const scan = async (paths: Set<string> | 'all'): Promise<void> => {
      let result: ScanResult | undefined;
      const work0 = cache.work;
      try {
        if (paths !== 'all') result = await rescanChanged(ctx, cache, dirs, paths);
        if (!result) {
          const full = await scanConfigDir(ctx, cache);
          inodes = full.inodes;
          result = full;
        }
      } catch (e) {
        if (closed) return;
        if (first) {
          subscriber.error(new Error(`--configDir ${opts.dir}: ${(e as Error).message}`));
          return;
        }
        // NOTE: the directory went away: forget its watchers, so that when it is created again the
        // watcher of its parent starts a scan that watches the new one.
        closeWatchers();
        dirs = [];
        opts.onScanError?.(e as Error);
        return;
      }
      if (closed) return;
      dirs = result.dirs;
      const wasFirst = first;
      first = false;
      // NOTE: files written into a new directory before its watcher existed (also during the first scan,
      // which reads files before any watcher exists) are found by one more scan; unchanged files are not re-read.
      if (syncWatchers()) schedule(undefined);
      report(result);
      const { events } = result;
      if (opts.onScanned) {
        const w = cache.work;
        opts.onScanned({ filesRead: w.filesRead - work0.filesRead, keysDiffed: w.keysDiffed - work0.keysDiffed, definitionsChecked: w.definitionsChecked - work0.definitionsChecked });
      }
      if (wasFirst || events.length > 0) subscriber.next(events.map((event) => ({ kind: 'config', event })));
    };

    const request = (paths: Set<string> | 'all'): void => {
      if (closed) return;
      if (queued === undefined) queued = paths;
      else if (queued !== 'all') queued = paths === 'all' ? 'all' : new Set([...queued, ...paths]);
      if (running) return;
      running = true;
      void (async (): Promise<void> => {
        while (queued !== undefined && !closed) {
          const next = queued;
          queued = undefined;
          await scan(next);
        }
        running = false;
      })();
    };

    try {
      const name = basename(opts.dir);
      parentWatcher = watch(dirname(opts.dir), (_event, entry) => {
        if (entry !== null && entry.toString() !== name) return;
        // NOTE: the config dir itself was removed, replaced or created: its old watchers may watch a
        // directory that is gone (a new one can even reuse its inode number); watch the tree anew.
        closeWatchers();
        schedule(undefined);
      });
      parentWatcher.on('error', () => parentWatcher?.close());
    } catch {
      // NOTE: the parent cannot be watched (no permission): a recreated config dir is found by the periodic rescan.
    }
    request('all');
    const every = opts.rescanIntervalMs ?? 5000;
    const interval = every > 0 ? setInterval(() => request('all'), every) : undefined;
    interval?.unref();
    return () => {
      closed = true;
      closeWatchers();
      parentWatcher?.close();
      if (pending) clearTimeout(pending);
      if (interval) clearInterval(interval);
      opts.rejections?.replace('config-dir', []);
      void parser.close();
    };
  });
}
