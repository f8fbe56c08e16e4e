/**
 * bug-report's archive: the collected files under one top folder, a `summary.txt` saying what was collected,
 * what failed and what the timeout left out, packed as a tar.gz.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { create } from 'tar';
import type { ArchiveEntry, CollectResult } from './bug-report-collect.js';
import { rankedLine, type RankedLog } from './log-importance.js';

/** The top folder inside the archive. */
export const ARCHIVE_TOP = 'bug-report';

/** The summary file: the options, counts, errors and omissions, one per line, then the logs by importance. */
export function summaryText(result: CollectResult, header: readonly string[], ranking: readonly RankedLog[] = []): string {
  const logs = result.entries.filter((e) => e.path.startsWith('logs/')).length;
  const lines = [
    ...header,
    `files: ${result.entries.length} (${logs} logs)`,
    `timed out: ${result.timedOut ? 'yes (what was captured before the timeout is kept)' : 'no'}`,
    ...(result.errors.length > 0 ? ['errors:', ...result.errors.map((e) => `  ${e}`)] : []),
    ...(result.skipped.length > 0 ? ['not fetched (timeout):', ...result.skipped.map((s) => `  ${s}`)] : []),
    ...(ranking.length > 0 ? ['logs by importance (critical first, then 1000 x fatal + 100 x error + 10 x warn):', ...ranking.map((r) => `  ${rankedLine(r)}`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Writes `entries` (plus `summary.txt`) under `<workDir>/bug-report/` and packs that folder into `file`
 * (gzip). The work folder is a fresh temporary folder inside `workDir`, removed afterwards.
 */
export async function writeArchive(entries: readonly ArchiveEntry[], summary: string, workDir: string, file: string): Promise<void> {
  const tmp = await mkdtemp(join(workDir, 'meshctl-bug-report-'));
  try {
    const top = join(tmp, ARCHIVE_TOP);
    for (const e of [...entries, { path: 'summary.txt', content: summary }]) {
      if (e.path.split('/').some((p) => p === '..' || p === '')) throw new Error(`archive path ${e.path}: not a relative path`);
      const target = join(top, e.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, e.content);
    }
    await create({ gzip: true, file, cwd: tmp, portable: true }, [ARCHIVE_TOP]);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
