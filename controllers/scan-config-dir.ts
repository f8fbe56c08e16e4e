/**
 * Scanning the `--configDir` tree into a {@link ScanCache}: the whole tree (the first scan and the
 * periodic rescan: every file is stat'ed, only the changed ones are read), or only the paths a watcher
 * named. Reading one file is in file-config-scan.ts; what the scans add up to is in scan-cache.ts.
 */
import { statSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { isHidden, isYaml, scanFile, walkConfigDir, withLastGood, type ScanContext } from './file-config-scan.js';
import { ScanCache, type ScanResult } from './scan-cache.js';

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
