/**
 * Outbound TCP and TLS listeners of a dataplane sidecar (Istio's buildSidecarOutboundTCPListenerOpts /
 * TLS SNI chains): a TCP service port with a VIP gets `<vip>_<port>` with tcp_proxy, weighted by the
 * first VirtualService `tcp` route whose match applies (port, source labels, source namespace); a TLS
 * or HTTPS port gets, on `<vip>_<port>` (or `0.0.0.0_<port>` without a VIP), one filter chain per
 * VirtualService `tls` route matching its `sniHosts` and else one matching the service's host as SNI,
 * with tls_inspector to read the SNI. A MONGO or REDIS port's chain carries the Mongo or Redis proxy
 * (PILOT_ENABLE_MONGO_FILTER, PILOT_ENABLE_REDIS_FILTER; see protocolFilters). A tcp_proxy to a service whose
 * DestinationRule hashes on the source IP carries that hash policy (istiod's maybeSetHashPolicy; route-hash.ts).
 */
import { labelsMatch, resolveShortName, type Config, type PushContext, type Proxy, type Service, type ServicePort } from '../../../core/index.js';
import type { VirtualServiceSpec } from '../../../crds/index.js';
import { any, outboundClusterName } from '../grpc/envoy.js';
import { tcpSourceIpHash } from './route-hash.js';
import { ENVOY, provenance } from './sidecar-names.js';
import { scopedServiceFor } from './sidecar-scope.js';

type RouteDestination = NonNullable<NonNullable<VirtualServiceSpec['tcp']>[number]['route']>[number];
type L4Match = { port?: number; sourceLabels?: Record<string, string>; sourceNamespace?: string; gateways?: string[] };

/** Whether the protocol is TLS-wrapped end to end (routed by SNI, not terminated by the sidecar). */
export function isTlsPort(p: ServicePort): boolean {
  return p.protocol === 'TLS' || p.protocol === 'HTTPS';
}

function l4Applies(m: L4Match, proxy: Proxy, port: number): boolean {
  return (
    (m.port === undefined || m.port === port) &&
    labelsMatch(m.sourceLabels, proxy.labels) &&
    (m.sourceNamespace === undefined || m.sourceNamespace === proxy.namespace) &&
    (m.gateways === undefined || m.gateways.length === 0 || m.gateways.includes('mesh'))
  );
}

/** Which protocol proxies TCP chains carry: process-wide options, read once at start (see generatorOptionsFromEnv). */
export interface NetworkFilterOptions {
  /**
   * PILOT_ENABLE_REDIS_FILTER (default false): a REDIS port's chain ends in the Redis proxy (its catch-all
   * route to the chain's cluster, the first of weighted ones, as istiod) instead of tcp_proxy.
   */
  readonly redisFilter?: boolean;
  /** PILOT_ENABLE_MONGO_FILTER (default true, as istiod): a MONGO port's chain has the Mongo proxy before tcp_proxy. */
  readonly mongoFilter?: boolean;
}

/** Envoy's Redis proxy operation timeout that istiod sets (5 s). */
const REDIS_OP_TIMEOUT = { seconds: 5, nanos: 0 };

/**
 * The network filters of a TCP chain for a port's protocol (istiod's buildNetworkFiltersStack): the Mongo
 * proxy then tcp_proxy (MONGO, with mongoFilter), the Redis proxy alone (REDIS, with redisFilter), else tcp_proxy.
 * NOTE: MYSQL gets tcp_proxy alone: the MySQL proxy is an Envoy contrib filter, refused at start (generatorOptionsFromEnv).
 */
export function protocolFilters(protocol: ServicePort['protocol'], tcpProxy: Record<string, unknown>, opts: NetworkFilterOptions): Record<string, unknown>[] {
  const tc = tcpProxy['typedConfig'] as { statPrefix: string; cluster?: string; weightedClusters?: { clusters: { name: string }[] } };
  if (protocol === 'MONGO' && opts.mongoFilter !== false) {
    return [{ name: 'envoy.filters.network.mongo_proxy', typedConfig: any(ENVOY.mongoProxy, { statPrefix: tc.statPrefix }) }, tcpProxy];
  }
  if (protocol === 'REDIS' && opts.redisFilter === true) {
    const cluster = tc.cluster ?? tc.weightedClusters?.clusters[0]?.name ?? '';
    return [
      {
        name: 'envoy.filters.network.redis_proxy',
        typedConfig: any(ENVOY.redisProxy, { statPrefix: tc.statPrefix, latencyInMicros: true, settings: { opTimeout: REDIS_OP_TIMEOUT }, prefixRoutes: { catchAllRoute: { cluster } } }),
      },
    ];
  }
  return [tcpProxy];
}

/**
 * The source-IP hash of a tcp_proxy to route destinations (istiod's buildOutboundNetworkFilters): the rule of
 * the first destination's service, with its subset when it is the only destination.
 */
