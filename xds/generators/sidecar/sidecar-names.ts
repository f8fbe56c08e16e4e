/**
 * Names and small shared shapes of the sidecar generators: Istio's Envoy-level names (listeners, clusters,
 * SDS secrets, ALPN), the ADS and SDS config sources, and the provenance metadata each resource carries.
 * Objects use protobufjs's camelCase plain-object form (see xds/protos/codec.ts).
 */
import type { Config } from '../../../core/index.js';
import { TYPE_URL } from '../../protos/type-urls.js';
import { ADS_SOURCE, ENVOY as GRPC_ENVOY } from '../grpc/envoy.js';

/** Full names of the Envoy messages the sidecar builders use (beyond the proxyless ones). */
export const ENVOY = {
  ...GRPC_ENVOY,
  tcpProxy: 'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
  originalDst: 'envoy.extensions.filters.listener.original_dst.v3.OriginalDst',
  tlsInspector: 'envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector',
  httpInspector: 'envoy.extensions.filters.listener.http_inspector.v3.HttpInspector',
  cors: 'envoy.extensions.filters.http.cors.v3.Cors',
  corsPolicy: 'envoy.extensions.filters.http.cors.v3.CorsPolicy',
  httpProtocolOptions: 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
  rawBuffer: 'envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer',
  mongoProxy: 'envoy.extensions.filters.network.mongo_proxy.v3.MongoProxy',
  redisProxy: 'envoy.extensions.filters.network.redis_proxy.v3.RedisProxy',
} as const;

/** The Envoy message of each xDS type a sidecar or router is served (LDS, RDS, CDS, EDS). */
export const ENVOY_MESSAGE_BY_TYPE_URL: Readonly<Record<string, string>> = {
  [TYPE_URL.listener]: ENVOY.listener,
  [TYPE_URL.route]: ENVOY.route,
  [TYPE_URL.cluster]: ENVOY.cluster,
  [TYPE_URL.endpoint]: ENVOY.endpoint,
};

/** The redirect ports of the sidecar (iptables sends outbound traffic to 15001, inbound to 15006). */
export const VIRTUAL_OUTBOUND_PORT = 15001;
export const VIRTUAL_INBOUND_PORT = 15006;
export const VIRTUAL_OUTBOUND = 'virtualOutbound';
export const VIRTUAL_INBOUND = 'virtualInbound';

/** Istio's special clusters. */
export const PASSTHROUGH_CLUSTER = 'PassthroughCluster';
export const BLACKHOLE_CLUSTER = 'BlackHoleCluster';
export const INBOUND_PASSTHROUGH_CLUSTER = 'InboundPassthroughCluster';

/** The address inbound clusters bind upstream connections to (so iptables does not redirect them again). */
export const INBOUND_BIND_ADDRESS = '127.0.0.6';

/** SDS secret names the agent serves: the workload certificate and the root of trust. */
export const SDS_SECRET = { identity: 'default', root: 'ROOTCA' } as const;

/** The bootstrap cluster through which Envoy reaches the agent's SDS server. */
export const SDS_CLUSTER = 'sds-grpc';

/** ALPN of mesh mTLS (Istio's `istio-peer-exchange`, `istio`, renamed). */
export const MESH_ALPN = ['mesh-peer-exchange', 'mesh'] as const;

/** The endpoint label that says a workload has a sidecar and accepts mesh mTLS (Istio's `security.istio.io/tlsMode`). */
export const TLS_MODE_LABEL = 'security.mesh.io/tlsMode';

/** The transport socket match metadata key on endpoints and its mesh value. */
export const TRANSPORT_SOCKET_MATCH = 'envoy.transport_socket_match';
export const TLS_MODE_MESH = 'mesh';

/** The filter metadata namespace of the provenance mesh puts on resources (Istio's `istio`). */
export const MESH_METADATA = 'mesh';

/** HTTP filter names (per-route config is keyed by them). */
export const HTTP_FILTER = { fault: 'envoy.filters.http.fault', cors: 'envoy.filters.http.cors', router: 'envoy.filters.http.router' } as const;

/** ConfigSource for an SDS secret from the agent (over the bootstrap's `sds-grpc` cluster), as Istio writes it. */
export const SDS_SOURCE = {
  apiConfigSource: {
    apiType: 'GRPC',
    setNodeOnFirstMessageOnly: true,
    transportApiVersion: 'V3',
    grpcServices: [{ envoyGrpc: { clusterName: SDS_CLUSTER } }],
  },
  resourceApiVersion: 'V3',
} as const;

/** The ADS config source with `initial_fetch_timeout: 0s`, as Istio sends for RDS and EDS. */
export const ADS = { ...ADS_SOURCE, initialFetchTimeout: { seconds: 0, nanos: 0 } } as const;

/** An SDS secret reference by name. */
export function sdsSecret(name: string): Record<string, unknown> {
  return { name, sdsConfig: SDS_SOURCE };
}

/** The SDS name of a key pair read from files on the proxy (istiod's SdsCertificateConfig.GetResourceName). */
export function fileCertSecret(chain: string, key: string): string {
  return `file-cert:${chain}~${key}`;
}

/** The SDS name of a trust bundle read from a file on the proxy (istiod's GetRootResourceName). */
export function fileRootSecret(ca: string): string {
  return `file-root:${ca}`;
}

/** `inbound|<port>||`, the Istio inbound cluster name. */
export function inboundClusterName(port: number): string {
  return `inbound|${port}||`;
}

/**
 * Provenance metadata (`filterMetadata.mesh`): `sources`, the mesh.io objects that shaped a resource, each as
 * `kind/namespace/name@generation`, plus `extra` fields. Istio's `config` path (`/apis/<group>/v1/namespaces/...`) is
 * not repeated: it names the first source without its generation, and at S=200 it was 15 % of a route configuration.
 */
export function provenance(configs: readonly (Config | undefined)[], extra: Record<string, unknown> = {}): Record<string, unknown> | undefined {
  const used = configs.filter((c): c is Config => c !== undefined);
  if (used.length === 0 && Object.keys(extra).length === 0) return undefined;
  const fields: Record<string, unknown> = { ...extra };
  if (used.length > 0) fields['sources'] = used.map((c) => `${c.kind}/${c.metadata.namespace}/${c.metadata.name}@${String((c.metadata as { generation?: number }).generation ?? 0)}`);
  return { filterMetadata: { [MESH_METADATA]: struct(fields) } };
}

function value(v: unknown): Record<string, unknown> {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
  return { structValue: struct(v as Record<string, unknown>) };
}

/** Plain JSON -> google.protobuf.Struct in plain-object form. */
export function struct(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) fields[k] = value(v);
  return { fields };
}
