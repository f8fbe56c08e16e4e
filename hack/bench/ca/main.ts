// npm run bench:ca -- [--callers 32] [--seconds 10] [--warmup 2] [--rate 1500] [--client go|http2|grpc-js]
//                      [--server mesh|floor] [--in-process] [--reference istiod [--istiod-bin PATH] [--istiod-kube-qps Q]]
// Measures meshd's certificate service over gRPC/TLS on 127.0.0.1. The server runs in a child process (or
// in-process); N callers, each on its own connection with its own token and a pre-generated RSA 2048 CSR,
// call CreateCertificate in two phases: back to back (the most the server can do at N concurrent callers)
// and at a fixed offered rate (latency at that load). Prints certificates per second, p50/p99 latency and
// CPU of server and callers and the hypervisor's steal for each phase. The callers are grpc-go by default
// (see go-load-driver.ts). `--server floor` measures Node's own floor instead (floor-server.ts).
// BENCH_SERVER_NODE_ARGS passes Node flags to the server child (e.g. --cpu-prof).
// `--reference istiod`: after meshd, the same callers, CSRs (RSA 2048) and token authentication against
// istiod's CA (istiod-ca.ts, beside a real API server); the fixed-rate phase of both then offers half of
// meshd's measured maximum, and a table compares the two.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createCsrPem } from '../../../ca/index.js';
import { MESHD_V8_FLAGS } from '../../../cli/pilot-discovery/v8-flags.js';
import { summarize } from '../stats.js';
import { measureSteal } from './steal.js';
import { SERVER_KINDS, runServerChild, startBenchServer, TRUST_DOMAIN, type ServerCpu, type ServerInfo, type ServerKind } from './bench-server.js';
import { NODE_CALLER_KINDS, createCaller, type CallerTarget, type NodeCallerKind } from './callers.js';
import { GoLoadDriver, buildGoLoadgen } from './go-load-driver.js';
import { NodeLoadDriver, type LoadDriver, type Phase } from './load.js';
import { startIstiodCa } from './istiod-ca.js';
import { startBenchCluster } from '../kube-cluster.js';
import { DEFAULT_ISTIOD_BIN } from '../xds/bench-options.js';
import { formatCaComparison, type Measured } from './compare.js';

const CLIENT_KINDS = ['go', ...NODE_CALLER_KINDS] as const;
type ClientKind = (typeof CLIENT_KINDS)[number];

/** The issue's target on this 2-core machine. */
const TARGET = { certsPerSecond: 1500, p99Ms: 20 };


