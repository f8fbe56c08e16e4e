/**
 * An in-process meshd for integration tests: MeshDiscovery (MeshModel -> GeneratorRegistry -> AdsServer) on
 * 127.0.0.1:0 (real gRPC), plus echo backends and proxyless clients built on real
 * @grpc/grpc-js-xds. Configs are given as YAML; the harness turns them into model events.
 */
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { Subject, type Subscription } from 'rxjs';
import { closeGrpcServer, createMetrics, type Config, type MeshModel, type ModelInput } from '../../../core/index.js';
import { MeshDiscovery } from '../../discovery/mesh-discovery.js';
import type { GrpcGeneratorOptions } from '../grpc-generator.js';
import { configEvent, configsFromYaml } from './model-fixtures.js';
import { freePort } from '../../testing/free-port.js';

/** The echo method every backend serves: it answers with its own name. */
export const ECHO_METHOD = '/mesh.test.Echo/Call';

const passthrough = {
  path: ECHO_METHOD,
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer): Buffer => b,
  requestDeserialize: (b: Buffer): Buffer => b,
  responseSerialize: (b: Buffer): Buffer => b,
  responseDeserialize: (b: Buffer): Buffer => b,
} as const;

/** The echo service definition (raw bytes in, the backend name out). */
export const ECHO_SERVICE: grpc.ServiceDefinition = { Call: passthrough };

/** A grpc-js bootstrap for a proxyless node of `namespace` talking to `xdsAddress`. */
export function bootstrapJson(
  xdsAddress: string,
  namespace: string,
  opts: { labels?: Record<string, string>; certDir?: string; pod?: string; locality?: Record<string, string> } = {},
): string {
  const pod = opts.pod ?? 'client';
  const b: Record<string, unknown> = {
    xds_servers: [{ server_uri: xdsAddress, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: {
      id: `sidecar~127.0.0.1~${pod}.${namespace}~${namespace}.svc.cluster.local`,
      metadata: { GENERATOR: 'grpc', LABELS: opts.labels ?? {}, NAMESPACE: namespace },
      locality: opts.locality ?? {},
    },
    server_listener_resource_name_template: 'xds.mesh.io/grpc/lds/inbound/%s',
  };
  if (opts.certDir) {
    b['certificate_providers'] = {
      default: {
        plugin_name: 'file_watcher',
        config: {
          certificate_file: `${opts.certDir}/cert-chain.pem`,
          private_key_file: `${opts.certDir}/key.pem`,
          ca_certificate_file: `${opts.certDir}/root-cert.pem`,
          refresh_interval: '900s',
        },
      },
    };
  }
  return JSON.stringify(b);
}

/** A plain gRPC backend answering with its name; `failFirst` calls fail with UNAVAILABLE. */
export interface Backend {
  readonly name: string;
  readonly port: number;
  calls: number;
  failFirst: number;
  close(): Promise<void>;
}

/** Starts a plain (non-xDS) echo backend on 127.0.0.1:0. */
export async function startBackend(name: string): Promise<Backend> {
  const server = new grpc.Server();
  const b = { name, port: 0, calls: 0, failFirst: 0, close: (): Promise<void> => closeGrpcServer(server, 2000) };
  server.addService(ECHO_SERVICE, {
    Call: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
      b.calls++;
      if (b.failFirst > 0) {
        b.failFirst--;
        cb({ code: grpc.status.UNAVAILABLE, details: `${name} is failing on purpose` });
        return;
      }
      cb(null, Buffer.from(name));
    },
  });
  b.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return b;
}

/** The result of one echo call: the backend name, or the error code. */
export type CallResult = { ok: true; backend: string } | { ok: false; code: number; details: string };

/** Makes one unary echo call. */
export function callOnce(client: grpc.Client, metadata?: Record<string, string>, deadlineMs = 5000): Promise<CallResult> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata ?? {})) md.set(k, v);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      ECHO_METHOD,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      md,
      { deadline: Date.now() + deadlineMs },
      (err: grpc.ServiceError | null, res?: Buffer) => {
        if (err) resolve({ ok: false, code: err.code, details: err.details });
        else resolve({ ok: true, backend: res!.toString() });
      },
    );
  });
}

