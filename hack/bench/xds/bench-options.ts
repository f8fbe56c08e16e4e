/** Command line of `npm run bench:xds`, parsed once into typed options. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SERVER_CMD } from './server-process.js';
import type { ProxyType } from './bench-client.js';
import { SCENARIOS, type Scenario } from './markers.js';
import { XDS_PROTOCOLS, type XdsProtocol } from './subscriptions.js';

/** Named cases: `default` (S services, N clients, the four edits) and `large-mesh` (see LARGE_MESH). */
export const BENCH_CASES = ['default', 'large-mesh'] as const;
export type BenchCase = (typeof BENCH_CASES)[number];

/**
 * The large-mesh case: 10,000 services with 5 endpoints each (50,000 WorkloadEntries) and a few clients,
 * then endpoint changes only; it measures what one endpoint change costs the server at that size (server
 * CPU per change, and the time from the change to the EDS bytes at the clients). Flags given explicitly win.
 */
export const LARGE_MESH = { services: 10_000, endpointsPerService: 5, proxies: 10, scenarios: ['endpoint'] as readonly Scenario[] } as const;

/** Where the servers read config from: a config dir, or a real API server (the e2e control plane). */
export const BENCH_SOURCES = ['files', 'kube'] as const;
export type BenchSource = (typeof BENCH_SOURCES)[number];

/** Where istiod is built to by default (see ../shared/notes/istiod-reference.md). */
export const DEFAULT_ISTIOD_BIN = join(homedir(), '.cache', 'mesh', 'istiod', 'pilot-discovery');

/** Every option of a run. Durations in milliseconds. */
export interface BenchOptions {
  readonly case: BenchCase;
  /** The edits of each round, in order (the large-mesh case: endpoint changes only). */
  readonly scenarios: readonly Scenario[];
  readonly services: number;
  readonly proxies: number;
  readonly proxyType: ProxyType;
  /**
   * `--xds`: the clients' ADS variant. `delta` also sets MESH_DELTA_XDS=true for meshd (send only what changed) and
   * ISTIO_DELTA_XDS=true for istiod (its default); current Istio sidecars speak delta by default.
   */
  readonly xds: XdsProtocol;
  readonly namespaces: number;
  readonly endpointsPerService: number;
  /** Proxyless: listeners each client asks for (the edited service's is always one of them). */
  readonly listenersPerClient: number;
  /** Rounds of the four edits. */
  readonly rounds: number;
  /** Client worker threads. */
  readonly workers: number;
  /** Connections being set up at a time (over all workers). */
  readonly maxConnecting: number;
  /** Shell command line of the server, with `{placeholders}`. */
  readonly serverCmd: string;
  /** Extra environment of the server (`--server-env K=V`, repeatable). */
  readonly serverEnv: Readonly<Record<string, string>>;
  /** Where to write the JSON result; undefined = `bench-results/xds-<timestamp>.json`. */
  readonly out: string | undefined;
  readonly quick: boolean;
  /** Deadline of startup (server listening, all clients complete). */
  readonly timeoutMs: number;
  /** Deadline of each edit's convergence (clients that miss it are counted as missing). */
  readonly convergeTimeoutMs: number;
  /** How long no client may receive anything before the server counts as quiet. */
  readonly quietMs: number;
  readonly keepDir: boolean;
  /** How edits are written: rewrite the file (default) or replace it by rename. */
  readonly writeMode: 'inplace' | 'rename';
  /** `--source`: config files (default) or objects in a real API server that the servers watch. */
  readonly source: BenchSource;
  /** `--reference istiod`: run istiod after meshd with the same config and clients, and compare. */
  readonly reference: 'istiod' | undefined;
  /** `--istiod-bin`: the istiod (pilot-discovery) binary of the reference run. */
  readonly istiodBin: string;
  /** `--restart`: after startup, kill -9 the server, start it again and measure the reconnection (then the edits). */
  readonly restart: boolean;
}

export const USAGE = `usage: npm run bench:xds -- [--case default|large-mesh] --services S --proxies N [--proxy-type grpc|sidecar] [--xds sotw|delta] [--server-cmd "..."]
  [--namespaces 10] [--endpoints 2] [--listeners 3] [--rounds 3] [--workers 1] [--max-connecting 200]
  [--server-env K=V]... [--out FILE] [--quick] [--timeout-ms 300000] [--converge-timeout-ms 30000] [--quiet-ms 500] [--keep-dir]
  [--write-mode inplace|rename] [--source files|kube] [--reference istiod] [--istiod-bin PATH] [--restart]
--restart: once every client is complete, kill -9 the server and start it again on the same ports; reports the
  time to every client reconnected and converged and how admission spread the herd, then runs the edits.
--xds delta: the clients speak incremental ADS (DeltaAggregatedResources) as current Istio sidecars do; meshd
  runs with MESH_DELTA_XDS=true (only changed resources are sent), istiod with ISTIO_DELTA_XDS=true.
--source kube: configs are applied through a real kube-apiserver (e2e harness) that the servers watch.
--reference istiod: after meshd, the same run against istiod (configs and node metadata renamed to
  istio.io), then both reports and the ratios meshd/istiod. --istiod-bin default: ${DEFAULT_ISTIOD_BIN}
server command placeholders: {configDir} {grpcAddr} {grpcPort} {httpAddr} {monitoringAddr} {ctrlzPort} {kubeconfig} {meshConfig} {istiodBin}
default server command: ${DEFAULT_SERVER_CMD}
to profile the server, run it under node yourself, e.g.
  --server-cmd "node --cpu-prof --cpu-prof-dir=/tmp/prof ${DEFAULT_SERVER_CMD}"`;

