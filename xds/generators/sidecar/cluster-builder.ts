/**
 * Clusters of a dataplane sidecar (Istio's cluster_builder.go): `outbound|<port>|<subset>|<host>` per
 * visible service port and DestinationRule subset (EDS over ADS; STRICT_DNS / LOGICAL_DNS for DNS
 * resolution; ORIGINAL_DST for NONE on sidecars, EDS on gateways as istiod, and EDS on sidecars too for a headless
 * orchestrator Service with PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES), PassthroughCluster, BlackHoleCluster,
 * InboundPassthroughCluster, and with `inbound|<port>||` per inbound port (inbound-clusters.ts) every cluster of a
 * sidecar. DestinationRule traffic policy: connection pool, outlier detection, load balancer (simple, consistent
 * hash, warmup) and TLS.
 */
import { labelsMatch, orchServiceOf, type Config, type EndpointView, type PushContext, type Proxy, type Service, type ServiceInstance, type ServicePort } from '../../../core/index.js';
import type { ClientTLSSettings, DestinationRuleSpec, TrafficPolicy } from '../../../crds/index.js';
import { effectivePolicy } from '../grpc/cluster-builder.js';
import { any, duration, outboundClusterName } from '../grpc/envoy.js';
import { autoSniOptions, clusterTls, type AutoSni, type PassthroughTarget } from './cluster-tls.js';
import { upstreamTcpKeepalive } from './inbound-connection-pool.js';
import { buildProxyInboundCluster, defaultThresholds, proxyInboundPorts } from './inbound-clusters.js';
import { usesLocalityWeights } from './locality-lb.js';
import { dnsLookupFamily, ipMode, passthroughUpstreamBind, type IpMode } from './listener-address.js';
import { resolveListenerOptions, type SidecarListenerOptions } from './listener-options.js';
import { sidecarScope, scopedDestinationRule } from './sidecar-scope.js';
import {
  ADS,
  BLACKHOLE_CLUSTER,
  ENVOY,
  INBOUND_PASSTHROUGH_CLUSTER,
  PASSTHROUGH_CLUSTER,
  provenance,
} from './sidecar-names.js';
import type { Cluster } from '../../envoy-types/index.js';
import type { ConflictSink } from './conflict-recorder.js';

/** Whether a port speaks HTTP/2 to its upstream (gRPC, HTTP2). */
export function isHttp2(p: ServicePort): boolean {
  return p.protocol === 'GRPC' || p.protocol === 'HTTP2' || p.protocol === 'GRPC-WEB';
}

/** Whether a port is served through the HTTP connection manager. */
export function isHttpPort(p: ServicePort): boolean {
  return p.protocol === 'HTTP' || isHttp2(p);
}

/**
 * Whether a port's protocol is unknown, so listeners sniff it (Istio's protocol sniffing): no protocol
 * from the ServiceEntry, or, for orchestrator Services, neither `appProtocol` nor a known port-name
 * prefix (see controllers' port-protocol.ts). HTTP on such a port is routed by route configuration
 * `<port>` as on an HTTP port.
 */
export function isSniffedPort(p: Pick<ServicePort, 'protocol'>): boolean {
  return p.protocol === 'UNSUPPORTED';
}

/** Whether HTTP to a port goes through route configuration `<port>` (an HTTP port, or a sniffed one). */
export function routesHttp(p: ServicePort): boolean {
  return isHttpPort(p) || isSniffedPort(p);
}

/** The subsets of the DestinationRule for a host as seen from the proxy. */
export function subsetsOf(dr: Config | undefined): NonNullable<DestinationRuleSpec['subsets']> {
  return (dr?.spec as unknown as DestinationRuleSpec | undefined)?.subsets ?? [];
}

