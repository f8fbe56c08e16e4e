/** The side-by-side of bench:ca's meshd and istiod runs: throughput, latency at half meshd's maximum, ratios. */
import { fmtMs, table } from '../stats.js';

/** The targets against the reference: throughput >= 1.5x istiod's; p99 < 25 ms at half meshd's maximum. */
export const REFERENCE_TARGET = { throughputRatio: 1.5, p99Ms: 25 } as const;

/** What one phase measured, as compared: certificates per second (0 when any call failed), latency p50/p99 ms. */
export interface Measured {
  readonly rate: number;
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly errors: number;
}

/** Both phases of one server. */
export interface ServerPhases {
  readonly saturated: Measured;
  readonly atRate: Measured | undefined;
}

/** The side-by-side of meshd and istiod with ratios and the targets. */
export function formatCaComparison(meshd: ServerPhases, istiod: ServerPhases, rate: number, callers: number): string {
  const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined || b === 0 ? '-' : `${(a / b).toFixed(2)}x`);
  const certs = (m: Measured): string => (m.errors > 0 ? `${m.errors} errors` : `${m.rate.toFixed(0)}/s`);
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  const tput = meshd.saturated.rate / Math.max(istiod.saturated.rate, Number.MIN_VALUE);
  const p99 = meshd.atRate?.p99;
  return table([
    ['metric', 'meshd', 'istiod', 'meshd/istiod', 'issue target'],
    [`certificates/s back to back (${callers} callers)`, certs(meshd.saturated), certs(istiod.saturated), ratio(meshd.saturated.rate, istiod.saturated.rate), `>= ${REFERENCE_TARGET.throughputRatio}x (${met(istiod.saturated.rate > 0 && tput >= REFERENCE_TARGET.throughputRatio)})`],
    [`latency p50 at ${rate}/s (half meshd's max)`, fmtMs(meshd.atRate?.p50), fmtMs(istiod.atRate?.p50), ratio(meshd.atRate?.p50, istiod.atRate?.p50), '-'],
    [`latency p99 at ${rate}/s (half meshd's max)`, fmtMs(p99), fmtMs(istiod.atRate?.p99), ratio(p99, istiod.atRate?.p99), `meshd < ${REFERENCE_TARGET.p99Ms} ms (${met(p99 !== undefined && (meshd.atRate?.errors ?? 1) === 0 && p99 < REFERENCE_TARGET.p99Ms)})`],
    ['errors (both phases)', String(meshd.saturated.errors + (meshd.atRate?.errors ?? 0)), String(istiod.saturated.errors + (istiod.atRate?.errors ?? 0)), '-', '-'],
  ]);
}

