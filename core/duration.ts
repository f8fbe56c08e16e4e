/**
 * Go-style durations (`300ms`, `1m30s`, `2562047h47m16.854775807s`), the form the spec uses for every
 * Duration flag and variable. Inside mesh a duration is a number of milliseconds.
 */

/** Go's largest duration (2^63-1 ns), in milliseconds. Used as "forever". */
export const MAX_DURATION_MS = 9223372036854.775807;
const MAX_DURATION_TEXT = '2562047h47m16.854775807s';

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Thrown for text that is not a Go duration. */
export class DurationError extends Error {
  override readonly name = 'DurationError';
}

/**
 * Parses a Go duration: an optional sign, then one or more decimal numbers each with a unit
 * (`ns`, `us`, `ms`, `s`, `m`, `h`). `0` alone is allowed. Returns milliseconds.
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === MAX_DURATION_TEXT) return MAX_DURATION_MS;
  if (s === '0' || s === '+0' || s === '-0') return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) throw new DurationError(`invalid duration "${text}" (use a number with a unit, like 30s, 5m0s or 100ms)`);
  let total = 0;
  for (const part of s.replace(/^[+-]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNIT_MS[part[2] as string]!;
  }
  return m[1] === '-' ? -total : total;
}

/**
 * Formats milliseconds the way Go's `time.Duration.String()` does: `0s`, `1.5µs`, `100ms`, `1m30s`,
 * `1h0m0s`, `87600h0m0s`.
 */
export function formatDuration(ms: number): string {
  if (ms >= MAX_DURATION_MS) return MAX_DURATION_TEXT;
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  // Work in whole nanoseconds, as Go does.
  let ns = Math.round(Math.abs(ms) * 1e6);
  if (ns < 1000) return `${sign}${ns}ns`;
  if (ns < 1_000_000) return `${sign}${trimFraction(ns / 1000)}µs`;
  if (ns < 1_000_000_000) return `${sign}${trimFraction(ns / 1_000_000)}ms`;
  const h = Math.floor(ns / 3.6e12);
  ns -= h * 3.6e12;
  const m = Math.floor(ns / 6e10);
  ns -= m * 6e10;
  const secs = trimFraction(ns / 1e9);
  if (h > 0) return `${sign}${h}h${m}m${secs}s`;
  if (m > 0) return `${sign}${m}m${secs}s`;
  return `${sign}${secs}s`;
}

function trimFraction(n: number): string {
  // Up to 9 decimals, no trailing zeros (Go prints the shortest exact form).
  return n.toFixed(9).replace(/\.?0+$/, '');
}
