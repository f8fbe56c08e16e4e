/** Percentiles and the printed table of the xDS benchmark. */

/** min/p50/p99/max of a sample (nearest-rank), in the sample's unit; all undefined when empty. */
export interface Summary {
  readonly n: number;
  readonly min: number | undefined;
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly max: number | undefined;
}

/** The nearest-rank percentile `p` (0-100] of `values`. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile: p must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function summarize(values: readonly number[]): Summary {
  return { n: values.length, min: values.length > 0 ? Math.min(...values) : undefined, p50: percentile(values, 50), p99: percentile(values, 99), max: percentile(values, 100) };
}

/** Milliseconds as `123 ms` or `4.56 s`. */
export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) return '-';
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Bytes as B, KB, MB or GB (powers of 1024). */
export function fmtBytes(b: number | undefined): string {
  if (b === undefined) return '-';
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = b;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

/** A plain-text table: the first row is the header; columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join('\n');
}
