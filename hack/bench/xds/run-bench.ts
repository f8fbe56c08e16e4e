/**
 * One benchmark run: writes the config dir, starts the server under test, connects the clients in
 * worker threads, measures startup until every client is complete, then makes each planned edit and
 * measures how long every client takes to receive the edit's marker, with server CPU and bytes per phase.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now, TYPE_SHORT, TYPES } from './bench-client.js';
import type { BenchOptions } from './bench-options.js';
import { clientSpecs } from './client-specs.js';
import type { LoopTime, WorkerStats } from './client-worker.js';
import {
  benchService, generateMeshDocuments, newService, newServiceDocuments, serviceDocuments, serviceFile, NO_EDITS, type MeshSize, type ServiceEdits,
} from './config-gen.js';
import { writeConfig } from './config-sink.js';
import { meshdEnv, type BenchTarget, type ServerName } from './bench-target.js';
import { FULL_PUSH_SCENARIOS, SCENARIO_TYPES, planEdits, randomRunId, type PlannedEdit, type Scenario } from './markers.js';
import { toYaml as toYamlText } from './config-gen.js';
import { freePorts } from '../../../xds/testing/free-port.js';
import { fillCommand, ServerProcess } from './server-process.js';
import { summarize, type Summary } from '../stats.js';
import { WorkerPool } from './worker-pool.js';
import { runFold, type FoldRow } from '../fold/fold-bench.js';
import { measureRestart, type RestartResult } from './restart-phase.js';
import { measureFileSourceCost, type FileSourceCost } from './file-source-cost.js';
import { editServerPhases, parsePushSent, type EditServerPhases, type ServerPush } from './server-phases.js';
import { waitServerIdle, type IdleWait } from './server-idle.js';

const TYPE_URL_OF = { LDS: TYPES.lds, RDS: TYPES.rds, CDS: TYPES.cds, EDS: TYPES.eds } as const;

/** Traffic of one phase per type (short names CDS/EDS/LDS/RDS, or the type URL for others). */
export type TypeTraffic = Record<string, { bytes: number; responses: number }>;

/** The measurement of one edit. */
export interface EditResult {
  readonly scenario: Scenario;
  readonly round: number;
  readonly marker: string;
  readonly fullPush: boolean;
  /** Milliseconds from writing the edit to each client finding the marker. */
  readonly convergenceMs: Summary;
  /**
   * Milliseconds from writing the edit until its last write was answered: by the API server with `--source kube`
   * (its watch event goes out about then; see shared-floor.ts), or the files written.
   */
  readonly writeAnsweredMs?: number;
  /** Every client's convergence (ms, rounded to 0.1). */
  readonly samplesMs: readonly number[];
  /** Clients that never saw the marker within the deadline. */
  readonly missing: number;
  /** Which type the marker first arrived in, per client count. */
  readonly arrivedIn: Record<string, number>;
  /** Server CPU seconds from the write until the server was quiet again. */
  readonly serverCpuSeconds: number;
  /** Event-loop utilization of the client workers from the write to the last arrival (near 1: the clients, not the server, set the pace). */
  readonly clientLoopUtilization: number;
  readonly traffic: TypeTraffic;
  /** meshd: where the push's time went on the server (its `push sent` log line), ms from the write. */
  readonly server?: EditServerPhases;
}