/** Thrown for a bad command line; the message names the flag. */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = 'BenchUsageError';
  }
}

/** Parses the arguments after `--`. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const given = new Set<string>();
  const o = {
    case: 'default' as BenchCase,
    scenarios: SCENARIOS as readonly Scenario[],
    services: 100,
    proxies: 100,
    proxyType: 'grpc' as ProxyType,
    xds: 'sotw' as XdsProtocol,
    namespaces: 10,
    endpointsPerService: 2,
    listenersPerClient: 3,
    rounds: quick ? 1 : 3,
    workers: 1,
    maxConnecting: 200,
    serverCmd: DEFAULT_SERVER_CMD,
    serverEnv: {} as Record<string, string>,
    out: undefined as string | undefined,
    quick,
    timeoutMs: quick ? 30_000 : 300_000,
    convergeTimeoutMs: quick ? 10_000 : 30_000,
    quietMs: quick ? 300 : 500,
    keepDir: false,
    writeMode: 'inplace' as 'inplace' | 'rename',
    source: 'files' as BenchSource,
    reference: undefined as 'istiod' | undefined,
    istiodBin: DEFAULT_ISTIOD_BIN,
    restart: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    given.add(flag);
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new BenchUsageError(`${flag}: missing value`);
      return v;
    };
    const int = (min: number): number => {
      const text = value();
      const v = Number(text);
      if (!Number.isInteger(v) || v < min) throw new BenchUsageError(`${flag}: expected an integer >= ${min}, got "${text}"`);
      return v;
    };
    switch (flag) {
      case '--case': {
        const v = value();
        if (!(BENCH_CASES as readonly string[]).includes(v)) throw new BenchUsageError(`--case: expected ${BENCH_CASES.join(' or ')}, got "${v}"`);
        o.case = v as BenchCase;
        break;
      }
      case '--services': o.services = int(1); break;
      case '--proxies': o.proxies = int(1); break;
      case '--proxy-type': {
        const v = value();
        if (v !== 'grpc' && v !== 'sidecar') throw new BenchUsageError(`--proxy-type: expected grpc or sidecar, got "${v}"`);
        o.proxyType = v;
        break;
      }
      case '--xds': {
        const v = value();
        if (!(XDS_PROTOCOLS as readonly string[]).includes(v)) throw new BenchUsageError(`--xds: expected ${XDS_PROTOCOLS.join(' or ')}, got "${v}"`);
        o.xds = v as XdsProtocol;
        break;
      }
      case '--namespaces': o.namespaces = int(1); break;
      case '--endpoints': o.endpointsPerService = int(1); break;
      case '--listeners': o.listenersPerClient = int(1); break;
      case '--rounds': o.rounds = int(1); break;
      case '--workers': o.workers = int(1); break;
      case '--max-connecting': o.maxConnecting = int(1); break;
      case '--server-cmd': o.serverCmd = value(); break;
      case '--server-env': {
        const kv = value();
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new BenchUsageError(`--server-env: expected K=V, got "${kv}"`);
        o.serverEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
        break;
      }
      case '--out': o.out = value(); break;
      case '--quick': break;
      case '--timeout-ms': o.timeoutMs = int(1); break;
      case '--converge-timeout-ms': o.convergeTimeoutMs = int(1); break;
      case '--quiet-ms': o.quietMs = int(1); break;
      case '--keep-dir': o.keepDir = true; break;
      case '--write-mode': {
        const v = value();
        if (v !== 'inplace' && v !== 'rename') throw new BenchUsageError(`--write-mode: expected inplace or rename, got "${v}"`);
        o.writeMode = v;
        break;
      }
      case '--source': {
        const v = value();
        if (!(BENCH_SOURCES as readonly string[]).includes(v)) throw new BenchUsageError(`--source: expected ${BENCH_SOURCES.join(' or ')}, got "${v}"`);
        o.source = v as BenchSource;
        break;
      }
      case '--reference': {
        const v = value();
        if (v !== 'istiod') throw new BenchUsageError(`--reference: expected istiod, got "${v}"`);
        o.reference = v;
        break;
      }
      case '--istiod-bin': o.istiodBin = value(); break;
      case '--restart': o.restart = true; break;
      default: throw new BenchUsageError(`unknown flag "${flag}"`);
    }
  }
  if (given.has('--istiod-bin') && o.reference === undefined) throw new BenchUsageError('--istiod-bin: only with --reference istiod');
  if (o.rounds > 200) throw new BenchUsageError(`--rounds: at most 200, got ${o.rounds}`);
  if (o.case === 'large-mesh') {
    if (!given.has('--services')) o.services = LARGE_MESH.services;
    if (!given.has('--endpoints')) o.endpointsPerService = LARGE_MESH.endpointsPerService;
    if (!given.has('--proxies')) o.proxies = LARGE_MESH.proxies;
    o.scenarios = LARGE_MESH.scenarios;
  }
  return o;
}
