/**
 * Clusters for proxyless gRPC clients (Istio grpcgen's CDS): one EDS cluster per service port and
 * per DestinationRule subset, named `outbound|<port>|<subset>|<host>`, with the load balancer,
 * circuit breaker, outlier detection and TLS of the DestinationRule's traffic policy.
 */
import type { Config, PushContext, Proxy, Service } from '../../../core/index.js';
import { ADS_SOURCE, any, CERT_PROVIDER, duration, ENVOY, outboundClusterName, parseOutboundClusterName } from './envoy.js';
import type { DestinationRuleSpec, TrafficPolicy } from '../../../crds/index.js';
import type { Cluster, CommonTlsContext, TransportSocket } from '../../envoy-types/index.js';

/** A built cluster and what it depends on. */
export interface BuiltCluster {
  readonly resource: Cluster;
  readonly dependencies: readonly string[];
}

/**
 * The traffic policy that applies to a subset and port: the DestinationRule's, with the subset's fields
 * on top, then the port-level settings of the result (Istio's MergeTrafficPolicy).
 */
export function effectivePolicy(dr: Config | undefined, subset: string, port: number): TrafficPolicy {
  if (!dr) return {};
  const spec = dr.spec as unknown as DestinationRuleSpec;
  const sub = subset ? spec.subsets?.find((s) => s.name === subset)?.trafficPolicy : undefined;
  const merged: TrafficPolicy = { ...(spec.trafficPolicy ?? {}), ...(sub ?? {}) };
  const pl = merged.portLevelSettings?.find((p) => p.port?.number === port);
  if (!pl) return merged;
  const { port: _p, ...rest } = pl;
  return { ...merged, ...rest };
}

/** Whether the named subset exists in the DestinationRule. */
function hasSubset(dr: Config | undefined, subset: string): boolean {
  if (!subset) return true;
  return ((dr?.spec as unknown as DestinationRuleSpec | undefined)?.subsets ?? []).some((s) => s.name === subset);
}

/** SPIFFE identities the client should accept from a service's endpoints. */
export function expectedSans(ctx: PushContext, svc: Service, serviceAccounts: Iterable<string>, policy: TrafficPolicy): string[] {
  if (policy.tls?.subjectAltNames && policy.tls.subjectAltNames.length > 0) return [...policy.tls.subjectAltNames];
  const sans = new Set<string>(svc.serviceAccounts);
  for (const sa of serviceAccounts) if (sa) sans.add(sa.startsWith('spiffe://') ? sa : ctx.spiffeId(svc.namespace, sa));
  return [...sans].sort();
}

/** The UpstreamTlsContext transport socket for MESH_MUTUAL (or SIMPLE: server verified, no client cert). */
export function upstreamTls(mode: 'MESH_MUTUAL' | 'SIMPLE', sans: readonly string[], sni?: string): TransportSocket {
  const commonTlsContext: CommonTlsContext = {
    validationContext: {
      caCertificateProviderInstance: { instanceName: CERT_PROVIDER.instance, certificateName: CERT_PROVIDER.rootCert },
      ...(sans.length > 0 ? { matchSubjectAltNames: sans.map((s) => ({ exact: s })) } : {}),
    },
  };
  if (mode === 'MESH_MUTUAL') {
    commonTlsContext.tlsCertificateProviderInstance = { instanceName: CERT_PROVIDER.instance, certificateName: CERT_PROVIDER.identity };
  }
  return {
    name: 'envoy.transport_sockets.tls',
    typedConfig: any(ENVOY.upstreamTls, { commonTlsContext, ...(sni ? { sni } : {}) }),
  };
}

/** Options the cluster builder needs beyond the PushContext. */
export interface ClusterBuildOptions {
  /** Service accounts of the service's current endpoints (for SAN checks). */
  readonly serviceAccounts: (hostname: string) => Iterable<string>;
}

/**
 * Builds one cluster by name for a proxy, or undefined when the service, port or subset does not
 * exist or is not visible to the proxy.
 */
