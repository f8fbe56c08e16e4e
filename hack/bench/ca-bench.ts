// npm run bench:ca -- [--callers 32] [--seconds 10] [--warmup 2] [--in-process] [--channelz]
// Measures meshd's certificate service: the server runs in a child process (or in-process with
// --in-process) over gRPC/TLS on 127.0.0.1; N callers, each on its own connection with its own token and a
// pre-generated RSA 2048 CSR, call CreateCertificate back to back for S seconds. Prints certificates per
// second, p50/p99 latency and CPU seconds of server and client.
import { fork } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  CertificateClient, CertificateService, ClientCertificateAuthenticator, MemoryCaKeyStore, TokenAuthenticator, createCsrPem, createMeshCa,
} from '../../ca/index.js';
import { FakeTokenReviewer } from '../../ca/testing/fake-token-reviewer.js';
import { createTestCaMetrics } from '../../ca/testing/test-ca-metrics.js';
import { startTestCaServer } from '../../ca/testing/test-ca-server.js';

const TD = 'cluster.local';
const HOUR = 3600_000;

interface ServerInfo {
  address: string;
  serverName: string;
  rootCertPem: string;
  tokens: string[];
}

interface Flags {
  callers: number;
  seconds: number;
  warmup: number;
  inProcess: boolean;
  child: boolean;
  /** Keep grpc-js channelz on (it is off by default in the bench, as meshd should run it). */
  channelz: boolean;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { callers: 32, seconds: 10, warmup: 2, inProcess: false, child: false, channelz: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const num = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg}: expected a positive number, got "${argv[i]}"`);
      return v;
    };
    if (arg === '--callers') flags.callers = Math.floor(num());
    else if (arg === '--seconds') flags.seconds = num();
    else if (arg === '--warmup') flags.warmup = num();
    else if (arg === '--in-process') flags.inProcess = true;
    else if (arg === '--child') flags.child = true;
    else if (arg === '--channelz') flags.channelz = true;
    else throw new Error(`unknown flag ${arg} (use --callers N, --seconds S, --warmup S, --in-process, --channelz)`);
  }
  return flags;
}

/** Starts CA + service + TLS server; issues one token per caller. */
async function startServer(callers: number, channelzOff: boolean): Promise<{ info: ServerInfo; close: () => Promise<void> }> {
  const { ca } = await createMeshCa(
    {
      trustDomain: TD,
      rootCaDir: '/nonexistent/mesh-ca-bench',
      selfSigned: { rootTtlMs: 87600 * HOUR, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
      workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 2160 * HOUR },
    },
    { selfSignedStore: new MemoryCaKeyStore() },
  );
  const reviewer = new FakeTokenReviewer();
  const service = new CertificateService({ trustDomain: TD, trustedNodeAccounts: [] }, {
    ca,
    metrics: createTestCaMetrics(),
    authenticators: [
      new TokenAuthenticator({ trustDomain: TD, audiences: ['mesh-ca'], require3pToken: true, jwtPolicy: 'third-party-jwt' }, reviewer),
      new ClientCertificateAuthenticator(ca, TD),
    ],
  });
  const server = await startTestCaServer(ca, service, channelzOff ? { 'grpc.enable_channelz': 0 } : {});
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const tokens = Array.from({ length: callers }, (_, i) => reviewer.issue({ namespace: 'bench', serviceAccount: `sa${i}`, audiences: ['mesh-ca'], exp }));
  return {
    info: { address: server.address, serverName: server.serverName, rootCertPem: server.rootCertPem, tokens },
    close: async () => {
      service.close();
      await server.close();
    },
  };
}

async function runChild(flags: Flags): Promise<void> {
  const server = await startServer(flags.callers, !flags.channelz);
  let cpuStart = process.cpuUsage();
  let eluStart = performance.eventLoopUtilization();
  const send = (msg: unknown): void => {
    process.send!(msg);
  };
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'cpu-start') {
      cpuStart = process.cpuUsage();
      eluStart = performance.eventLoopUtilization();
      send({ type: 'cpu-started' });
    } else if (msg.type === 'stop') {
      const used = process.cpuUsage(cpuStart);
      send({ type: 'cpu', seconds: (used.user + used.system) / 1e6, elu: performance.eventLoopUtilization(eluStart).utilization });
      void server.close().then(() => process.exit(0));
    }
  });
  send({ type: 'ready', info: server.info });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.child) return runChild(flags);

  console.log(`ca-bench: ${flags.callers} callers, ${flags.warmup}s warm-up, ${flags.seconds}s measured, server ${flags.inProcess ? 'in-process' : 'in a child process'}`);
  let info: ServerInfo;
  let stopServer: () => Promise<{ seconds: number; elu: number } | undefined>;
  let startServerCpu: () => Promise<void>;
  if (flags.inProcess) {
    const server = await startServer(flags.callers, !flags.channelz);
    info = server.info;
    stopServer = async () => {
      await server.close();
      return undefined;
    };
    startServerCpu = () => Promise.resolve();
  } else {
    const child = fork(fileURLToPath(import.meta.url), ['--child', '--callers', String(flags.callers), ...(flags.channelz ? ['--channelz'] : [])], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const next = (type: string): Promise<Record<string, unknown>> => new Promise((resolve, reject) => {
      const onMessage = (msg: Record<string, unknown>): void => {
        if (msg.type !== type) return;
        child.off('message', onMessage);
        resolve(msg);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`bench server exited with code ${code} before "${type}"`)));
    });
    info = (await next('ready')).info as ServerInfo;
    startServerCpu = async () => {
      const started = next('cpu-started');
      child.send({ type: 'cpu-start' });
      await started;
    };
    stopServer = async () => {
      const cpu = next('cpu');
      child.send({ type: 'stop' });
      const msg = await cpu;
      return { seconds: msg.seconds as number, elu: msg.elu as number };
    };
  }

  console.log('ca-bench: generating RSA 2048 keys and CSRs ...');
  const csrs = info.tokens.map((_, i) => createCsrPem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, { uris: [`spiffe://${TD}/ns/bench/sa/sa${i}`] }));
  const clients = info.tokens.map((token) => new CertificateClient({
    address: info.address, rootCertPem: info.rootCertPem, serverName: info.serverName, token: () => token,
    channelOptions: { 'grpc.use_local_subchannel_pool': 1, ...(flags.channelz ? {} : { 'grpc.enable_channelz': 0 }) },
  }));

