/**
 * `--restart`: the server under test is killed (SIGKILL) with every client connected and complete, and started
 * again on the same ports; the clients reconnect as proxies do (jittered exponential backoff, RESOURCE_EXHAUSTED
 * from admission retried). Measures the time from the kill to the new server listening and ready, to every client
 * having its first response on a new stream (reconnected), and to every client being complete again (all its
 * types answered and ACKed: converged), and how admission (`PILOT_MAX_REQUESTS_PER_SECOND`) spread the herd:
 * streams refused, streams per client, and clients converged per interval.
 */
import { defaultRequestLimit } from '../../../xds/index.js';
import { now } from './bench-client.js';
import type { BenchOptions } from './bench-options.js';
import type { WorkerStats } from './client-worker.js';
import type { ServerProcess } from './server-process.js';
import { fmtMs, summarize, table, type Summary } from '../stats.js';
import type { WorkerPool } from './worker-pool.js';

/** The stream-end reason admission gives (RESOURCE_EXHAUSTED, code 8). */
const ADMISSION_REFUSAL = /^8: /;

/** What `--restart` measured (milliseconds from the kill unless said otherwise). */
export interface RestartResult {
  readonly clients: number;
  /** The admission rate in force: PILOT_MAX_REQUESTS_PER_SECOND, or Istio's derivation from the cores. */
  readonly admissionPerSecond: number;
  readonly serverListenMs: number;
  readonly serverReadyMs: number;
  /** Until every client had a first response on a new stream; undefined when some never did. */
  readonly allReconnectedMs: number | undefined;
  /** Until every client was complete again; undefined when some never were. */
  readonly allConvergedMs: number | undefined;
  readonly reconnectedMs: Summary;
  readonly convergedMs: Summary;
  /** Clients not complete again by the deadline. */
  readonly missing: number;
  /** Streams each client opened after the kill (1 = reconnected at the first try). */
  readonly streamsPerClient: Summary;
  /** Streams ended by admission (RESOURCE_EXHAUSTED) after the kill, and by any reason. */
  readonly admissionRefusals: number;
  readonly streamsEnded: number;
  readonly endReasons: Record<string, number>;
  /** Clients converged in each `bucketMs` interval after the server was ready. */
  readonly bucketMs: number;
  readonly convergedPerBucket: readonly number[];
  /** Clients converged per second from ready to the last, and the peak bucket's rate. */
  readonly meanPerSecond: number | undefined;
  readonly peakPerSecond: number;
  /** CPU seconds of the new server from its spawn until every client converged. */
  readonly serverCpuSeconds: number;
}

/** The admission rate the server runs with. */
export function admissionRate(opts: Pick<BenchOptions, 'serverEnv'>, env: Readonly<Record<string, string | undefined>> = process.env): number {
  const set = Number(opts.serverEnv['PILOT_MAX_REQUESTS_PER_SECOND'] ?? env['PILOT_MAX_REQUESTS_PER_SECOND'] ?? 0);
  return set > 0 ? set : defaultRequestLimit();
}

/** How many of `times` (ms) fall in each `bucketMs` interval from 0. */
export function buckets(times: readonly number[], bucketMs: number): number[] {
  const out: number[] = [];
  for (const t of times) {
    const i = Math.max(0, Math.floor(t / bucketMs));
    while (out.length <= i) out.push(0);
    out[i]!++;
  }
  return out;
}

function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

/**
 * Kills `old`, starts the server again with `respawn` and measures the reconnection of every client of `pool`.
 * Returns the measurement and the new server (which the run goes on with).
 */
