/** The side-by-side of a meshd run and an istiod run of the same benchmark: the metrics and their ratios. */
import type { BenchResult } from './run-bench.js';
import { fmtBytes, fmtMs, summarize, table } from '../stats.js';
import { editFloorMs, sharedDebounceMs } from './shared-floor.js';

/** One compared metric: both values (undefined when not measured) and how to print them. */
export interface ComparedMetric {
  readonly name: string;
  readonly meshd: number | undefined;
  readonly istiod: number | undefined;
  readonly format: (v: number | undefined) => string;
  /** The target for meshd/istiod, when it has one (e.g. 0.5: at most half). */
  readonly targetRatio?: number;
  /** When a value is unknown because clients never got the edit: what it is known to exceed (the wait for them). */
  readonly meshdAbove?: number | undefined;
  readonly istiodAbove?: number | undefined;
}

const mean = (xs: readonly number[]): number | undefined => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
const seconds = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(2)} s`);

/**
 * Each client's convergence past its edit's floor (shared-floor.ts), or undefined when an edit's floor is unknown
 * (files as the source, or a run from before the answer was recorded).
 */
function pastFloor(r: BenchResult, edits: BenchResult['edits']): number[] | undefined {
  const out: number[] = [];
  for (const e of edits) {
    const floor = editFloorMs(r.options, e);
    if (floor === undefined) return undefined;
    for (const s of e.samplesMs) out.push(s - floor);
  }
  return out;
}

/**
 * The metrics of one run: full-push p100, endpoint-change p50/p99, server CPU and bytes per push, peak RSS; with
 * `--source kube` also the API server's answer to the edits and the two latencies past the shared floor.
 */
export function comparedValues(r: BenchResult): Record<string, number | undefined> {
  const full = r.edits.filter((e) => e.fullPush);
  const endpoint = r.edits.filter((e) => e.scenario === 'endpoint');
  const samples = summarize(endpoint.flatMap((e) => e.samplesMs));
  const answered = summarize(r.edits.flatMap((e) => (e.writeAnsweredMs === undefined ? [] : [e.writeAnsweredMs])));
  const fullPast = pastFloor(r, full);
  const endpointPast = pastFloor(r, endpoint);
  const bytes = (es: typeof full): number[] => es.map((e) => Object.values(e.traffic).reduce((a, v) => a + v.bytes, 0));
  // NOTE: a client that missed a full push has no convergence time: p100 is then unknown, not the slowest seen; it is
  // known to exceed the wait for the clients (`--converge-timeout-ms`).
  const fullMissing = full.some((e) => e.missing > 0);
  const endpointMissing = endpoint.some((e) => e.missing > 0);
  const waited = r.options.convergeTimeoutMs;
  return {
    fullPushP100: fullMissing || full.length === 0 ? undefined : Math.max(...full.map((e) => e.convergenceMs.max ?? Infinity)),
    fullPushP100Above: fullMissing ? waited : undefined,
    endpointP50: samples.p50,
    endpointP99: endpointMissing ? undefined : samples.p99,
    endpointP99Above: endpointMissing ? waited : undefined,
    fullPushMaxMedianEdit: fullMissing || full.length === 0 ? undefined : summarize(full.map((e) => e.convergenceMs.max ?? Infinity)).p50,
    endpointP99MedianEdit: endpointMissing || endpoint.length === 0 ? undefined : summarize(endpoint.map((e) => e.convergenceMs.p99 ?? Infinity)).p50,
    writeAnsweredP50: r.options.source === 'kube' ? answered.p50 : undefined,
    fullPushPastFloorP100: fullMissing || !fullPast || fullPast.length === 0 ? undefined : Math.max(...fullPast),
    endpointPastFloorP99: endpointMissing || !endpointPast ? undefined : summarize(endpointPast).p99,
    cpuPerFullPush: mean(full.map((e) => e.serverCpuSeconds)),
    cpuPerEndpointPush: mean(endpoint.map((e) => e.serverCpuSeconds)),
    bytesPerFullPush: mean(bytes(full)),
    bytesPerEndpointPush: mean(bytes(endpoint)),
    peakRss: r.server.peakRssBytes,
    startupAllComplete: r.startup.allCompleteMs,
    settleWait: r.settle?.idle === true ? r.settle.waitedMs : undefined,
    settleWaitAbove: r.settle && !r.settle.idle ? r.settle.waitedMs : undefined,
    settleCpu: r.settle?.cpuSeconds,
  };
}

/** Every compared metric of two runs. */
export function compareRuns(meshd: BenchResult, istiod: BenchResult): ComparedMetric[] {
  const m = comparedValues(meshd);
  const i = comparedValues(istiod);
  const row = (name: string, key: string, format: (v: number | undefined) => string, targetRatio?: number): ComparedMetric => ({
    name, meshd: m[key], istiod: i[key], format, ...(targetRatio !== undefined ? { targetRatio } : {}),
    ...(m[`${key}Above`] !== undefined ? { meshdAbove: m[`${key}Above`] } : {}),
    ...(i[`${key}Above`] !== undefined ? { istiodAbove: i[`${key}Above`] } : {}),
  });
  return [
    row('full-push p100 (all clients have the edit)', 'fullPushP100', fmtMs, 0.5),
    row('endpoint-change p50', 'endpointP50', fmtMs),
    row('endpoint-change p99', 'endpointP99', fmtMs, 0.5),
    row('full-push p100, the median edit\'s', 'fullPushMaxMedianEdit', fmtMs),
    row('endpoint-change p99, the median edit\'s', 'endpointP99MedianEdit', fmtMs),
    row('API server answered the edit (p50)', 'writeAnsweredP50', fmtMs),
    row('full-push p100 past the floor', 'fullPushPastFloorP100', fmtMs),
    row('endpoint-change p99 past the floor', 'endpointPastFloorP99', fmtMs),
    row('server CPU per full push (mean)', 'cpuPerFullPush', seconds, 0.5),
    row('server CPU per endpoint push (mean)', 'cpuPerEndpointPush', seconds),
    row('bytes sent per full push (mean, all clients)', 'bytesPerFullPush', fmtBytes),
    row('bytes sent per endpoint push (mean, all clients)', 'bytesPerEndpointPush', fmtBytes),
    row('server peak RSS (VmHWM)', 'peakRss', fmtBytes, 1),
    row('startup: all clients complete', 'startupAllComplete', fmtMs),
    row('then until the server was idle (edits wait)', 'settleWait', fmtMs),
    row('server CPU meanwhile', 'settleCpu', seconds),
  ];
}

/** meshd/istiod, or undefined when either is missing or istiod's is 0. */
export function ratio(meshd: number | undefined, istiod: number | undefined): number | undefined {
  return meshd === undefined || istiod === undefined || istiod === 0 ? undefined : meshd / istiod;
}

/**
 * meshd/istiod as printed with its bound: exact, `< x` when only istiod's value is a lower bound, `> x` when only
 * meshd's is; `met` says whether the target holds (undefined: unknown).
 */
export function boundedRatio(c: ComparedMetric): { text: string; met: boolean | undefined } {
  const exact = ratio(c.meshd, c.istiod);
  const target = c.targetRatio;
  if (exact !== undefined) return { text: `${exact.toFixed(2)}x`, met: target === undefined ? undefined : exact <= target };
  const below = ratio(c.meshd, c.istiodAbove);
  if (below !== undefined) return { text: `< ${below.toFixed(2)}x`, met: target !== undefined && below <= target ? true : undefined };
  const above = ratio(c.meshdAbove, c.istiod);
  if (above !== undefined) return { text: `> ${above.toFixed(2)}x`, met: target !== undefined && above > target ? false : undefined };
  return { text: '-', met: undefined };
}

/** The printed comparison table. */
export function formatComparison(meshd: BenchResult, istiod: BenchResult): string {
  const o = meshd.options;
  const value = (c: ComparedMetric, v: number | undefined, above: number | undefined): string =>
    v === undefined && above !== undefined ? `> ${c.format(above)}` : c.format(v);
  const rows = compareRuns(meshd, istiod).map((c) => {
    const r = boundedRatio(c);
    const target = c.targetRatio === undefined ? '-' : `<= ${c.targetRatio}x${r.met === undefined ? '' : r.met ? ' (met)' : ' (NOT met)'}`;
    return [c.name, value(c, c.meshd, c.meshdAbove), value(c, c.istiod, c.istiodAbove), r.text, target];
  });
  const debounce = sharedDebounceMs(o, 'vs-edit');
  return [
    `meshd vs istiod: ${o.services} services, ${o.proxies} ${o.proxyType} clients, ${o.rounds} round(s), source ${o.source}`,
    table([['metric', 'meshd', 'istiod', 'meshd/istiod', 'issue target'], ...rows]),
    ...(debounce === undefined
      ? []
      : [
          `  "past the floor": each client's time less its edit's floor, the API server's answer to the write (its watch event goes out then) ` +
            `plus the ${fmtMs(debounce)} push debounce both servers run with; what each server's fold, generation, writes and clients add.`,
        ]),
  ].join('\n');
}