  let measuring = false;
  let stopAt = Date.now() + flags.warmup * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const loop = async (i: number): Promise<void> => {
    while (Date.now() < stopAt) {
      const t0 = performance.now();
      try {
        await clients[i]!.createCertificate(csrs[i]!);
        if (measuring) latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        if (errors <= 3) console.error(`ca-bench: caller ${i}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(clients.map((_, i) => loop(i)));

  await startServerCpu();
  const clientCpu0 = process.cpuUsage();
  measuring = true;
  const t0 = performance.now();
  stopAt = Date.now() + flags.seconds * 1000;
  await Promise.all(clients.map((_, i) => loop(i)));
  const elapsed = (performance.now() - t0) / 1000;
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverCpu = await stopServer();
  for (const c of clients) c.close();

  latencies.sort((a, b) => a - b);
  const rate = latencies.length / elapsed;
  console.log(`machine: ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine lowers these numbers)`);
  console.log(`certificates: ${latencies.length} in ${elapsed.toFixed(2)}s, errors: ${errors}`);
  console.log(`certificates/second: ${rate.toFixed(0)}`);
  console.log(`latency ms: p50 ${percentile(latencies, 50).toFixed(2)}, p99 ${percentile(latencies, 99).toFixed(2)}, max ${latencies[latencies.length - 1]?.toFixed(2)}`);
  const clientSeconds = (clientCpu.user + clientCpu.system) / 1e6;
  console.log(serverCpu === undefined
    ? `CPU seconds (server and clients in one process): ${clientSeconds.toFixed(2)}`
    : `CPU seconds: server ${serverCpu.seconds.toFixed(2)} (${((serverCpu.seconds / latencies.length) * 1000).toFixed(3)} ms/cert, event loop ${(serverCpu.elu * 100).toFixed(0)}% busy), clients ${clientSeconds.toFixed(2)}`);
}

main().catch((err: unknown) => {
  console.error(`ca-bench: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