/** Everything a run measured (written as JSON). */
export interface BenchResult {
  readonly startedAt: string;
  /** The server measured (meshd unless this is the reference run). */
  readonly serverName: ServerName;
  readonly options: Omit<BenchOptions, 'out'>;
  readonly serverCommand: string;
  readonly runId: string;
  readonly configDocuments: number;
  /** Spawn until the gRPC port accepted a connection. */
  readonly serverListenMs: number;
  /** Spawn to `/ready` answering 200 (all config read), when the server has that route. */
  readonly serverReadyMs?: number;
  readonly startup: {
    /** First connection attempt until every client had all its subscribed types answered and ACKed. */
    readonly allCompleteMs: number | undefined;
    readonly complete: number;
    readonly connectMs: Summary;
    readonly completeMs: Summary;
    readonly serverCpuSeconds: number;
    readonly clientLoopUtilization: number;
    readonly traffic: TypeTraffic;
  };
  /** `--restart`: the server's kill -9 and restart after startup. */
  readonly restart?: RestartResult;
  /** Before the first edit: the wait for the server to go idle (server-idle.ts); older runs lack it. */
  readonly settle?: IdleWait;
  readonly edits: readonly EditResult[];
  readonly server: {
    readonly cpuSecondsTotal: number;
    readonly peakRssBytes: number;
    readonly peakTreeRssSampledBytes: number;
  };
  readonly streamsReopened: number;
  /** Clients the server refused for good (they stopped reconnecting). */
  readonly refused: number;
  readonly endReasons: Record<string, number>;
  readonly machine: { readonly cpus: number; readonly loadAverage: readonly number[] };
  /**
   * Large-mesh case: the model's fold of one endpoint change on a mesh of the same size, measured
   * in-process after the run (bench:fold), since the server's CPU per change also holds the config
   * source's file handling and the pushes.
   */
  readonly fold?: FoldRow;
  /** Large-mesh case: the config-dir source's rescan of one changed file (see file-source-cost.ts), in-process after the run. */
  readonly fileSource?: FileSourceCost;
}

/** Thrown when the run cannot go on; carries the server's output for diagnosis. */
export class BenchRunError extends Error {
  constructor(
    message: string,
    readonly serverOutput: string,
  ) {
    super(message);
    this.name = 'BenchRunError';
  }
}

/** Busy share of the workers' event loops between two snapshots. */
function loopUtilization(before: WorkerStats, after: WorkerStats): number {
  const active = after.loop.active - before.loop.active;
  const idle = after.loop.idle - before.loop.idle;
  return active + idle > 0 ? active / (active + idle) : 0;
}

/** Mean busy share of the workers' event loops between per-worker snapshots (workers without an end are skipped). */
function meanUtilization(start: readonly LoopTime[], end: readonly (LoopTime | undefined)[]): number {
  const shares = start.flatMap((s, i) => {
    const e = end[i];
    if (!e || e.active + e.idle - s.active - s.idle <= 0) return [];
    return [(e.active - s.active) / (e.active + e.idle - s.active - s.idle)];
  });
  return shares.length > 0 ? shares.reduce((a, b) => a + b, 0) / shares.length : 0;
}

function trafficDelta(before: WorkerStats, after: WorkerStats): TypeTraffic {
  const out: TypeTraffic = {};
  for (const [t, a] of Object.entries(after.byType)) {
    const b = before.byType[t] ?? { bytes: 0, responses: 0 };
    if (a.responses === b.responses) continue;
    out[TYPE_SHORT[t] ?? t] = { bytes: a.bytes - b.bytes, responses: a.responses - b.responses };
  }
  return out;
}

/** Writes `files` through `write`, `limit` at a time. */
async function writeAll<T>(files: Iterable<T>, limit: number, write: (f: T) => Promise<void>): Promise<void> {
  const it = files[Symbol.iterator]();
  const next = async (): Promise<void> => {
    for (let r = it.next(); !r.done; r = it.next()) await write(r.value);
  };
  await Promise.all(Array.from({ length: limit }, next));
}

/**
 * Runs the benchmark against `target` (default: meshd from `--server-cmd` on the config dir, the
 * mode without `--source`/`--reference`); `log` gets progress lines.
 */
