/**
 * The large-mesh case's in-process measure of the `--configDir` source's part of one endpoint change:
 * the run's config dir scanned once into a controllers/ ScanCache, then endpoint edits, each one file
 * rewritten and rescanned as a watcher event names it; the process CPU of each rescan (stat, read,
 * parse, validate, diff). Measured after the server is gone, like the fold, because the server's CPU per
 * change also holds the fold and the pushes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rescanChanged, ScanCache, scanConfigDir } from '../../../controllers/index.js';
import { summarize, type Summary } from '../stats.js';
import { benchService, NO_EDITS, serviceDocuments, serviceFile, toYaml, type MeshSize } from './config-gen.js';

/** What {@link measureFileSourceCost} found. */
export interface FileSourceCost {
  readonly changes: number;
  /** Process CPU (user + system) of the rescan of one changed file, ms. */
  readonly cpuMs: Summary;
  /** Config keys the diff looked at per change (the most of any change). */
  readonly maxKeysDiffed: number;
}

/**
 * Rewrites `changes` service files of `configDir` (generated with `size`), each with one endpoint
 * moved, and measures the file source's rescan of each. Throws when a change does not come out as
 * exactly one updated config.
 */
export async function measureFileSourceCost(configDir: string, size: MeshSize, changes: number): Promise<FileSourceCost> {
  const ctx = { dir: configDir, defaultNamespace: 'default' };
  const cache = new ScanCache();
  const { dirs } = await scanConfigDir(ctx, cache);
  const cpuMs: number[] = [];
  let maxKeysDiffed = 0;
  for (let i = 0; i < changes; i++) {
    const s = benchService((1 + i * 37) % size.services, size.namespaces);
    const path = join(configDir, serviceFile(s));
    writeFileSync(path, toYaml(serviceDocuments(s, size, { ...NO_EDITS, endpoint: { address: `10.251.${(i >> 8) & 255}.${i & 255}`, weight: 2 } })));
    const keys0 = cache.work.keysDiffed;
    const cpu0 = process.cpuUsage();
    const res = await rescanChanged(ctx, cache, dirs, [path]);
    const cpu = process.cpuUsage(cpu0);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    maxKeysDiffed = Math.max(maxKeysDiffed, cache.work.keysDiffed - keys0);
    if (res?.events.length !== 1 || res.events[0]!.type !== 'updated') {
      throw new Error(`file source cost: the edit of ${serviceFile(s)} gave ${res ? `${res.events.length} events` : 'a full rescan'}, expected one update`);
    }
  }
  return { changes, cpuMs: summarize(cpuMs), maxKeysDiffed };
}