interface Flags {
  callers: number;
  seconds: number;
  warmup: number;
  rate: number;
  client: ClientKind;
  server: ServerKind;
  inProcess: boolean;
  child: boolean;
  reference: 'istiod' | undefined;
  istiodBin: string;
  /** `--istiod-kube-qps`: istiod's kube client rate limit (its TokenReviews); 0 = istiod's default. */
  istiodKubeQps: number;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { callers: 32, seconds: 10, warmup: 2, rate: TARGET.certsPerSecond, client: 'go', server: 'mesh', inProcess: false, child: false, reference: undefined, istiodBin: DEFAULT_ISTIOD_BIN, istiodKubeQps: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg}: needs a value`);
      return v;
    };
    const num = (min: number): number => {
      const v = Number(value());
      if (!Number.isFinite(v) || v < min) throw new Error(`${arg}: expected a number >= ${min}, got "${argv[i]}"`);
      return v;
    };
    if (arg === '--callers') flags.callers = Math.floor(num(1));
    else if (arg === '--seconds') flags.seconds = num(0.1);
    else if (arg === '--warmup') flags.warmup = num(0);
    else if (arg === '--rate') flags.rate = num(0);
    else if (arg === '--client') {
      const kind = value();
      if (!(CLIENT_KINDS as readonly string[]).includes(kind)) throw new Error(`--client: expected one of ${CLIENT_KINDS.join(', ')}, got "${kind}"`);
      flags.client = kind as ClientKind;
    } else if (arg === '--server') {
      const kind = value();
      if (!(SERVER_KINDS as readonly string[]).includes(kind)) throw new Error(`--server: expected one of ${SERVER_KINDS.join(', ')}, got "${kind}"`);
      flags.server = kind as ServerKind;
    } else if (arg === '--reference') {
      const v = value();
      if (v !== 'istiod') throw new Error(`--reference: expected istiod, got "${v}"`);
      flags.reference = v;
    } else if (arg === '--istiod-bin') flags.istiodBin = value();
    else if (arg === '--istiod-kube-qps') flags.istiodKubeQps = Math.floor(num(0));
    else if (arg === '--in-process') flags.inProcess = true;
    else if (arg === '--child') flags.child = true;
    else throw new Error(`unknown flag ${arg} (use --callers N, --seconds S, --warmup S, --rate R (0 skips that phase), --client ${CLIENT_KINDS.join('|')}, --server ${SERVER_KINDS.join('|')}, --in-process, --reference istiod, --istiod-bin PATH, --istiod-kube-qps Q)`);
  }
  if (flags.reference && (flags.server !== 'mesh' || flags.inProcess)) throw new Error('--reference istiod: compares meshd\'s certificate service in a child process (no --server floor, no --in-process)');
  return flags;
}

/** The server as the parent sees it, in a child process or in this one. */
interface ServerHandle {
  readonly info: ServerInfo;
  /** Starts counting server CPU (no-op in-process: callers and server share one process's counters). */
  cpuStart(): Promise<void>;
  cpuStop(): Promise<ServerCpu | undefined>;
  close(): Promise<void>;
}

async function inProcessServer(callers: number, kind: ServerKind): Promise<ServerHandle> {
  const server = await startBenchServer(callers, kind);
  return { info: server.info, cpuStart: () => Promise.resolve(), cpuStop: () => Promise.resolve(undefined), close: server.close };
}

/**
 * The server child's Node flags: meshd's own (MESHD_V8_FLAGS, as bin/pilot-discovery runs it; without them Node's
 * larger young generation gave 30-50 ms scavenges and a 90 ms p99 at 920/s), then BENCH_SERVER_NODE_ARGS.
 */
function serverNodeArgs(): string[] {
  return [...MESHD_V8_FLAGS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}

async function childServer(callers: number, kind: ServerKind): Promise<ServerHandle> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child', '--callers', String(callers), '--server', kind], { execArgv: serverNodeArgs(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = (type: string): Promise<Record<string, unknown>> => new Promise((resolve, reject) => {
    const onMessage = (msg: Record<string, unknown>): void => {
      if (msg.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg);
    };
    const onExit = (code: number | null): void => reject(new Error(`bench server exited with code ${code} before "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  const info = (await next('ready')).info as ServerInfo;
  return {
    info,
    cpuStart: async () => {
      const started = next('cpu-started');
      child.send({ type: 'cpu-start' });
      await started;
    },
    cpuStop: async () => {
      const cpu = next('cpu');
      child.send({ type: 'cpu-stop' });
      return (await cpu).cpu as ServerCpu;
    },
    close: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'exit' });
    }),
  };
}