function applyConnectionPool(c: Record<string, unknown>, policy: TrafficPolicy, port: ServicePort): void {
  const cp = policy.connectionPool;
  const thresholds = defaultThresholds();
  if (cp?.tcp?.maxConnections !== undefined) thresholds['maxConnections'] = { value: cp.tcp.maxConnections };
  if (cp?.http?.http1MaxPendingRequests !== undefined) thresholds['maxPendingRequests'] = { value: cp.http.http1MaxPendingRequests };
  if (cp?.http?.http2MaxRequests !== undefined) thresholds['maxRequests'] = { value: cp.http.http2MaxRequests };
  if (cp?.http?.maxRetries !== undefined) thresholds['maxRetries'] = { value: cp.http.maxRetries };
  c['circuitBreakers'] = { thresholds: [thresholds] };
  if (cp?.tcp?.connectTimeout) c['connectTimeout'] = duration(cp.tcp.connectTimeout);
  const ka = cp?.tcp?.tcpKeepalive;
  if (ka) c['upstreamConnectionOptions'] = upstreamTcpKeepalive(ka);
  const common: Record<string, unknown> = {};
  if (cp?.http?.idleTimeout) common['idleTimeout'] = duration(cp.http.idleTimeout);
  if (cp?.tcp?.maxConnectionDuration) common['maxConnectionDuration'] = duration(cp.tcp.maxConnectionDuration);
  if (cp?.http?.maxRequestsPerConnection) common['maxRequestsPerConnection'] = { value: cp.http.maxRequestsPerConnection };
  const h2 = isHttp2(port) || cp?.http?.h2UpgradePolicy === 'UPGRADE';
  const options: Record<string, unknown> = {};
  if (Object.keys(common).length > 0) options['commonHttpProtocolOptions'] = common;
  if (cp?.http?.useClientProtocol) options['useDownstreamProtocolConfig'] = { httpProtocolOptions: {}, http2ProtocolOptions: {} };
  else if (h2) {
    const h2Options: Record<string, unknown> = {};
    if (cp?.http?.maxConcurrentStreams) h2Options['maxConcurrentStreams'] = { value: cp.http.maxConcurrentStreams };
    // NOTE: as istiod, HTTP/2 PINGs (http2KeepAlive) apply only where the upstream speaks HTTP/2 explicitly.
    const ka = cp?.http?.http2KeepAlive;
    if (ka && (ka.interval || ka.timeout)) h2Options['connectionKeepalive'] = { ...(ka.interval ? { interval: duration(ka.interval) } : {}), ...(ka.timeout ? { timeout: duration(ka.timeout) } : {}) };
    options['explicitHttpConfig'] = { http2ProtocolOptions: h2Options };
  }
  // NOTE: Envoy requires one upstream protocol choice whenever these options are set.
  else if (Object.keys(options).length > 0) options['explicitHttpConfig'] = { httpProtocolOptions: {} };
  if (Object.keys(options).length > 0 && (isHttpPort(port) || h2 || cp?.http)) {
    c['typedExtensionProtocolOptions'] = { ['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']: any(ENVOY.httpProtocolOptions, options) };
  }
}

function applyOutlierDetection(c: Record<string, unknown>, policy: TrafficPolicy): void {
  const od = policy.outlierDetection;
  if (!od) return;
  const out: Record<string, unknown> = { enforcingSuccessRate: { value: 0 } };
  // NOTE: as istiod: a consecutive-5xx limit of 0 turns that ejection off (not "eject at once"); unset
  // leaves Envoy's defaults (5 errors, enforced), which istiod does not override either.
  if (od.consecutive5xxErrors) {
    out['consecutive_5xx'] = { value: od.consecutive5xxErrors };
    out['enforcingConsecutive_5xx'] = { value: 100 };
  } else if (od.consecutive5xxErrors === 0) {
    out['enforcingConsecutive_5xx'] = { value: 0 };
  }
  if (od.consecutiveGatewayErrors) {
    out['consecutiveGatewayFailure'] = { value: od.consecutiveGatewayErrors };
    out['enforcingConsecutiveGatewayFailure'] = { value: 100 };
  }
  if (od.splitExternalLocalOriginErrors) {
    out['splitExternalLocalOriginErrors'] = true;
    if (od.consecutiveLocalOriginFailures) {
      out['consecutiveLocalOriginFailure'] = { value: od.consecutiveLocalOriginFailures };
      out['enforcingConsecutiveLocalOriginFailure'] = { value: 100 };
    }
  }
  if (od.interval) out['interval'] = duration(od.interval);
  if (od.baseEjectionTime) out['baseEjectionTime'] = duration(od.baseEjectionTime);
  if (od.maxEjectionPercent !== undefined) out['maxEjectionPercent'] = { value: od.maxEjectionPercent };
  c['outlierDetection'] = out;
  const common = (c['commonLbConfig'] ??= {}) as Record<string, unknown>;
  if (od.minHealthPercent !== undefined) common['healthyPanicThreshold'] = { value: od.minHealthPercent };
}

