/**
 * A real in-process meshd discovery (MeshDiscovery with its generators, on real gRPC) serving the echo
 * ServiceEntry and VirtualService, on `127.0.0.1:<port>` (0: a free one), ready when returned. For the
 * fuzz surface and the chaos tests (a restart binds the same port again).
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { Subject, type Subscription } from 'rxjs';
import { closeGrpcServer, createMetrics, ManualClock, type ModelInput } from '../../core/index.js';
import { MeshDiscovery } from '../discovery/mesh-discovery.js';
import { configEvent, configsFromYaml, ECHO_HOST, ECHO_SERVICE_ENTRY_YAML } from '../generators/testing/model-fixtures.js';

/** The echo route (a VirtualService to the echo host). */
export const ECHO_VS_YAML = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${ECHO_HOST}]
  http: [{ route: [{ destination: { host: ${ECHO_HOST} } }] }]
`;

/** The echo service's cluster name. */
export const ECHO_CLUSTER = `outbound|50051||${ECHO_HOST}`;

/** A proxyless gRPC node in the echo namespace. */
export const echoNode = (pod: string): { id: string; metadata: Record<string, unknown> } => ({
  id: `sidecar~10.0.1.1~${pod}.qs~qs.svc.cluster.local`,
  metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' },
});

/** A running echo meshd. */
export interface EchoMeshd {
  readonly discovery: MeshDiscovery;
  readonly port: number;
  readonly address: string;
  close(): Promise<void>;
}

/** Options: the port, a logger for ads/delta/model (default silent), the ADS request rate limit. */
export interface EchoMeshdOptions {
  readonly port?: number;
  readonly logger?: Logger;
  readonly maxRequestsPerSecond?: number;
  readonly controlPlaneId?: string;
}

/** Starts it; see the file comment. */
export async function startEchoMeshd(o: EchoMeshdOptions = {}): Promise<EchoMeshd> {
  const log = o.logger ?? pino({ level: 'silent' });
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  const discovery = new MeshDiscovery({
    model: { domain: 'cluster.local', drainingLabel: '', debounceAfter: 100, debounceMax: 1000, enableEdsDebounce: true },
    generator: { enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, cacheSize: 1000 },
    transport: { pushThrottle: 10, maxRequestsPerSecond: o.maxRequestsPerSecond ?? 1_000_000, sendTimeoutMs: 0, deltaXds: true },
    metrics: createMetrics('pilot-discovery', { processMetrics: false }),
    loggers: { ads: log, delta: log, model: log },
    clock,
    ...(o.controlPlaneId ? { controlPlaneId: o.controlPlaneId } : {}),
  });
  const server = new grpc.Server();
  discovery.ads.register(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${o.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const inputs = new Subject<readonly ModelInput[]>();
  const sub: Subscription = discovery.connect(inputs);
  inputs.next(configsFromYaml(`${ECHO_SERVICE_ENTRY_YAML}\n---\n${ECHO_VS_YAML}`).map((c) => configEvent(c, 'added')));
  clock.advanceSync(150);
  await discovery.ads.idle();
  return {
    discovery,
    port,
    address: `127.0.0.1:${port}`,
    close: async () => {
      sub.unsubscribe();
      inputs.complete();
      discovery.ads.close();
      await closeGrpcServer(server, 2000);
    },
  };
}
