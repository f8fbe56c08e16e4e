/**
 * bug-report's log time range from `--start-time`, `--end-time` and `--duration`: the end defaults to now,
 * the start to the infinite past; `--duration` counts back from the end and may not be set with `--start-time`.
 */

/** The range of log lines to keep; `start` undefined: from the beginning. */
export interface TimeRange {
  readonly start?: Date;
  readonly end: Date;
}

/** A bad combination or value of the time flags; the message names the flag. */
export class TimeRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeRangeError';
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parseTime(flagName: string, text: string): Date {
  const ms = RFC3339.test(text) ? Date.parse(text.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(ms)) throw new TimeRangeError(`--${flagName} "${text}": not an RFC 3339 time (e.g. 2026-11-25T15:04:05Z)`);
  return new Date(ms);
}

/** Resolves the flags to a range. @throws TimeRangeError when both `--duration` and `--start-time` are set, a time is unreadable, or the start is after the end */
export function resolveTimeRange(flags: { readonly startTime: string; readonly endTime: string; readonly durationMs: number }, now: Date): TimeRange {
  if (flags.durationMs > 0 && flags.startTime !== '') throw new TimeRangeError('--duration and --start-time are mutually exclusive: give one of them');
  if (flags.durationMs < 0) throw new TimeRangeError(`--duration must not be negative`);
  const end = flags.endTime === '' ? now : parseTime('end-time', flags.endTime);
  const start = flags.startTime !== '' ? parseTime('start-time', flags.startTime) : flags.durationMs > 0 ? new Date(end.getTime() - flags.durationMs) : undefined;
  if (start && start.getTime() > end.getTime()) throw new TimeRangeError(`--start-time ${start.toISOString()} is after the end time ${end.toISOString()}`);
  return start ? { start, end } : { end };
}

/**
 * Keeps the lines of a log fetched with `timestamps=true` whose timestamp lies in the range (the API server
 * already cut at `sinceTime`; the end is cut here). A line without a readable timestamp follows the line before.
 */
export function cutLogAtEnd(text: string, range: TimeRange): string {
  const ended = text.endsWith('\n');
  const lines = (ended ? text.slice(0, -1) : text).split('\n');
  const out: string[] = [];
  let keep = true;
  for (const line of lines) {
    const sp = line.indexOf(' ');
    const ms = sp > 0 ? Date.parse(line.slice(0, sp)) : Number.NaN;
    if (!Number.isNaN(ms)) keep = ms <= range.end.getTime() && (!range.start || ms >= range.start.getTime());
    if (keep) out.push(line);
  }
  return out.length > 0 ? out.join('\n') + (ended ? '\n' : '') : '';
}