/** Runs `phase` while counting server CPU, then prints one block. */
async function measure(title: string, server: ServerHandle, driver: LoadDriver, phase: Phase): Promise<Measured> {
  await server.cpuStart();
  const steal = measureSteal();
  const result = await driver.run(phase);
  const stolen = steal();
  const serverCpu = await server.cpuStop();
  const n = result.latenciesMs.length;
  const rate = n / result.elapsedSeconds;
  const s = summarize(result.latenciesMs);
  const ms = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(2));
  const perCert = (seconds: number): string => `${((seconds / Math.max(1, n)) * 1000).toFixed(3)} ms/cert`;
  console.log(`\n${title}`);
  console.log(`  certificates: ${n} in ${result.elapsedSeconds.toFixed(2)} s = ${rate.toFixed(0)}/s, errors: ${result.errors}${result.firstError ? ` (first: ${result.firstError})` : ''}`);
  console.log(`  latency ms: p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`);
  console.log(serverCpu === undefined
    ? `  CPU (server and callers in one process): ${result.cpuSeconds.toFixed(2)} s, ${perCert(result.cpuSeconds)}`
    : `  CPU: server ${serverCpu.seconds.toFixed(2)} s (${perCert(serverCpu.seconds)}${serverCpu.elu === undefined ? '' : `, event loop ${(serverCpu.elu * 100).toFixed(0)}% busy`}), callers ${result.cpuSeconds.toFixed(2)} s (${perCert(result.cpuSeconds)})`);
  if (serverCpu) {
    const cpus = availableParallelism();
    const cores = (serverCpu.seconds + result.cpuSeconds) / result.elapsedSeconds;
    console.log(`  machine busy: server and callers used ${cores.toFixed(2)} of ${cpus} CPUs (${((cores / cpus) * 100).toFixed(0)}%; near 100% the wait for a CPU dominates latency)`);
    if (serverCpu.threads) {
      const busiest = Object.entries(serverCpu.threads).filter(([, seconds]) => (seconds / Math.max(1, n)) * 1000 >= 0.005).sort((a, b) => b[1] - a[1]);
      console.log(`  server threads: ${busiest.map(([name, seconds]) => `${name} ${perCert(seconds)}`).join(', ')}`);
    }
    if (serverCpu.gc) console.log(`  server GC pauses (main thread): ${serverCpu.gc.count}, ${serverCpu.gc.totalMs.toFixed(0)} ms in all, longest ${serverCpu.gc.maxMs.toFixed(1)} ms`);
  }
  if (stolen !== undefined) console.log(`  hypervisor steal: ${(stolen * 100).toFixed(0)}% of the machine's CPU time${stolen > 0.03 ? ' (other guests took CPU: the numbers above are low)' : ''}`);
  return { rate: result.errors > 0 ? 0 : rate, p50: s.p50, p99: s.p99, errors: result.errors };
}

async function startDriver(flags: Flags, targets: CallerTarget[]): Promise<LoadDriver> {
  if (flags.client !== 'go') return new NodeLoadDriver(targets.map((t) => createCaller(flags.client as NodeCallerKind, t))).start(flags.warmup);
  if (flags.inProcess) throw new Error('--in-process: the server shares a process with the callers only with --client http2 or grpc-js');
  console.log('bench:ca: building the grpc-go load generator (hack/bench/ca/loadgen) ...');
  return GoLoadDriver.start(await buildGoLoadgen(), targets, flags.warmup);
}

