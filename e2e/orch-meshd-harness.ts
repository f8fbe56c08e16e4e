/**
 * Support for the orchestrator e2e tests: meshd as a real child process (`bin/pilot-discovery discovery
 * --orchconfig ... --registries Orchestrator`), echo gRPC backends on loopback addresses that stand in for
 * pod IPs, proxyless @grpc/grpc-js-xds clients, and reads of meshd's debug endpoints.
 */
import type { ChildProcess } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import * as grpcXds from '@grpc/grpc-js-xds';
import { spawnMeshd, waitFor, type MeshdChild, type MeshdPorts } from './harness/index.js';
import { closeGrpcServer } from '../core/index.js';

const ECHO_METHOD = '/mesh.e2e.Echo/Call';
const raw = (b: Buffer): Buffer => b;
const ECHO_SERVICE: grpc.ServiceDefinition = {
  Call: { path: ECHO_METHOD, requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
};

/** A gRPC echo backend answering with its name. */
export interface EchoBackend {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts an echo backend named `name` on `host:port` (port 0 picks one). */
export async function startEcho(name: string, host: string, port = 0): Promise<EchoBackend> {
  const server = new grpc.Server();
  server.addService(ECHO_SERVICE, {
    Call: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from(name)),
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { name, host, port: bound, close: () => closeGrpcServer(server, 2000) };
}

/**
 * A proxyless client of `target` (e.g. `xds:///echo.ns.svc.cluster.local:50051`) bootstrapped to meshd.
 * Registers the `xds:` scheme with grpc-js on first use.
 */
export function xdsClient(target: string, xdsAddress: string, namespace: string): grpc.Client {
  grpcXds.register();
  const bootstrap = {
    xds_servers: [{ server_uri: xdsAddress, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: {
      id: `sidecar~127.0.0.1~client.${namespace}~${namespace}.svc.cluster.local`,
      metadata: { GENERATOR: 'grpc', NAMESPACE: namespace, LABELS: {} },
      locality: {},
    },
  };
  return new grpc.Client(target, grpc.credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
}

/** One echo call: the answering backend's name, or `error:<code> <details>`. */
export function callOnce(client: grpc.Client, deadlineMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(ECHO_METHOD, raw, raw, Buffer.alloc(0), new grpc.Metadata(), { deadline: Date.now() + deadlineMs }, (err, res) => {
      resolve(err ? `error:${err.code} ${err.details}` : res!.toString());
    });
  });
}

/** The distinct answers of `n` sequential calls, sorted. */
export async function answers(client: grpc.Client, n = 12): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await callOnce(client));
  return [...seen].sort();
}

/** Polls until calls are answered by exactly the backends named `want`. */
export async function waitForAnswers(client: grpc.Client, want: readonly string[], what: string, timeoutMs = 90_000): Promise<void> {
  let last: string[] = [];
  try {
    await waitFor(what, async () => {
      last = await answers(client);
      return JSON.stringify(last) === JSON.stringify([...want].sort());
    }, timeoutMs, 200);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last answers: ${last.join(', ')}`);
  }
}

/**
 * An IPv4 address of this host outside 127.0.0.0/8, or undefined. NOTE: the API server refuses loopback
 * addresses in EndpointSlices ("may not be in the loopback range"), so pods' backends listen on a local
 * interface address instead (traffic still never leaves the host).
 */
export function localNonLoopbackIpv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  }
  return undefined;
}

/** A running meshd child process (Orchestrator sources, CA off). */
export class MeshdProcess {
  private constructor(private readonly started: MeshdChild) {}

  /** Starts meshd against the cluster of `kubeconfig` and waits for `/ready`. */
  static async start(kubeconfig: string, namespace: string, env: Readonly<Record<string, string>> = {}): Promise<MeshdProcess> {
    return new MeshdProcess(await spawnMeshd({ kubeconfig, namespace, secure: false, env: { ENABLE_CA_SERVER: 'false', ...env } }));
  }

  get child(): ChildProcess {
    return this.started.child;
  }

  get ports(): MeshdPorts {
    return this.started.ports;
  }

  /** Everything meshd printed so far. */
  get log(): string {
    return this.started.log();
  }

  get xdsAddress(): string {
    return `127.0.0.1:${this.ports.grpc}`;
  }

  /** GET a debug path as JSON. */
  async debug<T>(path: string): Promise<T> {
    return (await (await fetch(`http://127.0.0.1:${this.ports.http}${path}`)).json()) as T;
  }

  /** The /metrics text. */
  async metrics(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${this.ports.monitoring}/metrics`)).text();
  }

  /** SIGTERM, then waits for the exit; resolves with the exit code (null when a signal ended it). */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((r) => this.child.once('exit', (code) => r(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}