export async function measureRestart(
  pool: WorkerPool,
  old: ServerProcess,
  respawn: () => ServerProcess,
  where: { readonly grpcPort: number; readonly httpAddr: string },
  opts: BenchOptions,
  log: (line: string) => void,
): Promise<{ result: RestartResult; server: ServerProcess }> {
  const before: WorkerStats = await pool.stats();
  await pool.ask({ cmd: 'rearm' }, 'rearmed');
  const killAt = now();
  old.child.kill('SIGKILL');
  await old.exited;
  log(`restart: server killed (SIGKILL) after ${fmtMs(now() - killAt)}; starting it again`);
  const server = respawn();
  await server.waitForPort(where.grpcPort, opts.timeoutMs);
  const serverListenMs = now() - killAt;
  await server.waitForReady(where.httpAddr, opts.timeoutMs);
  const readyAt = now();
  log(`restart: new server listening after ${fmtMs(serverListenMs)}, ready after ${fmtMs(readyAt - killAt)} (pid ${server.pid})`);
  const progress = setInterval(() => {
    pool.stats().then((st) => log(`restart: ${st.ended - before.ended} streams ended since the kill, ${(now() - killAt) / 1000 | 0} s`), () => undefined);
  }, 10_000);
  let answers = await pool.gather('reconnected', Date.now() + opts.timeoutMs).finally(() => clearInterval(progress));
  if (answers.some((a) => a === undefined)) {
    pool.broadcast({ cmd: 'reconnected-now' });
    const late = await pool.gather('reconnected', Date.now() + 10_000);
    answers = answers.map((a, i) => a ?? late[i]);
  }
  const cpu = server.cpuSeconds();
  const after = await pool.stats();
  const reconnected = answers.flatMap((a) => a?.reconnectedAt ?? []).map((t) => t - killAt);
  const converged = answers.flatMap((a) => a?.recompleteAt ?? []).map((t) => t - killAt);
  const attempts = answers.flatMap((a) => a?.attempts ?? []);
  const missing = answers.reduce((s, a) => s + (a?.missing ?? 0), 0);
  const clients = attempts.length;
  const endReasons = delta(after.endReasons, before.endReasons);
  const bucketMs = 5000;
  const perBucket = buckets(converged.map((t) => t - (readyAt - killAt)), bucketMs);
  const lastMs = converged.length > 0 ? Math.max(...converged) : undefined;
  const result: RestartResult = {
    clients,
    admissionPerSecond: admissionRate(opts),
    serverListenMs,
    serverReadyMs: readyAt - killAt,
    allReconnectedMs: missing === 0 && reconnected.length === clients ? Math.max(...reconnected) : undefined,
    allConvergedMs: missing === 0 ? lastMs : undefined,
    reconnectedMs: summarize(reconnected),
    convergedMs: summarize(converged),
    missing,
    streamsPerClient: summarize(attempts),
    admissionRefusals: Object.entries(endReasons).filter(([k]) => ADMISSION_REFUSAL.test(k)).reduce((s, [, n]) => s + n, 0),
    streamsEnded: after.ended - before.ended,
    endReasons,
    bucketMs,
    convergedPerBucket: perBucket,
    meanPerSecond: lastMs !== undefined && lastMs > readyAt - killAt ? (converged.length * 1000) / (lastMs - (readyAt - killAt)) : undefined,
    peakPerSecond: (Math.max(0, ...perBucket) * 1000) / bucketMs,
    serverCpuSeconds: cpu,
  };
  log(`restart: ${converged.length}/${clients} clients converged${result.allConvergedMs === undefined ? '' : ` after ${fmtMs(result.allConvergedMs)}`}, ${result.admissionRefusals} admission refusals`);
  return { result, server };
}

/** The printed section of a restart. */
export function formatRestart(r: RestartResult): string {
  const perBucket = r.convergedPerBucket.map((n, i) => `${(i * r.bucketMs) / 1000}-${((i + 1) * r.bucketMs) / 1000}s:${n}`).join(' ');
  return [
    table([
      [`server kill -9 and restart with ${r.clients} connected clients (ms from the kill)`, 'value'],
      ['new server listening / ready', `${fmtMs(r.serverListenMs)} / ${fmtMs(r.serverReadyMs)}`],
      ['all clients reconnected (first response on a new stream)', r.allReconnectedMs === undefined ? `not reached (${r.reconnectedMs.n}/${r.clients})` : fmtMs(r.allReconnectedMs)],
      ['all clients converged (every type answered and ACKed again)', r.allConvergedMs === undefined ? `not reached (${r.convergedMs.n}/${r.clients}, ${r.missing} missing)` : fmtMs(r.allConvergedMs)],
      ['client reconnected p50 / p99', `${fmtMs(r.reconnectedMs.p50)} / ${fmtMs(r.reconnectedMs.p99)}`],
      ['client converged p50 / p99', `${fmtMs(r.convergedMs.p50)} / ${fmtMs(r.convergedMs.p99)}`],
      ['streams per client after the kill p50 / p99 / max', `${r.streamsPerClient.p50 ?? '-'} / ${r.streamsPerClient.p99 ?? '-'} / ${r.streamsPerClient.max ?? '-'}`],
      ['streams ended after the kill (admission RESOURCE_EXHAUSTED)', `${r.streamsEnded} (${r.admissionRefusals})`],
      ['admission rate (PILOT_MAX_REQUESTS_PER_SECOND)', `${r.admissionPerSecond}/s`],
      ['clients converged per second after ready: mean / peak 5 s', `${r.meanPerSecond?.toFixed(1) ?? '-'} / ${r.peakPerSecond.toFixed(1)}`],
      ['new server CPU until all converged', `${r.serverCpuSeconds.toFixed(2)} s`],
    ]),
    `  converged per ${r.bucketMs / 1000} s after ready: ${perBucket || 'none'}`,
    `  stream ends after the kill: ${JSON.stringify(r.endReasons)}`,
  ].join('\n');
}
