/** The side-by-side of a meshd run and an istiod run of the same benchmark: the metrics and their ratios. */
import type { BenchResult } from './run-bench.js';
import { fmtBytes, fmtMs, summarize, table } from '../stats.js';

/** One compared metric: both values (undefined when not measured) and how to print them. */
export interface ComparedMetric {
  readonly name: string;
  readonly meshd: number | undefined;
  readonly istiod: number | undefined;
  readonly format: (v: number | undefined) => string;
  /** The target for meshd/istiod, when it has one (e.g. 0.5: at most half). */
  readonly targetRatio?: number;
}

const mean = (xs: readonly number[]): number | undefined => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
const seconds = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(2)} s`);

/** The metrics of one run: full-push p100, endpoint-change p50/p99, server CPU and bytes per push, peak RSS. */
export function comparedValues(r: BenchResult): Record<string, number | undefined> {
  const full = r.edits.filter((e) => e.fullPush);
  const endpoint = r.edits.filter((e) => e.scenario === 'endpoint');
  const samples = summarize(endpoint.flatMap((e) => e.samplesMs));
  const bytes = (es: typeof full): number[] => es.map((e) => Object.values(e.traffic).reduce((a, v) => a + v.bytes, 0));
  // NOTE: a client that missed a full push has no convergence time: p100 is then unknown, not the slowest seen.
  const fullMissing = full.some((e) => e.missing > 0);
  return {
    fullPushP100: fullMissing || full.length === 0 ? undefined : Math.max(...full.map((e) => e.convergenceMs.max ?? Infinity)),
    endpointP50: samples.p50,
    endpointP99: endpoint.some((e) => e.missing > 0) ? undefined : samples.p99,
    cpuPerFullPush: mean(full.map((e) => e.serverCpuSeconds)),
    cpuPerEndpointPush: mean(endpoint.map((e) => e.serverCpuSeconds)),
    bytesPerFullPush: mean(bytes(full)),
    bytesPerEndpointPush: mean(bytes(endpoint)),
    peakRss: r.server.peakRssBytes,
    startupAllComplete: r.startup.allCompleteMs,
  };
}

/** Every compared metric of two runs. */
export function compareRuns(meshd: BenchResult, istiod: BenchResult): ComparedMetric[] {
  const m = comparedValues(meshd);
  const i = comparedValues(istiod);
  const row = (name: string, key: string, format: (v: number | undefined) => string, targetRatio?: number): ComparedMetric => ({
    name, meshd: m[key], istiod: i[key], format, ...(targetRatio !== undefined ? { targetRatio } : {}),
  });
  return [
    row('full-push p100 (all clients have the edit)', 'fullPushP100', fmtMs, 0.5),
    row('endpoint-change p50', 'endpointP50', fmtMs),
    row('endpoint-change p99', 'endpointP99', fmtMs, 0.5),
    row('server CPU per full push (mean)', 'cpuPerFullPush', seconds, 0.5),
    row('server CPU per endpoint push (mean)', 'cpuPerEndpointPush', seconds),
    row('bytes sent per full push (mean, all clients)', 'bytesPerFullPush', fmtBytes),
    row('bytes sent per endpoint push (mean, all clients)', 'bytesPerEndpointPush', fmtBytes),
    row('server peak RSS (VmHWM)', 'peakRss', fmtBytes, 1),
    row('startup: all clients complete', 'startupAllComplete', fmtMs),
  ];
}

/** meshd/istiod, or undefined when either is missing or istiod's is 0. */
export function ratio(meshd: number | undefined, istiod: number | undefined): number | undefined {
  return meshd === undefined || istiod === undefined || istiod === 0 ? undefined : meshd / istiod;
}

/** The printed comparison table. */
export function formatComparison(meshd: BenchResult, istiod: BenchResult): string {
  const o = meshd.options;
  const rows = compareRuns(meshd, istiod).map((c) => {
    const r = ratio(c.meshd, c.istiod);
    const target = c.targetRatio === undefined ? '-' : `<= ${c.targetRatio}x${r === undefined ? '' : r <= c.targetRatio ? ' (met)' : ' (NOT met)'}`;
    return [c.name, c.format(c.meshd), c.format(c.istiod), r === undefined ? '-' : `${r.toFixed(2)}x`, target];
  });
  return [
    `meshd vs istiod: ${o.services} services, ${o.proxies} ${o.proxyType} clients, ${o.rounds} round(s), source ${o.source}`,
    table([['metric', 'meshd', 'istiod', 'meshd/istiod', 'issue target'], ...rows]),
  ].join('\n');
}
