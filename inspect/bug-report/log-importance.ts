/**
 * bug-report's log importance heuristic (`--critical-errs`, `--ignore-errs`): each collected log is scored
 * by its fatal, error and warning lines (1000, 100 and 10 points, as istioctl's bug-report scores them), a
 * line matching an `--ignore-errs` glob does not count, and a log with a fatal, error or warning line matching a
 * `--critical-errs` glob goes first whatever its score. The summary ranks the logs this way, so the logs
 * worth reading first are named at the top of the report.
 */
import { globMatches } from './log-spec.js';

/** The globs of `--critical-errs` and `--ignore-errs`. */
export interface ImportanceOptions {
  readonly criticalErrs: readonly string[];
  readonly ignoreErrs: readonly string[];
}

/** The counted lines of one log, its score and the critical globs it matched. */
export interface LogStats {
  readonly fatals: number;
  readonly errors: number;
  readonly warnings: number;
  /** 1000 x fatals + 100 x errors + 10 x warnings. */
  readonly importance: number;
  /** The `--critical-errs` globs an error line matched (empty: not critical). */
  readonly criticalMatches: readonly string[];
}

/** A log's level, from the formats the mesh's programs and Envoy write. */
type Level = 'fatal' | 'error' | 'warn' | 'other';

const LEVEL_BY_NAME: Readonly<Record<string, Level>> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warn: 'warn',
  warning: 'warn',
};

/** The API server's `timestamps=true` prefix: an RFC 3339 time and one space. */
const API_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\S+ /;
/** Envoy's default format: `[time][thread][level][logger] [file:line] message` (the source part optional). */
const ENVOY_LINE = /^\[[^\]]*\]\[[^\]]*\]\[(\w+)\](?:\[[^\]]*\])?(?: \[[^\]\s]*:\d+\])?(.*)$/;
/** The mesh programs' console format: `time<TAB>level<TAB>...`. */
const CONSOLE_LINE = /^\d{4}-\d{2}-\d{2}T[^\t]*\t(\w+)\t(.*)$/;

/** The level and text of one log line, or undefined when it is no leveled record (a stack line, free text). */
export function parseLogLine(raw: string): { level: Level; text: string } | undefined {
  const line = raw.replace(API_TIMESTAMP, '');
  if (line.startsWith('{')) {
    try {
      const record = JSON.parse(line) as { level?: unknown; msg?: unknown; message?: unknown };
      const level = typeof record.level === 'string' ? LEVEL_BY_NAME[record.level.toLowerCase()] ?? 'other' : 'other';
      const text = typeof record.msg === 'string' ? record.msg : typeof record.message === 'string' ? record.message : '';
      return { level, text };
    } catch {
      return undefined;
    }
  }
  const m = CONSOLE_LINE.exec(line) ?? ENVOY_LINE.exec(line);
  if (!m) return undefined;
  return { level: LEVEL_BY_NAME[m[1]!.toLowerCase()] ?? 'other', text: m[2]!.trim() };
}

/** Scores one log (see the file comment). */
export function logStats(text: string, opts: ImportanceOptions): LogStats {
  let fatals = 0;
  let errors = 0;
  let warnings = 0;
  const critical = new Set<string>();
  for (const raw of text.split('\n')) {
    const parsed = parseLogLine(raw);
    if (!parsed || parsed.level === 'other') continue;
    if (opts.ignoreErrs.some((g) => globMatches(g, parsed.text))) continue;
    for (const g of opts.criticalErrs) if (globMatches(g, parsed.text)) critical.add(g);
    if (parsed.level === 'fatal') fatals += 1;
    else if (parsed.level === 'error') errors += 1;
    else warnings += 1;
  }
  return { fatals, errors, warnings, importance: 1000 * fatals + 100 * errors + 10 * warnings, criticalMatches: [...critical].sort() };
}

/** One log of the archive with its stats. */
export interface RankedLog {
  readonly path: string;
  readonly stats: LogStats;
}

/** The logs ranked: critical ones first, then by score, then by path. */
export function rankLogs(logs: readonly { readonly path: string; readonly content: string }[], opts: ImportanceOptions): RankedLog[] {
  return logs
    .map((l) => ({ path: l.path, stats: logStats(l.content, opts) }))
    .sort((a, b) => Number(b.stats.criticalMatches.length > 0) - Number(a.stats.criticalMatches.length > 0) || b.stats.importance - a.stats.importance || a.path.localeCompare(b.path));
}

/** One line of the ranking, e.g. `critical  logs/a/p/mesh-proxy.log  importance 1210 (fatal 1, error 2, warn 1) matched "panic*"`. */
export function rankedLine(r: RankedLog): string {
  const s = r.stats;
  const tag = s.criticalMatches.length > 0 ? 'critical' : s.importance > 0 ? 'errors' : 'clean';
  const matched = s.criticalMatches.length > 0 ? ` matched ${s.criticalMatches.map((g) => JSON.stringify(g)).join(', ')}` : '';
  return `${tag.padEnd(8)}  ${r.path}  importance ${s.importance} (fatal ${s.fatals}, error ${s.errors}, warn ${s.warnings})${matched}`;
}