function applyLoadBalancer(c: Record<string, unknown>, policy: TrafficPolicy): void {
  const lb = policy.loadBalancer;
  const ch = lb?.consistentHash;
  // NOTE: as istiod, `warmup` wins over the deprecated `warmupDurationSecs`; aggression defaults to 1 (linear), minimumPercent to 10.
  const warmup = lb?.warmup
    ? { slowStartConfig: { slowStartWindow: duration(lb.warmup.duration), aggression: { defaultValue: lb.warmup.aggression ?? 1, runtimeKey: '(' }, minWeightPercent: { value: lb.warmup.minimumPercent ?? 10 } } }
    : lb?.warmupDurationSecs
      ? { slowStartConfig: { slowStartWindow: duration(lb.warmupDurationSecs) } }
      : undefined;
  if (ch) {
    if (ch.maglev) {
      c['lbPolicy'] = 'MAGLEV';
      if (ch.maglev.tableSize) c['maglevLbConfig'] = { tableSize: { value: ch.maglev.tableSize } };
    } else {
      c['lbPolicy'] = 'RING_HASH';
      // NOTE: Istio's default minimum ring size is 1024.
      c['ringHashLbConfig'] = { minimumRingSize: { value: ch.ringHash?.minimumRingSize ?? ch.minimumRingSize ?? 1024 } };
    }
    return;
  }
  switch (lb?.simple) {
    case 'ROUND_ROBIN':
      c['lbPolicy'] = 'ROUND_ROBIN';
      if (warmup) c['roundRobinLbConfig'] = warmup;
      return;
    case 'RANDOM':
      c['lbPolicy'] = 'RANDOM';
      return;
    case 'PASSTHROUGH':
      c['lbPolicy'] = 'CLUSTER_PROVIDED';
      c['type'] = 'ORIGINAL_DST';
      delete c['edsClusterConfig'];
      return;
    default:
      // NOTE: Istio's default (UNSPECIFIED, LEAST_CONN, LEAST_REQUEST) is LEAST_REQUEST.
      c['lbPolicy'] = 'LEAST_REQUEST';
      if (warmup) c['leastRequestLbConfig'] = warmup;
  }
}

/**
 * istiod's buildUpstreamClusterTLSContext: a sidecar does not originate SIMPLE or MUTUAL TLS with a
 * `credentialName` (other than `configmap://`) from a DestinationRule without a workloadSelector (the secret
 * would go to every sidecar in its scope); the cluster gets no TLS. Gateways keep it.
 */
function sidecarSkipsCredential(proxy: Proxy, dr: Config | undefined, tls: ClientTLSSettings | undefined): boolean {
  if (proxy.type !== 'sidecar' || !tls?.credentialName || tls.credentialName.startsWith('configmap://')) return false;
  if (tls.mode !== 'SIMPLE' && tls.mode !== 'MUTUAL') return false;
  return (dr?.spec as { workloadSelector?: unknown } | undefined)?.workloadSelector === undefined;
}

/** Whether a built cluster speaks HTTP/2 upstream (istiod's isHttp2Cluster: explicit HTTP/2 protocol options). */
function isHttp2Cluster(c: Record<string, unknown>): boolean {
  const opts = c['typedExtensionProtocolOptions'] as Record<string, { explicitHttpConfig?: { http2ProtocolOptions?: unknown } }> | undefined;
  return opts?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']?.explicitHttpConfig?.http2ProtocolOptions !== undefined;
}

