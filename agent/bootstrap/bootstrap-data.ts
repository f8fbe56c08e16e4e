/**
 * The data a bootstrap template is rendered with (Istio's names, so Istio-style custom templates keep
 * working: `.nodeID`, `.cluster`, `.meta_json_str`, `.config.ProxyAdminPort`, ...), and the node id.
 */
import type { ProxyConfig } from '../proxy-config.js';

/** The proxy kinds `pilot-agent proxy` runs as. */
export const PROXY_TYPES = ['sidecar', 'router'] as const;
/** A proxy kind. */
export type ProxyType = (typeof PROXY_TYPES)[number];

/** What the bootstrap describes: the proxy's identity and where the agent listens for it. */
export interface BootstrapInputs {
  readonly proxyType: ProxyType;
  readonly proxy: ProxyConfig;
  readonly podName: string;
  readonly podNamespace: string;
  readonly instanceIps: readonly string[];
  /** `--domain` (default `<namespace>.svc.cluster.local`). */
  readonly domain: string;
  readonly serviceAccount?: string;
  readonly clusterId?: string;
  readonly meshVersion: string;
  /** `MESH_META_*` variables with the prefix removed, and the ProxyConfig's own metadata. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The agent's local xDS socket (the `xds-grpc` cluster). */
  readonly xdsSocketPath: string;
  /** The agent's SDS socket (the `sds-grpc` cluster). */
  readonly sdsSocketPath: string;
}

/** `sidecar~10.0.0.1~pod.ns~ns.svc.cluster.local`: Istio's node id. */
export function nodeId(i: Pick<BootstrapInputs, 'proxyType' | 'instanceIps' | 'podName' | 'podNamespace' | 'domain'>): string {
  return `${i.proxyType}~${i.instanceIps[0] ?? '127.0.0.1'}~${i.podName}.${i.podNamespace}~${i.domain}`;
}

/** The node metadata sent in the bootstrap (and so on the first xDS request). */
export function nodeMetadata(i: BootstrapInputs): Record<string, string> {
  return {
    ...i.proxy.proxyMetadata,
    ...i.metadata,
    NAME: i.podName,
    NAMESPACE: i.podNamespace,
    INSTANCE_IPS: i.instanceIps.join(','),
    MESH_VERSION: i.meshVersion,
    ...(i.serviceAccount ? { SERVICE_ACCOUNT: i.serviceAccount } : {}),
    ...(i.clusterId ? { CLUSTER_ID: i.clusterId } : {}),
    ENVOY_PROMETHEUS_PORT: '15090',
    ENVOY_STATUS_PORT: '15021',
  };
}

function hostPort(address: string): { host: string; port: number } {
  const m = /^(.*):(\d+)$/.exec(address);
  return m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : { host: address, port: 9411 };
}

/** The template data. */
export function bootstrapData(i: BootstrapInputs): Record<string, unknown> {
  const p = i.proxy;
  const ipv6 = i.instanceIps.length > 0 && i.instanceIps.every((ip) => ip.includes(':'));
  return {
    nodeID: nodeId(i),
    cluster: p.serviceCluster === 'mesh-proxy' && i.podName ? `${i.podName}.${i.podNamespace}` : p.serviceCluster,
    meta_json_str: JSON.stringify(nodeMetadata(i)),
    localhost: ipv6 ? '::1' : '127.0.0.1',
    wildcard: ipv6 ? '::' : '0.0.0.0',
    dns_lookup_family: ipv6 ? 'V6_ONLY' : 'V4_ONLY',
    prometheus_port: 15090,
    readiness_port: 15021,
    xds_socket_path: i.xdsSocketPath,
    sds_socket_path: i.sdsSocketPath,
    extra_stat_tags: p.extraStatTags,
    ...(p.tracing?.zipkin ? { zipkin: hostPort(p.tracing.zipkin.address) } : {}),
    config: {
      ConfigPath: p.configPath,
      BinaryPath: p.binaryPath,
      ServiceCluster: p.serviceCluster,
      DiscoveryAddress: p.discoveryAddress,
      ProxyAdminPort: p.proxyAdminPort,
      StatusPort: p.statusPort,
      Concurrency: p.concurrency,
      ControlPlaneAuthPolicy: p.controlPlaneAuthPolicy,
      ProxyMetadata: p.proxyMetadata,
    },
  };
}
