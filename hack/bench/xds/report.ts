/** The printed report of a run and the issue's targets (reported, never asserted). */
import type { BenchResult, TypeTraffic } from './run-bench.js';
import { SCENARIOS } from './markers.js';
import { fmtBytes, fmtMs, summarize, table } from '../stats.js';
import { formatRestart } from './restart-phase.js';
import { phaseSummaries } from './server-phases.js';
import { IDLE_SHARE_OF_A_CORE, IDLE_WINDOW_MS } from './server-idle.js';

/** The issue's targets for proxyless clients, S=1000, N=2000 on 2 cores. */
export const TARGETS = {
  /** Endpoint-change p99: the debounce (100 ms) plus 50 ms. */
  endpointP99Ms: 150,
  fullPushMaxMs: 5000,
  peakRssBytes: 1024 ** 3,
  cpuSecondsPerFullPush: 3,
  /** Large mesh (10,000 services, 50,000 endpoints): server CPU of one endpoint change's fold. */
  largeMeshEndpointCpuMs: 5,
} as const;

function traffic(t: TypeTraffic, clients: number): string {
  const parts = Object.entries(t)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${fmtBytes(v.bytes)}`);
  const total = Object.values(t).reduce((s, v) => s + v.bytes, 0);
  return parts.length === 0 ? 'nothing' : `${parts.join(', ')} (total ${fmtBytes(total)}, ${fmtBytes(total / Math.max(1, clients))}/client)`;
}

/** Checks of the targets against a result: [what, measured, met]. */
export function targetChecks(r: BenchResult): [string, string, boolean | undefined][] {
  const endpoint = r.edits.filter((e) => e.scenario === 'endpoint').flatMap((e) => e.samplesMs);
  const full = r.edits.filter((e) => e.fullPush);
  const fullMax = full.length > 0 && full.every((e) => e.missing === 0) ? Math.max(...full.map((e) => e.convergenceMs.max ?? Infinity)) : undefined;
  const fullCpu = full.length > 0 ? Math.max(...full.map((e) => e.serverCpuSeconds)) : undefined;
  const p99 = summarize(endpoint).p99;
  const missingEndpoint = r.edits.some((e) => e.scenario === 'endpoint' && e.missing > 0);
  if (r.options.case === 'large-mesh') {
    const cpuMs = r.edits.filter((e) => e.scenario === 'endpoint').map((e) => e.serverCpuSeconds * 1000);
    const worst = cpuMs.length > 0 ? Math.max(...cpuMs) : undefined;
    const p50 = summarize(endpoint).p50;
    const fold = r.fold?.foldCpuMs.p99;
    return [
      [
        `large mesh: CPU of the fold of one endpoint change p99 <= ${TARGETS.largeMeshEndpointCpuMs} ms (in-process, same size)`,
        fold === undefined ? '-' : `${fold.toFixed(2)} ms (wall p50 ${r.fold!.foldMs.p50?.toFixed(2)} / p99 ${r.fold!.foldMs.p99?.toFixed(2)} ms)`,
        fold === undefined ? undefined : fold <= TARGETS.largeMeshEndpointCpuMs,
      ],
      [
        'large mesh: config-dir source CPU per endpoint change p50 / p99 (one file re-read and diffed; in-process, same dir)',
        r.fileSource === undefined ? (r.options.source === 'kube' ? '- (configs from the API server)' : '-') : `${r.fileSource.cpuMs.p50?.toFixed(2)} / ${r.fileSource.cpuMs.p99?.toFixed(2)} ms (${r.fileSource.maxKeysDiffed} key(s) diffed)`,
        undefined,
      ],
      ['large mesh: server CPU per endpoint change (file read and diff, fold, EDS build, encode, send)', worst === undefined ? '-' : `${worst.toFixed(1)} ms (worst of ${cpuMs.length})`, undefined],
      ['large mesh: change to EDS bytes at the clients (p50 / p99)', missingEndpoint ? `${fmtMs(p50)} / ${fmtMs(p99)} (some clients missed it)` : `${fmtMs(p50)} / ${fmtMs(p99)}`, undefined],
      [`server peak RSS < ${fmtBytes(TARGETS.peakRssBytes)}`, fmtBytes(r.server.peakRssBytes), r.server.peakRssBytes < TARGETS.peakRssBytes],
    ];
  }
  return [
    [`endpoint-change p99 <= ${TARGETS.endpointP99Ms} ms`, missingEndpoint ? `${fmtMs(p99)} (some clients missed it)` : fmtMs(p99), p99 === undefined || missingEndpoint ? undefined : p99 <= TARGETS.endpointP99Ms],
    [`full-push p100 <= ${fmtMs(TARGETS.fullPushMaxMs)}`, fmtMs(fullMax), fullMax === undefined ? undefined : fullMax <= TARGETS.fullPushMaxMs],
    [`server peak RSS < ${fmtBytes(TARGETS.peakRssBytes)}`, fmtBytes(r.server.peakRssBytes), r.server.peakRssBytes < TARGETS.peakRssBytes],
    [`server CPU per full push <= ${TARGETS.cpuSecondsPerFullPush} s`, fullCpu === undefined ? '-' : `${fullCpu.toFixed(2)} s (worst)`, fullCpu === undefined ? undefined : fullCpu <= TARGETS.cpuSecondsPerFullPush],
  ];
}

/** The human-readable report. */
export function formatReport(r: BenchResult): string {
  const o = r.options;
  const n = o.proxies;
  const s = r.startup;
  const lines: string[] = [];
  lines.push(`xDS benchmark of ${r.serverName ?? 'meshd'} (config source: ${o.source ?? 'files'}): ${o.services} services (${r.configDocuments} documents, ${o.namespaces} namespaces), ${n} ${o.proxyType} clients (${o.xds === 'delta' ? 'delta' : 'SotW'} ADS), ${o.rounds} round(s), ${o.workers} client worker(s)`);
  lines.push(`server: ${r.serverCommand}`);
  lines.push(`machine: ${r.machine.cpus} cpus, load average at end ${r.machine.loadAverage.map((l) => l.toFixed(2)).join(' ')}`);
  lines.push('');
  lines.push(
    table([
      ['startup', 'value'],
      ['server listening after spawn', fmtMs(r.serverListenMs)],
      ['server ready (config read) after spawn', fmtMs(r.serverReadyMs)],
      ['all clients complete (from first connect)', s.allCompleteMs === undefined ? `not reached (${s.complete}/${n})` : fmtMs(s.allCompleteMs)],
      ['client connected p50 / p99', `${fmtMs(s.connectMs.p50)} / ${fmtMs(s.connectMs.p99)}`],
      ['client complete p50 / p99', `${fmtMs(s.completeMs.p50)} / ${fmtMs(s.completeMs.p99)}`],
      ['server CPU until quiet', `${s.serverCpuSeconds.toFixed(2)} s`],
      ['client workers event-loop busy', `${(s.clientLoopUtilization * 100).toFixed(0)} %`],
    ]),
  );
  lines.push(`startup bytes: ${traffic(s.traffic, n)}`);
  lines.push('');
  if (r.restart) {
    lines.push(formatRestart(r.restart));
    lines.push('  NOTE: the server CPU and peak RSS below are the restarted server\'s.');
    lines.push('');
  }
  if (r.settle) {
    const what = `${fmtMs(r.settle.waitedMs)}, ${r.settle.cpuSeconds.toFixed(2)} s of server CPU meanwhile`;
    lines.push(r.settle.idle
      ? `server idle before the first edit (under ${IDLE_SHARE_OF_A_CORE * 100} % of a core for ${fmtMs(IDLE_WINDOW_MS)}) after ${what}`
      : `server still busy before the first edit after ${what}: the edits started anyway`);
    lines.push('');
  }
  const rows: string[][] = [['edit (ms from config write to marker at client)', 'rounds', 'samples', 'min', 'p50', 'p99', 'max', 'missing', 'cpu/edit', 'client busy', 'bytes/edit']];
  for (const sc of SCENARIOS) {
    const es = r.edits.filter((e) => e.scenario === sc);
    if (es.length === 0) continue;
    const sum = summarize(es.flatMap((e) => e.samplesMs));
    const bytes = es.reduce((t, e) => t + Object.values(e.traffic).reduce((a, v) => a + v.bytes, 0), 0) / es.length;
    const cpu = es.reduce((t, e) => t + e.serverCpuSeconds, 0) / es.length;
    rows.push([
      `${sc}${es[0]!.fullPush ? ' (full push)' : ''}`,
      String(es.length),
      String(sum.n),
      fmtMs(sum.min),
      fmtMs(sum.p50),
      fmtMs(sum.p99),
      fmtMs(sum.max),
      String(es.reduce((t, e) => t + e.missing, 0)),
      `${cpu.toFixed(2)} s`,
      `${((es.reduce((t, e) => t + e.clientLoopUtilization, 0) / es.length) * 100).toFixed(0)} %`,
      fmtBytes(bytes),
    ]);
  }
  lines.push(table(rows));
  lines.push(o.source === 'kube'
    ? '  NOTE: convergence counts from the API-server write, so it includes the watch delivery as well as the push debounce;'
    : '  NOTE: convergence counts from the file write, so it includes the config source\'s file-watch debounce as well as the push debounce;');
  lines.push('  "client busy": the client workers\' event-loop utilization from the write to the last arrival; near 100 % the clients set the pace.');
  for (const sc of SCENARIOS) {
    const ph = r.edits.filter((e) => e.scenario === sc).flatMap((e) => (e.server ? [e.server] : []));
    if (ph.length === 0) continue;
    const s = phaseSummaries(ph);
    lines.push(
      `  ${sc}: server phases, median over edits (ms from the write): change seen ${fmtMs(s.changeSeenMs.p50)}, push published ${fmtMs(s.publishedMs.p50)}, ` +
        `last response written ${fmtMs(s.lastWriteMs.p50)}, last write callback ${fmtMs(s.lastFlushMs.p50)}`,
    );
  }
  for (const sc of SCENARIOS) {
    const e = r.edits.find((x) => x.scenario === sc);
    if (e) lines.push(`  ${sc}: marker arrived in ${Object.entries(e.arrivedIn).map(([t, c]) => `${t} x${c}`).join(', ') || 'nothing'}; bytes ${traffic(e.traffic, n)}`);
  }
  lines.push('');
  lines.push(`server: CPU ${r.server.cpuSecondsTotal.toFixed(2)} s in all, peak RSS ${fmtBytes(r.server.peakRssBytes)} (VmHWM; sampled tree peak ${fmtBytes(r.server.peakTreeRssSampledBytes)})`);
  if (r.refused > 0) lines.push(`clients the server refused for good: ${r.refused}`);
  if (r.streamsReopened > 0) lines.push(`client streams that ended with an error and were reopened: ${r.streamsReopened} ${JSON.stringify(r.endReasons)}`);
  lines.push('');
  lines.push(
    table([
      ['target (reported, not asserted)', 'measured', 'met'],
      ...targetChecks(r).map(([what, measured, met]) => [what, measured, met === undefined ? '-' : met ? 'yes' : 'NO']),
    ]),
  );
  return lines.join('\n');
}