/** Counts of `n` sequential calls by backend name (`error:<code>` for failures). */
export async function callMany(client: grpc.Client, n: number, metadata?: Record<string, string>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const r = await callOnce(client, metadata);
    const k = r.ok ? r.backend : `error:${r.code}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** Polls `cond` until it holds or the deadline passes. No fixed sleeps: short polls only. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The in-process control plane: MeshDiscovery with debounce off, on 127.0.0.1:0. */
export class MeshHarness {
  readonly discovery: MeshDiscovery;
  readonly #server: grpc.Server;
  readonly #inputs = new Subject<readonly ModelInput[]>();
  readonly #sub: Subscription;
  readonly #applied = new Map<string, Config>();
  xdsAddress = '';

  private constructor(generator: Partial<GrpcGeneratorOptions>, transport: { readonly deltaXds?: boolean }) {
    const log = pino({ level: 'silent' });
    this.discovery = new MeshDiscovery({
      model: { domain: 'cluster.local', drainingLabel: 'mesh.io/draining', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true },
      generator: { enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, cacheSize: 1000, ...generator },
      transport: { pushThrottle: 10, maxRequestsPerSecond: 1000, sendTimeoutMs: 0, deltaXds: transport.deltaXds ?? false },
      metrics: createMetrics('pilot-discovery', { processMetrics: false }),
      loggers: { ads: log, delta: log },
    });
    this.#server = new grpc.Server();
    this.discovery.ads.register(this.#server);
    this.#sub = this.discovery.connect(this.#inputs);
  }

  get model(): MeshModel {
    return this.discovery.model;
  }

  /** Starts the harness on 127.0.0.1:0; `generator` overrides generator options (e.g. a test slicer). */
  static async start(generator: Partial<GrpcGeneratorOptions> = {}, transport: { readonly deltaXds?: boolean } = {}): Promise<MeshHarness> {
    const h = new MeshHarness(generator, transport);
    const port = await new Promise<number>((resolve, reject) =>
      h.#server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    h.xdsAddress = `127.0.0.1:${port}`;
    return h;
  }

  /** Adds or updates every config in the YAML text. */
  apply(yaml: string): void {
    const batch: ModelInput[] = [];
    for (const c of configsFromYaml(yaml)) {
      const key = `${c.kind}/${c.metadata.namespace}/${c.metadata.name}`;
      batch.push(configEvent(c, this.#applied.has(key) ? 'updated' : 'added'));
      this.#applied.set(key, c);
    }
    this.#inputs.next(batch);
  }

  /** Deletes a config. */
  remove(kind: string, namespace: string, name: string): void {
    const key = `${kind}/${namespace}/${name}`;
    const c = this.#applied.get(key);
    if (!c) throw new Error(`remove ${key}: not applied`);
    this.#applied.delete(key);
    this.#inputs.next([configEvent(c, 'deleted')]);
  }

  /** Stops pushing and shuts the server down. */
  async close(): Promise<void> {
    this.#sub.unsubscribe();
    this.#inputs.complete();
    this.discovery.ads.close();
    await closeGrpcServer(this.#server, 2000);
  }
}

/** An XdsServer echo backend: its listener, RBAC and TLS come from meshd. */
export interface XdsBackend {
  readonly name: string;
  readonly port: number;
  calls: number;
  close(): Promise<void>;
}

/**
 * Starts an echo backend as an `XdsServer` on 127.0.0.1:<free port>, as a proxyless workload of
 * `namespace` with `labels`; `certDir` gives it a file_watcher certificate provider.
 * NOTE: grpc-js-xds 1.14.1 crashes (uncaught TypeError in filterChainsEquivalent) when a server
 * listener goes from plaintext to TLS; apply STRICT mTLS before starting a TLS backend.
 */
export async function startXdsBackend(
  xdsModule: typeof import('@grpc/grpc-js-xds'),
  name: string,
  xdsAddress: string,
  namespace: string,
  labels: Record<string, string>,
  certDir?: string,
  port?: number,
): Promise<XdsBackend> {
  const server = new xdsModule.XdsServer({
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(xdsAddress, namespace, { labels, pod: name, ...(certDir ? { certDir } : {}) }),
  } as grpc.ServerOptions);
  const b = { name, port: 0, calls: 0, close: (): Promise<void> => closeGrpcServer(server, 2000) };
  server.addService(ECHO_SERVICE, {
    Call: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
      b.calls++;
      cb(null, Buffer.from(name));
    },
  });
  port ??= await freePort();
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, new xdsModule.XdsServerCredentials(grpc.ServerCredentials.createInsecure()), (e) => (e ? reject(e) : resolve())),
  );
  b.port = port;
  return b;
}
