// The server side of bench:ca: meshd's CA and certificate service on a grpc-js server over TLS (127.0.0.1,
// channelz off as in meshd), a fake TokenReviewer standing in for the API server, and one token per caller.
// Runs in a child process (the default) and answers the parent's cpu-start / stop messages with its CPU use
// and garbage-collection pauses. `floor` swaps the certificate service for floor-server.ts.
import { PerformanceObserver } from 'node:perf_hooks';
import {
  CertificateService, ClientCertificateAuthenticator, MemoryCaKeyStore, TokenAuthenticator, createMeshCa,
} from '../../../ca/index.js';
import { FakeTokenReviewer } from '../../../ca/testing/fake-token-reviewer.js';
import { createTestCaMetrics } from '../../../ca/testing/test-ca-metrics.js';
import { startTestCaServer } from '../../../ca/testing/test-ca-server.js';
import { startFloorServer } from './floor-server.js';
import { readThreadCpu, threadCpuSince, type ThreadCpu } from './thread-cpu.js';

export const TRUST_DOMAIN = 'cluster.local';
const HOUR = 3600_000;

/** What the callers need to reach the server. */
export interface ServerInfo {
  readonly address: string;
  readonly serverName: string;
  readonly rootCertPem: string;
  /** One token per caller, for service account `sa<i>` in namespace `bench`. */
  readonly tokens: string[];
  /** The gRPC service to call when it is not meshd's (istiod's `istio.v1.auth.IstioCertificateService`). */
  readonly service?: string;
}

/** Server CPU over the measured window. */
export interface ServerCpu {
  readonly seconds: number;
  /** Event-loop utilization, 0..1 (a Node server only). */
  readonly elu?: number;
  /** CPU seconds per server thread name (Linux only). */
  readonly threads?: ThreadCpu;
  /** Garbage-collection pauses of the main thread: how many, their total and the longest, ms (a Node server only). */
  readonly gc?: { readonly count: number; readonly totalMs: number; readonly maxMs: number };
}

/** Which server answers: meshd's certificate service, or the floor (floor-server.ts). */
export const SERVER_KINDS = ['mesh', 'floor'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Starts CA + service (or the floor) + TLS server with `callers` tokens. */
export async function startBenchServer(callers: number, kind: ServerKind = 'mesh'): Promise<{ info: ServerInfo; close: () => Promise<void> }> {
  const { ca } = await createMeshCa(
    {
      trustDomain: TRUST_DOMAIN,
      rootCaDir: '/nonexistent/mesh-ca-bench',
      selfSigned: { rootTtlMs: 87600 * HOUR, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
      workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 2160 * HOUR },
    },
    { selfSignedStore: new MemoryCaKeyStore() },
  );
  const reviewer = new FakeTokenReviewer();
  const service = new CertificateService({ trustDomain: TRUST_DOMAIN, trustedNodeAccounts: [] }, {
    ca,
    metrics: createTestCaMetrics(),
    authenticators: [
      new TokenAuthenticator({ trustDomain: TRUST_DOMAIN, audiences: ['mesh-ca'], require3pToken: true, jwtPolicy: 'third-party-jwt' }, reviewer),
      new ClientCertificateAuthenticator(ca, TRUST_DOMAIN),
    ],
  });
  const server = kind === 'floor' ? await startFloorServer(ca) : await startTestCaServer(ca, service, { 'grpc.enable_channelz': 0 });
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

/** Body of the child process: start, report `ready`, then measure CPU between `cpu-start` and `cpu-stop`. */
export async function runServerChild(callers: number, kind: ServerKind): Promise<void> {
  const server = await startBenchServer(callers, kind);
  let cpuStart = process.cpuUsage();
  let threadsStart = readThreadCpu();
  let eluStart = performance.eventLoopUtilization();
  let gc = { count: 0, totalMs: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc = { count: gc.count + 1, totalMs: gc.totalMs + entry.duration, maxMs: Math.max(gc.maxMs, entry.duration) };
  }).observe({ entryTypes: ['gc'] });
  const send = (msg: unknown): void => {
    process.send!(msg);
  };
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'cpu-start') {
      cpuStart = process.cpuUsage();
      threadsStart = readThreadCpu();
      eluStart = performance.eventLoopUtilization();
      gc = { count: 0, totalMs: 0, maxMs: 0 };
      send({ type: 'cpu-started' });
    } else if (msg.type === 'cpu-stop') {
      const used = process.cpuUsage(cpuStart);
      send({ type: 'cpu', cpu: { seconds: (used.user + used.system) / 1e6, elu: performance.eventLoopUtilization(eluStart).utilization, threads: threadCpuSince(threadsStart), gc } satisfies ServerCpu });
    } else if (msg.type === 'exit') {
      void server.close().then(() => process.exit(0));
    }
  });
  send({ type: 'ready', info: server.info });
}
