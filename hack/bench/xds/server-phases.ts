/**
 * The server's side of an edit: meshd logs one `push sent` line per push (xds/server/push-trace.ts) with the
 * times from the change entering its model to the push leaving the debounce, to its last response handed to
 * grpc-js and to the last write callback. Read from the server's output, they are placed on the benchmark's
 * clock (the line's wall time minus its `atMs`), so an edit's latency splits into: the watch delivery (write
 * to change seen), the debounce and fold (to published), generation and writes (to the last write), the
 * flush (to the last write callback), and the clients' receipt.
 */
import { summarize, type Summary } from '../stats.js';

/** One `push sent` line, its times in ms on the benchmark's clock (epoch ms, as `now()` in bench-client.ts). */
export interface ServerPush {
  readonly token: number;
  readonly full: boolean;
  readonly proxies: number;
  readonly responses: number;
  readonly bytes: number;
  /** When the change entered meshd's model. */
  readonly changeAt: number;
  readonly publishedAt: number;
  readonly lastWriteAt: number | undefined;
  readonly lastFlushAt: number | undefined;
}

/** Epoch ms of a log time `2026-11-25T21:43:32.123456Z` (microseconds kept), or NaN. */
function logTime(text: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(text);
  if (!m) return Number.NaN;
  return Date.parse(`${m[1]}Z`) + Number(`0.${m[2] ?? '0'}`) * 1000;
}

/** The fields of a `push sent` line (console `k=v` or JSON output), or undefined for any other line. */
export function parsePushSent(line: string): ServerPush | undefined {
  if (!line.includes('push sent')) return undefined;
  let f: Record<string, unknown>;
  let at: number;
  if (line.startsWith('{')) {
    try {
      f = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (f['msg'] !== 'push sent') return undefined;
    at = typeof f['time'] === 'number' ? f['time'] : logTime(String(f['time']));
  } else {
    const parts = line.split('\t');
    if (!parts.includes('push sent')) return undefined;
    at = logTime(parts[0]!);
    f = {};
    for (const kv of (parts[parts.length - 1] ?? '').split(' ')) {
      const eq = kv.indexOf('=');
      if (eq > 0) f[kv.slice(0, eq)] = kv.slice(eq + 1) === 'true' ? true : kv.slice(eq + 1) === 'false' ? false : Number(kv.slice(eq + 1));
    }
  }
  const num = (k: string): number | undefined => (typeof f[k] === 'number' && Number.isFinite(f[k]) ? f[k] : undefined);
  const atMs = num('atMs');
  const token = num('token');
  const publishedMs = num('publishedMs');
  if (!Number.isFinite(at) || atMs === undefined || token === undefined || publishedMs === undefined) return undefined;
  const changeAt = at - atMs;
  const rel = (k: string): number | undefined => {
    const v = num(k);
    return v === undefined ? undefined : changeAt + v;
  };
  return {
    token, full: f['full'] === true, proxies: num('proxies') ?? 0, responses: num('responses') ?? 0, bytes: num('bytes') ?? 0,
    changeAt, publishedAt: changeAt + publishedMs, lastWriteAt: rel('lastWriteMs'), lastFlushAt: rel('lastFlushMs'),
  };
}

/** An edit's server phases: ms from the config write (the push that wrote the most responses). */
export interface EditServerPhases {
  /** Write to the change entering meshd's model (watch delivery, source batching). */
  readonly changeSeenMs: number;
  /** Write to the push leaving the debounce. */
  readonly publishedMs: number;
  readonly lastWriteMs: number | undefined;
  readonly lastFlushMs: number | undefined;
  /** Pushes logged during the edit. */
  readonly pushes: number;
  readonly responses: number;
}

/** The phases of the push of an edit written at `writeAt`, from the pushes logged since; undefined when none was. */
export function editServerPhases(writeAt: number, pushes: readonly ServerPush[]): EditServerPhases | undefined {
  const mine = pushes.filter((p) => p.publishedAt >= writeAt);
  if (mine.length === 0) return undefined;
  const main = mine.reduce((a, b) => (b.responses > a.responses ? b : a));
  const rel = (t: number | undefined): number | undefined => (t === undefined ? undefined : Math.round((t - writeAt) * 10) / 10);
  return {
    changeSeenMs: rel(main.changeAt)!, publishedMs: rel(main.publishedAt)!, lastWriteMs: rel(main.lastWriteAt), lastFlushMs: rel(main.lastFlushAt),
    pushes: mine.length, responses: main.responses,
  };
}

/** Medians over edits of each phase (for the report). */
export function phaseSummaries(phases: readonly EditServerPhases[]): Record<'changeSeenMs' | 'publishedMs' | 'lastWriteMs' | 'lastFlushMs', Summary> {
  const of = (k: 'changeSeenMs' | 'publishedMs' | 'lastWriteMs' | 'lastFlushMs'): Summary => summarize(phases.flatMap((p) => (p[k] === undefined ? [] : [p[k]])));
  return { changeSeenMs: of('changeSeenMs'), publishedMs: of('publishedMs'), lastWriteMs: of('lastWriteMs'), lastFlushMs: of('lastFlushMs') };
}