/** How outbound clusters are built: process-wide options, read once at start (see generatorOptionsFromEnv). */
export interface OutboundClusterOptions {
  /**
   * PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES (default false): a headless orchestrator Service (clusterIP
   * None, resolution NONE) gets an EDS cluster on sidecars, its endpoints served over EDS, instead of
   * ORIGINAL_DST. As istiod, a ServiceEntry with resolution NONE stays ORIGINAL_DST either way.
   */
  readonly edsForHeadless?: boolean;
  /**
   * ENABLE_AUTO_SNI (default true, as istiod): a SIMPLE or MUTUAL origination cluster without `sni` gets
   * Envoy's `auto_sni` and `auto_san_validation` (see autoSniOptions); false: neither (no SNI at all).
   */
  readonly autoSni?: boolean;
  /**
   * VERIFY_CERTIFICATE_AT_CLIENT (default true, as istiod): SIMPLE or MUTUAL origination without
   * `caCertificates` verifies the server against the operating system's trust bundle (see originationSocket).
   */
  readonly verifyCertAtClient?: boolean;
  /**
   * PILOT_ENABLE_REDIS_FILTER (default false): a REDIS port's cluster balances with MAGLEV (istiod: for the
   * Redis proxy's client-side sharding), whatever the DestinationRule's load balancer says.
   */
  readonly redisFilter?: boolean;
  /**
   * The listener options: MESH_DUAL_STACK and MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS shape
   * the DNS lookup family of DNS clusters and the inbound clusters' bind addresses (listener-address.ts).
   */
  readonly listener?: SidecarListenerOptions;
}

/** Options of the cluster builder. */
export interface SidecarClusterOptions extends OutboundClusterOptions {
  readonly endpoints: EndpointView;
}

/**
 * The discovery type of a service's outbound cluster (istiod's convertResolution): STRICT_DNS / LOGICAL_DNS
 * for DNS resolution; for NONE, ORIGINAL_DST on sidecars unless `edsForHeadless` and the service comes from
 * the orchestrator; EDS otherwise.
 */
export function outboundDiscoveryType(proxy: Proxy, svc: Service, opts: OutboundClusterOptions = {}): 'EDS' | 'STRICT_DNS' | 'LOGICAL_DNS' | 'ORIGINAL_DST' {
  if (svc.resolution === 'DNS') return 'STRICT_DNS';
  if (svc.resolution === 'DNS_ROUND_ROBIN') return 'LOGICAL_DNS';
  // NOTE: as istiod's convertResolution, a gateway (router) cannot forward to the original destination
  // (the client addressed the gateway), so a headless service is EDS there, ORIGINAL_DST only on sidecars.
  if (svc.resolution === 'NONE' && proxy.type !== 'router') return opts.edsForHeadless === true && orchServiceOf(svc) ? 'EDS' : 'ORIGINAL_DST';
  return 'EDS';
}

/**
 * One outbound cluster for a service port and subset (subset '' for the service itself); undefined for a
 * STRICT_DNS / LOGICAL_DNS cluster without endpoints, which istiod's buildCluster drops and counts
 * (`onDrop` hears its name: pilot_dns_cluster_without_endpoints).
 */