/** istiod's CA as a ServerHandle: CPU from /proc (no event loop, no GC pauses to report). */
async function istiodServer(flags: Flags, log: (line: string) => void): Promise<ServerHandle> {
  const cluster = await startBenchCluster(['istio-system'], log);
  try {
    const ca = await startIstiodCa(flags.istiodBin, cluster, flags.callers, log, flags.istiodKubeQps);
    let cpu0 = 0;
    return {
      info: ca.info,
      cpuStart: () => {
        cpu0 = ca.cpuSeconds();
        return Promise.resolve();
      },
      cpuStop: () => Promise.resolve({ seconds: ca.cpuSeconds() - cpu0 }),
      close: async () => {
        await ca.close();
        await cluster.stop();
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/** Both phases against one server: back to back, then at `rate` (0: from the first phase, half its maximum). */
async function runPhases(name: string, flags: Flags, server: ServerHandle, csrs: readonly string[], rate: number): Promise<{ saturated: Measured; atRate: Measured | undefined; rate: number }> {
  const targets = server.info.tokens.map((token, i) => ({ ...server.info, token, csrPem: csrs[i]! }));
  const driver = await startDriver(flags, targets);
  try {
    const saturated = await measure(`${name}: back to back, ${flags.callers} callers:`, server, driver, { kind: 'back-to-back', seconds: flags.seconds });
    const offered = rate === 0 && flags.reference ? Math.max(1, Math.round(saturated.rate / 2)) : rate;
    const atRate = offered > 0
      ? await measure(`${name}: fixed rate: ${offered}/s offered by ${flags.callers} callers (latency counted from each call's scheduled time):`, server, driver, { kind: 'fixed-rate', seconds: flags.seconds, rate: offered })
      : undefined;
    return { saturated, atRate, rate: offered };
  } finally {
    await driver.close();
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.child) return runServerChild(flags.callers, flags.server);
  if (flags.reference && !existsSync(flags.istiodBin)) {
    throw new Error(`--reference istiod: no istiod binary at ${flags.istiodBin} (build it as ../shared/notes/istiod-reference.md says, or pass --istiod-bin PATH)`);
  }

  const serverKind = flags.server === 'floor' ? 'the floor (node:http2 and one RSA signature per call, not meshd)' : "meshd's certificate service";
  console.log(`bench:ca: ${flags.callers} ${flags.client === 'go' ? 'grpc-go' : flags.client} callers, RSA 2048, ${flags.warmup} s warm-up, ${flags.seconds} s per phase, server: ${serverKind} ${flags.inProcess ? 'in-process' : 'in a child process'}${flags.reference ? ', then istiod (reference)' : ''}`);
  const server = flags.inProcess ? await inProcessServer(flags.callers, flags.server) : await childServer(flags.callers, flags.server);
  console.log('bench:ca: generating RSA 2048 keys and CSRs ...');
  const csrs = server.info.tokens.map((_t, i) =>
    createCsrPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, { uris: [`spiffe://${TRUST_DOMAIN}/ns/bench/sa/sa${i}`] }),
  );
  // NOTE: with a reference, the fixed-rate phase offers half of meshd's measured maximum (the issue's load).
  const mesh = await runPhases('meshd', flags, server, csrs, flags.reference ? 0 : flags.rate).finally(() => server.close());
  const { saturated, atRate } = mesh;

  if (flags.reference) {
    const log = (line: string): void => console.log(`bench:ca: ${line}`);
    const istiodHandle = await istiodServer(flags, log);
    const istiod = await runPhases('istiod', flags, istiodHandle, csrs, mesh.rate).finally(() => istiodHandle.close());
    console.log(`\nmachine: ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine lowers these numbers)`);
    console.log(`\nmeshd vs istiod (same ${flags.callers} ${flags.client === 'go' ? 'grpc-go' : flags.client} callers, RSA 2048 CSRs, service-account tokens):`);
    console.log(formatCaComparison(mesh, istiod, mesh.rate, flags.callers));
    return;
  }

  console.log(`\nmachine: ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine lowers these numbers)`);
  const yes = (ok: boolean): string => (ok ? 'YES' : 'NO');
  console.log(`target >= ${TARGET.certsPerSecond} certificates/s back to back: ${yes(saturated.rate >= TARGET.certsPerSecond)} (${saturated.rate.toFixed(0)}/s)`);
  console.log(`target p99 < ${TARGET.p99Ms} ms back to back at ${flags.callers} callers: ${yes(saturated.p99 !== undefined && saturated.rate > 0 && saturated.p99 < TARGET.p99Ms)} (p99 ${saturated.p99?.toFixed(2) ?? '-'} ms)`);
  if (atRate && flags.rate >= TARGET.certsPerSecond) {
    console.log(`target p99 < ${TARGET.p99Ms} ms at ${flags.rate}/s from ${flags.callers} callers: ${yes(atRate.p99 !== undefined && atRate.rate > 0 && atRate.p99 < TARGET.p99Ms)} (p99 ${atRate.p99?.toFixed(2) ?? '-'} ms)`);
  }
}

main().catch((err: unknown) => {
  console.error(`bench:ca: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