export async function runBench(opts: BenchOptions, log: (line: string) => void, cwd = process.cwd(), target?: BenchTarget): Promise<BenchResult> {
  const serverName: ServerName = target?.server ?? 'meshd';
  const startedAt = new Date().toISOString();
  const runId = randomRunId();
  const plan = planEdits(runId, opts.rounds, opts.scenarios);
  const size: MeshSize = { services: opts.services, namespaces: opts.namespaces, endpointsPerService: opts.endpointsPerService };
  const edited = benchService(0, opts.namespaces);
  let targetEdits: ServiceEdits = { ...NO_EDITS, plannedSubsets: plan.edits.filter((e) => e.scenario === 'new-subset').map((e) => e.marker) };

  const configDir = mkdtempSync(join(tmpdir(), 'mesh-bench-xds-'));
  const files = generateMeshDocuments(size, (s) => (s.index === 0 ? targetEdits : NO_EDITS));
  const sink = target?.sink(configDir);
  const write = async (rel: string, docs: ReturnType<typeof serviceDocuments>, mode: 'inplace' | 'rename'): Promise<void> => {
    if (sink) await sink.write(rel, docs);
    else writeConfig(configDir, rel, toYamlText(docs), mode);
  };
  await writeAll(files, target?.source === 'kube' ? 16 : 1, ([rel, docs]) => write(rel, docs, 'inplace'));
  const configDocuments = opts.services * (3 + opts.endpointsPerService);
  log(`${serverName}: config: ${configDocuments} documents in ${files.size} files ${target?.source === 'kube' ? 'applied to the API server' : `under ${configDir}`}`);

  const [grpcPort, httpPort, monitoringPort, ctrlzPort] = (await freePorts(4)) as [number, number, number, number];
  const grpcAddr = `127.0.0.1:${grpcPort}`;
  const command = fillCommand(target?.command ?? opts.serverCmd, {
    configDir, grpcAddr, grpcPort: String(grpcPort), httpAddr: `127.0.0.1:${httpPort}`, monitoringAddr: `127.0.0.1:${monitoringPort}`, ctrlzPort: String(ctrlzPort),
    kubeconfig: '', meshConfig: '', istiodBin: opts.istiodBin, ...target?.placeholders,
  });
  log(`server: ${command}`);
  const spawnAt = now();
  const serverPushes: ServerPush[] = [];
  const spawnServer = (): ServerProcess => {
    const s = ServerProcess.spawn(command, target?.env ?? meshdEnv(opts), cwd);
    s.onLine((line) => {
      const p = parsePushSent(line);
      if (p) serverPushes.push(p);
    });
    return s;
  };
  let server = spawnServer();
  const rssTimer = setInterval(() => server.sampleRss(), 250);
  let pool: WorkerPool | undefined;
  const fail = (message: string): never => {
    throw new BenchRunError(`${message}\nlast server output:\n${server.output.slice(-6000)}`, server.output);
  };
  try {
    await server.waitForPort(grpcPort, opts.timeoutMs);
    const serverListenMs = now() - spawnAt;
    log(`server listening after ${serverListenMs.toFixed(0)} ms (pid ${server.pid})`);
    // NOTE: clients start once meshd has read its whole config dir: else the first edits wait behind
    // the initial load (20 s at 10,000 services) and their CPU and times measure it, not the edit.
    const serverReady = await server.waitForReady(`127.0.0.1:${httpPort}`, opts.timeoutMs);
    const serverReadyMs = now() - spawnAt;
    log(serverReady ? `server ready after ${serverReadyMs.toFixed(0)} ms` : 'server has no /ready on {httpAddr}: clients start at once');

    const specs = clientSpecs({ ...opts, proxies: opts.proxies }, plan).map((c) => target?.node(c) ?? c);
    pool = new WorkerPool(grpcAddr, specs, opts.workers, opts.maxConnecting);
    const p = pool;
    const ready = await p.gather('ready', Date.now() + 60_000);
    if (ready.some((r) => r === undefined)) fail('a client worker did not start within 60 s');
    const waitQuiet = async (deadline: number): Promise<WorkerStats> => {
      for (;;) {
        const s = await p.stats();
        if (now() - s.lastResponseAt >= opts.quietMs || Date.now() > deadline) return s;
        if (server.exitStatus) fail('server exited during the run');
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // Startup: connect every client, wait until each has all its subscribed types answered and ACKed.
    const cpu0 = server.cpuSeconds();
    const stats0 = await p.stats();
    const t0 = now();
    p.broadcast({ cmd: 'start' });
    const deadline = Date.now() + opts.timeoutMs;
    const progress = setInterval(() => {
      p.stats().then(
        (st) => log(`startup: ${st.complete}/${specs.length} complete, ${st.refused} refused, ${st.ended} streams ended, ${(now() - t0) / 1000 | 0} s`),
        () => undefined,
      );
    }, 10_000);
    let done = await p.gather('all-complete', deadline).finally(() => clearInterval(progress));
    if (done.some((d) => d === undefined)) {
      p.broadcast({ cmd: 'complete-now' });
      const late = await p.gather('all-complete', Date.now() + 10_000);
      done = done.map((d, i) => d ?? late[i]);
    }
    const connected = done.flatMap((d) => d?.connectedAt ?? []);
    const completed = done.flatMap((d) => d?.completeAt ?? []);
    const statsStart = await waitQuiet(Date.now() + opts.timeoutMs);
    const cpu1 = server.cpuSeconds();
    const allComplete = completed.length === specs.length ? Math.max(...completed) - t0 : undefined;
    log(`startup: ${completed.length}/${specs.length} clients complete` + (allComplete !== undefined ? ` after ${allComplete.toFixed(0)} ms` : ''));
    if (completed.length === 0) {
      fail(`no client completed (refused: ${statsStart.refused}, streams ended: ${statsStart.ended}, reasons: ${JSON.stringify(statsStart.endReasons)})`);
    }

    let restart: RestartResult | undefined;
    if (opts.restart) {
      const r = await measureRestart(p, server, spawnServer, { grpcPort, httpAddr: `127.0.0.1:${httpPort}` }, opts, log);
      server = r.server;
      restart = r.result;
    }

    const settle = await waitServerIdle({ cpuSeconds: () => server.cpuSeconds(), deadline: Date.now() + opts.timeoutMs });
    const settleText = `${(settle.waitedMs / 1000).toFixed(1)} s, ${settle.cpuSeconds.toFixed(2)} s of server CPU meanwhile`;
    log(settle.idle ? `server idle after ${settleText}` : `server still busy after ${settleText}: the edits start anyway`);
    const edits: EditResult[] = [];
    // NOTE: a server that was settling may have sent responses meanwhile; the first edit's traffic starts after them.
    let statsBefore = await waitQuiet(Date.now() + opts.timeoutMs);
    for (const e of plan.edits) {
      if (server.exitStatus) fail('server exited during the run');
      edits.push(await measureEdit(e));
    }

    async function measureEdit(e: PlannedEdit): Promise<EditResult> {
      const watching = await p.ask({ cmd: 'watch', marker: e.marker, typeUrls: SCENARIO_TYPES[e.scenario].map((t) => TYPE_URL_OF[t]) }, 'watching');
      const cpuBefore = server.cpuSeconds();
      const writeAt = now();
      await applyEdit(e);
      const writeAnsweredMs = now() - writeAt;
      const arrivalsDeadline = Date.now() + opts.convergeTimeoutMs;
      let answers = await p.gather('arrivals', arrivalsDeadline);
      if (answers.some((a) => a === undefined)) {
        p.broadcast({ cmd: 'collect' });
        const late = await p.gather('arrivals', Date.now() + 10_000);
        answers = answers.map((a, i) => a ?? late[i]);
      }
      const times = answers.flatMap((a) => a?.times ?? []).map((t) => t - writeAt);
      const arrivedIn: Record<string, number> = {};
      for (const a of answers) for (const [t, n] of Object.entries(a?.types ?? {})) arrivedIn[TYPE_SHORT[t] ?? t] = (arrivedIn[TYPE_SHORT[t] ?? t] ?? 0) + n;
      const missing = answers.reduce((s, a) => s + (a?.missing ?? 0), 0);
      const after = await waitQuiet(Date.now() + opts.convergeTimeoutMs);
      const phases = editServerPhases(writeAt, serverPushes.splice(0));
      const r: EditResult = {
        scenario: e.scenario,
        round: e.round,
        marker: e.marker,
        fullPush: FULL_PUSH_SCENARIOS.has(e.scenario),
        convergenceMs: summarize(times),
        writeAnsweredMs: Math.round(writeAnsweredMs * 10) / 10,
        samplesMs: times.map((t) => Math.round(t * 10) / 10),
        missing,
        arrivedIn,
        serverCpuSeconds: server.cpuSeconds() - cpuBefore,
        clientLoopUtilization: meanUtilization(watching.map((w) => w.loop), answers.map((a) => a?.loop)),
        traffic: trafficDelta(statsBefore, after),
        ...(phases ? { server: phases } : {}),
      };
      statsBefore = after;
      const c = r.convergenceMs;
      const ms = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(0));
      const side = phases
        ? `; server (ms from the write): change seen ${ms(phases.changeSeenMs)}, published ${ms(phases.publishedMs)}, last write ${ms(phases.lastWriteMs)}, last flush ${ms(phases.lastFlushMs)}`
        : '';
      log(
        `${e.scenario} round ${e.round}: p50 ${c.p50?.toFixed(0)} ms, p99 ${c.p99?.toFixed(0)} ms, max ${c.max?.toFixed(0)} ms, missing ${missing}, ` +
          `server cpu ${r.serverCpuSeconds.toFixed(2)} s; write answered after ${writeAnsweredMs.toFixed(0)} ms${side}`,
      );
      return r;
    }

    async function applyEdit(e: PlannedEdit): Promise<void> {
      switch (e.scenario) {
        case 'vs-edit':
          targetEdits = { ...targetEdits, vsMarkers: [...targetEdits.vsMarkers, e.marker] };
          break;
        case 'new-subset':
          targetEdits = { ...targetEdits, addedSubsets: [...targetEdits.addedSubsets, e.marker] };
          break;
        case 'endpoint':
          targetEdits = { ...targetEdits, endpoint: { address: e.marker, weight: 2 + e.round } };
          break;
        case 'new-service': {
          const s = newService(e.marker);
          await write(serviceFile(s), newServiceDocuments(s, `10.250.${e.round}.7`), opts.writeMode);
          return;
        }
      }
      await write(serviceFile(edited), serviceDocuments(edited, size, targetEdits), opts.writeMode);
    }

    const final = await p.stats();
    const peak = server.peakRss();
    server.sampleRss();
    const result: BenchResult = {
      startedAt,
      serverName,
      options: { ...opts, out: undefined } as Omit<BenchOptions, 'out'>,
      serverCommand: command,
      runId,
      configDocuments,
      serverListenMs,
      ...(serverReady ? { serverReadyMs } : {}),
      startup: {
        allCompleteMs: allComplete,
        complete: completed.length,
        connectMs: summarize(connected.map((t) => t - t0)),
        completeMs: summarize(completed.map((t) => t - t0)),
        serverCpuSeconds: cpu1 - cpu0,
        clientLoopUtilization: loopUtilization(stats0, statsStart),
        traffic: trafficDelta(stats0, statsStart),
      },
      ...(restart ? { restart } : {}),
      settle,
      edits,
      server: { cpuSecondsTotal: server.cpuSeconds(), peakRssBytes: peak.vmHwm, peakTreeRssSampledBytes: server.peakRss().sampledTree },
      streamsReopened: final.ended - final.refused,
      refused: final.refused,
      endReasons: final.endReasons,
      machine: { cpus: (await import('node:os')).availableParallelism(), loadAverage: (await import('node:os')).loadavg() },
    };
    if (opts.case !== 'large-mesh' || serverName !== 'meshd') return result;
    // NOTE: measured after the server and clients are gone, so they do not share the CPUs with it.
    await pool.close();
    pool = undefined;
    await server.stop();
    log('fold: one endpoint change on a model of the same size, in-process');
    const fold: FoldRow | undefined = runFold({ sizes: [configDocuments], changes: 200, endpoints: opts.endpointsPerService })[0];
    // NOTE: with --source kube the configs went to the API server: there is no config dir to rescan.
    if (opts.source === 'kube') return { ...result, ...(fold ? { fold } : {}) };
    log('file source: one endpoint change in the same config dir, in-process');
    const fileSource = await measureFileSourceCost(configDir, size, 30);
    return { ...result, ...(fold ? { fold } : {}), fileSource };
  } finally {
    clearInterval(rssTimer);
    await pool?.close();
    await server.stop();
    target?.cleanup();
    if (!opts.keepDir) rmSync(configDir, { recursive: true, force: true });
  }
}