export function buildOutboundCluster(ctx: PushContext, proxy: Proxy, svc: Service, port: ServicePort, subset: string, endpoints: EndpointView, opts: OutboundClusterOptions = {}, onDrop?: (name: string) => void): Cluster | undefined {
  const name = outboundClusterName(port.port, subset, svc.hostname);
  const dr = scopedDestinationRule(ctx, proxy, svc.hostname);
  const policy = effectivePolicy(dr, subset, port.port);
  const c: Record<string, unknown> = { name, connectTimeout: duration(ctx.meshConfig.connectTimeout) };
  const instances = endpoints.instancesOf(svc).filter((i) => i.servicePort === port.port);
  const type = outboundDiscoveryType(proxy, svc, opts);
  if (type === 'STRICT_DNS' || type === 'LOGICAL_DNS') {
    c['type'] = type;
    c['dnsLookupFamily'] = dnsLookupFamily(ipMode(proxy), resolveListenerOptions(opts.listener));
    c['dnsRefreshRate'] = duration(ctx.meshConfig.dnsRefreshRate);
    c['respectDnsTtl'] = true;
    // NOTE: without endpoints (and without a workloadSelector) the host itself is resolved, on the port's targetPort
    // when it has one (as istiod, whose ServiceEntry conversion makes the host an endpoint without labels). A subset cluster takes the
    // endpoints its labels select (istiod's buildSubsetCluster), so a subset with labels never selects the host.
    const selector = subset ? (subsetsOf(dr).find((s) => s.name === subset)?.labels ?? {}) : {};
    const targets =
      instances.length > 0
        ? instances.filter((i) => labelsMatch(selector, i.labels)).map((i) => ({ address: i.address, port: i.port }))
        : Object.keys(selector).length === 0 && svc.selectsWorkloads !== true
        ? [{ address: svc.hostname, port: port.targetPort ?? port.port }]
        : [];
    if (targets.length === 0) {
      onDrop?.(name);
      return undefined;
    }
    const lbEndpoints = (svc.resolution === 'DNS_ROUND_ROBIN' ? targets.slice(0, 1) : targets).map((t) => ({
      endpoint: { address: { socketAddress: { address: t.address, portValue: t.port } } },
    }));
    c['loadAssignment'] = { clusterName: name, endpoints: [{ lbEndpoints }] };
  } else if (type === 'ORIGINAL_DST') {
    c['type'] = 'ORIGINAL_DST';
  } else {
    c['type'] = 'EDS';
    c['edsClusterConfig'] = { edsConfig: ADS, serviceName: name };
  }
  applyConnectionPool(c, policy, port);
  // NOTE: as istiod, the Redis MAGLEV default comes after the ORIGINAL_DST check and replaces every other
  // load balancer setting (simple, consistent hash, warmup, PASSTHROUGH).
  if (opts.redisFilter === true && port.protocol === 'REDIS' && c['type'] !== 'ORIGINAL_DST') c['lbPolicy'] = 'MAGLEV';
  else applyLoadBalancer(c, policy);
  if (c['type'] === 'ORIGINAL_DST') c['lbPolicy'] = 'CLUSTER_PROVIDED';
  applyOutlierDetection(c, policy);
  c['commonLbConfig'] ??= {};
  // NOTE: as istiod, Envoy's panic mode is off (0%) on every outbound cluster unless outlier detection's
  // minHealthPercent sets it: traffic never spills onto hosts known to be unhealthy.
  (c['commonLbConfig'] as Record<string, unknown>)['healthyPanicThreshold'] ??= { value: 0 };
  // NOTE: as istiod, locality weights (from `distribute`) take effect only with localityWeightedLbConfig.
  if (usesLocalityWeights(policy, ctx.meshConfig)) (c['commonLbConfig'] as Record<string, unknown>)['localityWeightedLbConfig'] = {};
  const tls = sidecarSkipsCredential(proxy, dr, policy.tls)
    ? ({ kind: 'none' } as const)
    : clusterTls(ctx, svc, policy.tls, { port: port.port, subset, ...passthroughTarget(svc, policy, instances, c) }, instances.map((i) => i.serviceAccount), { verifyAtClient: opts.verifyCertAtClient !== false, h2: isHttp2Cluster(c) });
  if (tls.kind === 'socket') c['transportSocket'] = tls.transportSocket;
  const auto = tls.kind === 'socket' && policy.tls ? autoSniOptions(policy.tls, opts.autoSni !== false) : undefined;
  if (auto) applyUpstreamHttpOptions(c, auto);
  if (tls.kind === 'auto') c['transportSocketMatches'] = tls.transportSocketMatches;
  const meta = provenance([dr], { services: [{ host: svc.hostname, name: svc.hostname.split('.')[0] ?? svc.hostname, namespace: svc.namespace }], default_original_port: port.port, ...(subset ? { subset } : {}) });
  if (meta) c['metadata'] = meta;
  return c;
}

/** The passthrough target of a service with resolution NONE or a PASSTHROUGH load balancer (see clusterTls); none otherwise. */
function passthroughTarget(svc: Service, policy: TrafficPolicy, instances: readonly ServiceInstance[], c: Record<string, unknown>): { passthrough?: PassthroughTarget } {
  if (svc.resolution !== 'NONE' && policy.loadBalancer?.simple !== 'PASSTHROUGH') return {};
  return { passthrough: { instances, originalDst: c['type'] === 'ORIGINAL_DST' } };
}

/**
 * Adds Envoy's `upstream_http_protocol_options` to the cluster's HttpProtocolOptions, made (with HTTP/1.1
 * as the upstream protocol Envoy requires, as istiod's clusterWrapper.build) when the cluster has none.
 */