function routeSourceIpHash(ctx: PushContext, proxy: Proxy, vs: Config, dests: readonly RouteDestination[]): Record<string, unknown> {
  const first = dests[0];
  if (!first) return {};
  const svc = scopedServiceFor(ctx, proxy, resolveShortName(first.destination.host, vs.metadata.namespace, ctx.domain));
  return svc ? tcpSourceIpHash(ctx, proxy, svc.hostname, dests.length === 1 ? (first.destination.subset ?? '') : '') : {};
}

/**
 * tcp_proxy to a TCP or TLS route's destinations (one cluster, or weighted clusters), short hosts resolved in the
 * VirtualService's namespace, for sidecars and gateways alike.
 */
export function tcpProxyTo(ctx: PushContext, proxy: Proxy, vs: Config, dests: readonly RouteDestination[], port: number, statPrefix: string): Record<string, unknown> | undefined {
  const clusters = dests
    .map((d) => {
      const host = resolveShortName(d.destination.host, vs.metadata.namespace, ctx.domain);
      const svc = scopedServiceFor(ctx, proxy, host);
      const p = d.destination.port?.number ?? (svc && svc.ports.length === 1 ? svc.ports[0]!.port : port);
      return { name: outboundClusterName(p, d.destination.subset ?? '', host), weight: d.weight ?? (dests.length === 1 ? 100 : 0) };
    })
    .filter((c) => c.weight > 0);
  if (clusters.length === 0) return undefined;
  const config = clusters.length === 1 ? { statPrefix, cluster: clusters[0]!.name } : { statPrefix, weightedClusters: { clusters } };
  return { name: 'envoy.filters.network.tcp_proxy', typedConfig: any(ENVOY.tcpProxy, { ...config, ...routeSourceIpHash(ctx, proxy, vs, dests) }) };
}

function plainTcpProxy(ctx: PushContext, proxy: Proxy, svc: Service, port: number): Record<string, unknown> {
  const cluster = outboundClusterName(port, '', svc.hostname);
  return { name: 'envoy.filters.network.tcp_proxy', typedConfig: any(ENVOY.tcpProxy, { statPrefix: cluster, cluster, ...tcpSourceIpHash(ctx, proxy, svc.hostname, '') }) };
}

/**
 * The filter chain of a TCP service port: its VirtualService's first applicable `tcp` route, else its own
 * cluster; with the protocol proxy of the port's protocol (protocolFilters).
 */
export function tcpChain(ctx: PushContext, proxy: Proxy, svc: Service, port: number, name: string, opts: NetworkFilterOptions = {}): Record<string, unknown> {
  const protocol = svc.ports.find((p) => p.port === port)?.protocol ?? 'TCP';
  const vs = ctx.virtualService(svc.hostname, proxy.namespace);
  const spec = vs?.spec as unknown as VirtualServiceSpec | undefined;
  for (const r of spec?.tcp ?? []) {
    const matches = r.match && r.match.length > 0 ? r.match : [{}];
    if (!matches.some((m) => l4Applies(m, proxy, port))) continue;
    const filter = tcpProxyTo(ctx, proxy, vs!, r.route ?? [], port, outboundClusterName(port, '', svc.hostname));
    if (!filter) continue;
    const meta = provenance([vs]);
    return { name: `${name}-tcp`, filters: protocolFilters(protocol, filter, opts), ...(meta ? { metadata: meta } : {}) };
  }
  return { name: `${name}-tcp`, filters: protocolFilters(protocol, plainTcpProxy(ctx, proxy, svc, port), opts) };
}

/** The SNI filter chains of a TLS service port: one per applicable VirtualService `tls` route, then the service's own host. */
export function tlsChains(ctx: PushContext, proxy: Proxy, svc: Service, port: number): Record<string, unknown>[] {
  const chains: Record<string, unknown>[] = [];
  const claimed = new Set<string>();
  const vs = ctx.virtualService(svc.hostname, proxy.namespace);
  const spec = vs?.spec as unknown as VirtualServiceSpec | undefined;
  for (const [i, r] of (spec?.tls ?? []).entries()) {
    const sni = [...new Set(r.match.filter((m) => l4Applies(m, proxy, port)).flatMap((m) => m.sniHosts ?? []))].filter((h) => !claimed.has(h));
    if (sni.length === 0) continue;
    const filter = tcpProxyTo(ctx, proxy, vs!, r.route ?? [], port, outboundClusterName(port, '', svc.hostname));
    if (!filter) continue;
    for (const h of sni) claimed.add(h);
    const meta = provenance([vs]);
    chains.push({ name: `${svc.hostname}:${port}-tls-${i}`, filterChainMatch: { serverNames: sni }, filters: [filter], ...(meta ? { metadata: meta } : {}) });
  }
  if (!claimed.has(svc.hostname)) chains.push({ name: `${svc.hostname}:${port}-tls`, filterChainMatch: { serverNames: [svc.hostname] }, filters: [plainTcpProxy(ctx, proxy, svc, port)] });
  return chains;
}

/** The listener filters of an SNI-routed listener. */
export function tlsListenerFilters(): Record<string, unknown>[] {
  return [{ name: 'envoy.filters.listener.tls_inspector', typedConfig: any(ENVOY.tlsInspector, {}) }];
}
