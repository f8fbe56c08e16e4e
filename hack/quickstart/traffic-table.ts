/** Plain-text rendering of a traffic snapshot: the quick start's table, also used when stdout is no TTY. */
import type { TrafficSnapshot } from './traffic.js';

const BAR_WIDTH = 24;

/** One row of the table. */
export interface TrafficRow {
  readonly label: string;
  readonly calls: number;
  readonly share: number;
  readonly error: boolean;
}

/** Rows sorted by label, versions first, then errors. Shares are of all calls in the window. */
export function trafficRows(s: TrafficSnapshot): TrafficRow[] {
  const share = (n: number): number => (s.total === 0 ? 0 : n / s.total);
  const versions = [...s.byVersion].sort(([a], [b]) => a.localeCompare(b));
  const errors = [...s.errors].sort(([a], [b]) => a.localeCompare(b));
  return [
    ...versions.map(([label, calls]) => ({ label, calls, share: share(calls), error: false })),
    ...errors.map(([code, calls]) => ({ label: `error ${code}`, calls, share: share(calls), error: true })),
  ];
}

/** The bar for a share between 0 and 1. */
export function bar(share: number): string {
  const full = Math.round(share * BAR_WIDTH);
  return '█'.repeat(full) + '░'.repeat(BAR_WIDTH - full);
}

/** The table as lines of text. */
export function formatTraffic(s: TrafficSnapshot, target: string): string[] {
  const lines = [`${target}: ${s.total} calls in the last ${(s.windowMs / 1000).toFixed(0)} s`, ''];
  lines.push(`${'destination'.padEnd(22)}${'calls'.padStart(7)}${'share'.padStart(9)}`);
  for (const r of trafficRows(s)) {
    lines.push(`${r.label.padEnd(22)}${String(r.calls).padStart(7)}${(r.share * 100).toFixed(1).padStart(8)}%  ${bar(r.share)}`);
  }
  if (s.total === 0) lines.push('(no calls answered yet)');
  if (s.lastError !== undefined && s.errors.size > 0) lines.push('', `last error: ${s.lastError}`);
  return lines;
}