function applyUpstreamHttpOptions(c: Record<string, unknown>, upstream: AutoSni): void {
  const key = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
  const all = (c['typedExtensionProtocolOptions'] ??= {}) as Record<string, Record<string, unknown>>;
  const have = all[key];
  all[key] = have ? { ...have, upstreamHttpProtocolOptions: { ...upstream } } : any(ENVOY.httpProtocolOptions, { upstreamHttpProtocolOptions: { ...upstream }, explicitHttpConfig: { httpProtocolOptions: {} } });
}

/** Every outbound cluster of the services in the proxy's scope (exportTo, Sidecar egress): per port, plain and per subset. */
export function buildOutboundClusters(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, opts: OutboundClusterOptions = {}, onDrop?: (name: string) => void): Cluster[] {
  const out: Record<string, unknown>[] = [];
  const add = (c: Cluster | undefined): void => {
    if (c) out.push(c);
  };
  for (const svc of sidecarScope(ctx, proxy).services) {
    const subsets = subsetsOf(scopedDestinationRule(ctx, proxy, svc.hostname));
    for (const p of svc.ports) {
      add(buildOutboundCluster(ctx, proxy, svc, p, '', endpoints, opts, onDrop));
      for (const s of subsets) add(buildOutboundCluster(ctx, proxy, svc, p, s.name, endpoints, opts, onDrop));
    }
  }
  return out;
}

/** PassthroughCluster, BlackHoleCluster and InboundPassthroughCluster (bound per the proxy's IP mode, default IPv4; see passthroughUpstreamBind). */
export function buildSpecialClusters(ctx: PushContext, mode: IpMode = 'IPv4'): Cluster[] {
  const connectTimeout = duration(ctx.meshConfig.connectTimeout);
  return [
    { name: BLACKHOLE_CLUSTER, type: 'STATIC', connectTimeout },
    {
      name: INBOUND_PASSTHROUGH_CLUSTER,
      type: 'ORIGINAL_DST',
      lbPolicy: 'CLUSTER_PROVIDED',
      connectTimeout,
      circuitBreakers: { thresholds: [defaultThresholds()] },
      upstreamBindConfig: passthroughUpstreamBind(mode),
    },
    {
      name: PASSTHROUGH_CLUSTER,
      type: 'ORIGINAL_DST',
      lbPolicy: 'CLUSTER_PROVIDED',
      connectTimeout,
      circuitBreakers: { thresholds: [defaultThresholds()] },
      typedExtensionProtocolOptions: {
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': any(ENVOY.httpProtocolOptions, { useDownstreamProtocolConfig: { httpProtocolOptions: {}, http2ProtocolOptions: {} } }),
      },
    },
  ];
}

/**
 * Every cluster of a sidecar, sorted by name; a DNS cluster without endpoints is left out and a repeated
 * name keeps its first cluster (see normalizeClusters), both reported to `onConflict`.
 */
export function buildSidecarClusters(ctx: PushContext, proxy: Proxy, opts: SidecarClusterOptions, onConflict?: ConflictSink): Cluster[] {
  const inbound = proxyInboundPorts(ctx, proxy, opts.endpoints).map((p) => buildProxyInboundCluster(ctx, proxy, p, opts.listener));
  const onDrop = onConflict ? (name: string): void => onConflict('pilot_dns_cluster_without_endpoints', name) : undefined;
  const all = [...buildOutboundClusters(ctx, proxy, opts.endpoints, opts, onDrop), ...inbound, ...buildSpecialClusters(ctx, ipMode(proxy))];
  // NOTE: a stable sort: clusters of one name stay in build order (outbound, inbound, special), as istiod's list.
  return normalizeClusters(all.sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1)), (name) => onConflict?.('pilot_duplicate_dataplane_clusters', name));
}

/**
 * Istiod's normalizeClusters on a list sorted by name (a repeated name adjacent, in build order): the first
 * cluster of a name is kept, every later one is dropped and `onDuplicate` hears its name
 * (pilot_duplicate_dataplane_clusters).
 */
export function normalizeClusters<T extends { readonly name?: unknown }>(sorted: readonly T[], onDuplicate?: (name: string) => void): T[] {
  const out: T[] = [];
  for (const c of sorted) {
    if (out.length > 0 && out[out.length - 1]!.name === c.name) onDuplicate?.(String(c.name));
    else out.push(c);
  }
  return out;
}