export function buildCluster(ctx: PushContext, proxy: Proxy, name: string, opts: ClusterBuildOptions): BuiltCluster | undefined {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return undefined;
  const svc = ctx.serviceFor(parsed.host, proxy.namespace);
  if (!svc || !ctx.serviceVisible(svc, proxy.namespace)) return undefined;
  if (!svc.ports.some((p) => p.port === parsed.port)) return undefined;
  const dr = ctx.destinationRule(parsed.host, proxy);
  if (!hasSubset(dr, parsed.subset)) return undefined;
  const policy = effectivePolicy(dr, parsed.subset, parsed.port);
  const cluster: Cluster = {
    name,
    connectTimeout: duration(ctx.meshConfig.connectTimeout),
  };
  if ((svc.resolution === 'DNS' || svc.resolution === 'DNS_ROUND_ROBIN') && svc.location === 'MESH_EXTERNAL') {
    cluster.type = 'LOGICAL_DNS';
    cluster.loadAssignment = {
      clusterName: name,
      endpoints: [{ lbEndpoints: [{ endpoint: { address: { socketAddress: { address: svc.hostname, portValue: parsed.port } } } }] }],
    };
  } else {
    cluster.type = 'EDS';
    cluster.edsClusterConfig = { edsConfig: ADS_SOURCE, serviceName: name };
  }
  const ch = policy.loadBalancer?.consistentHash;
  if (ch) {
    cluster.lbPolicy = 'RING_HASH';
    const min = ch.ringHash?.minimumRingSize ?? ch.minimumRingSize;
    cluster.ringHashLbConfig = { hashFunction: 'XX_HASH', ...(min ? { minimumRingSize: { value: min } } : {}) };
  } else {
    // NOTE: gRPC NACKs LEAST_REQUEST; every other simple policy is served as ROUND_ROBIN.
    cluster.lbPolicy = 'ROUND_ROBIN';
  }
  const maxRequests = policy.connectionPool?.http?.http2MaxRequests;
  if (maxRequests !== undefined) cluster.circuitBreakers = { thresholds: [{ maxRequests: { value: maxRequests } }] };
  const od = policy.outlierDetection;
  if (od) {
    const consecutive = od.consecutive5xxErrors;
    cluster.outlierDetection = {
      ...(consecutive !== undefined ? { consecutive_5xx: { value: consecutive } } : {}),
      ...(od.consecutiveGatewayErrors !== undefined ? { consecutiveGatewayFailure: { value: od.consecutiveGatewayErrors } } : {}),
      interval: duration(od.interval ?? '10s'),
      baseEjectionTime: duration(od.baseEjectionTime ?? '30s'),
      maxEjectionPercent: { value: od.maxEjectionPercent ?? 10 },
      // NOTE: Istio turns success-rate ejection off; grpc-js 1.14 also crashes (reduce of an empty
      // array in a timer) when it is on without success_rate_minimum_hosts.
      enforcingSuccessRate: { value: 0 },
      // NOTE: gRPC ejects by failure percentage, not by consecutive errors: with a consecutive-error
      // limit N, a host failing over half of at least N calls in an interval is ejected.
      ...(consecutive !== undefined
        ? {
            enforcingFailurePercentage: { value: 100 },
            failurePercentageThreshold: { value: 50 },
            failurePercentageMinimumHosts: { value: 1 },
            failurePercentageRequestVolume: { value: Math.max(1, consecutive) },
          }
        : {}),
    };
  }
  const tlsMode = clientTlsMode(ctx, svc, policy);
  if (tlsMode !== 'DISABLE') {
    const sans = expectedSans(ctx, svc, opts.serviceAccounts(svc.hostname), policy);
    cluster.transportSocket = upstreamTls(tlsMode, sans, policy.tls?.sni);
  }
  return {
    resource: cluster,
    dependencies: [`ServiceEntry/${svc.namespace}/${svc.hostname}`, 'kind:DestinationRule', 'kind:PeerAuthentication'],
  };
}

/**
 * The client TLS mode: the DestinationRule's when set (MUTUAL is served as MESH_MUTUAL: gRPC reads
 * certificates only from its bootstrap's certificate providers); else, with auto mTLS, MESH_MUTUAL
 * when the destination namespace requires STRICT mTLS; else plaintext.
 */
export function clientTlsMode(ctx: PushContext, svc: Service, policy: TrafficPolicy): 'MESH_MUTUAL' | 'SIMPLE' | 'DISABLE' {
  const mode = policy.tls?.mode;
  if (mode === 'MESH_MUTUAL' || mode === 'MUTUAL') return 'MESH_MUTUAL';
  if (mode === 'SIMPLE') return 'SIMPLE';
  if (mode === 'DISABLE') return 'DISABLE';
  if (ctx.meshConfig.enableAutoMtls && svc.location === 'MESH_INTERNAL' && ctx.mtlsMode(svc.namespace, {}) === 'STRICT') return 'MESH_MUTUAL';
  return 'DISABLE';
}

/** Every cluster name a wildcard CDS request gets: each visible service port, plain and per subset. */
export function allClusterNames(ctx: PushContext, proxy: Proxy): string[] {
  const names: string[] = [];
  for (const svc of ctx.servicesVisibleTo(proxy.namespace)) {
    const dr = ctx.destinationRule(svc.hostname, proxy);
    const subsets = ((dr?.spec as unknown as DestinationRuleSpec | undefined)?.subsets ?? []).map((s) => s.name);
    for (const p of svc.ports) {
      names.push(outboundClusterName(p.port, '', svc.hostname));
      for (const s of subsets) names.push(outboundClusterName(p.port, s, svc.hostname));
    }
  }
  return names;
}
