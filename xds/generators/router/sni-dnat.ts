/**
 * SNI-DNAT clusters of a router with AUTO_PASSTHROUGH servers (istiod's `outbound_.<port>_.<subset>_.<host>`
 * clusters, as its 2026-08 build serves them; compared with `npm run diff:istiod`): a mesh client's
 * sidecar opens mTLS to the gateway with that SNI, and the gateway forwards the bytes untouched. So each
 * cluster is the outbound cluster of the service port and subset without any upstream TLS (the client's
 * mTLS goes through to the endpoint), its EDS named after itself; the load assignment is the outbound
 * one under the SNI name, with only the endpoints that take mesh mTLS. The clusters cover every service visible
 * to the gateway's namespace but mesh-external ones; the listener's chains only those whose host an
 * AUTO_PASSTHROUGH server admits (`namespace/host` rules, `*` wildcards).
 */
import { definedFields, hostMatches, type EndpointView, type PushContext, type Proxy, type Service } from '../../../core/index.js';
import { outboundClusterName } from '../grpc/envoy.js';
import { buildOutboundCluster, subsetsOf, type OutboundClusterOptions } from '../sidecar/cluster-builder.js';
import { buildSidecarLoadAssignment, mtlsToEndpoint, type SidecarEndpointOptions } from '../sidecar/endpoint-builder.js';
import { sidecarScope } from '../sidecar/sidecar-scope.js';
import { splitServerHost, type MergedGateway, type RouterServer } from './merged-gateway.js';

type Obj = Record<string, unknown>;

/** `outbound_.<port>_.<subset>_.<host>` (subset '' gives `outbound_.<port>_._.<host>`). */
export function sniDnatClusterName(port: number, subset: string, host: string): string {
  return `outbound_.${port}_.${subset}_.${host}`;
}

/** The parts of an SNI-DNAT cluster name, or undefined for any other name. */
export function parseSniDnatClusterName(name: string): { port: number; subset: string; host: string } | undefined {
  // NOTE: subset names are DNS labels (no `_` or `.`), so the parts split unambiguously.
  const m = /^outbound_\.(\d{1,5})_\.([^_.]*)_\.(.+)$/.exec(name);
  if (!m) return undefined;
  const port = Number(m[1]);
  return port > 0 && port <= 65535 ? { port, subset: m[2]!, host: m[3]! } : undefined;
}

/** Whether an AUTO_PASSTHROUGH server admits a service (its `[namespace/]host` entries). */
export function serverAdmits(s: RouterServer, svc: Service): boolean {
  return s.server.hosts.map(splitServerHost).some((h) => {
    const nsOk = h.namespace === '*' || h.namespace === svc.namespace || (h.namespace === '.' && s.gateway.metadata.namespace === svc.namespace);
    return nsOk && hostMatches(h.host, svc.hostname);
  });
}

/** One SNI-DNAT target: a service port and subset some AUTO_PASSTHROUGH server admits. */
export interface SniDnatTarget {
  readonly svc: Service;
  readonly port: number;
  readonly subset: string;
  readonly name: string;
}

/**
 * The SNI-DNAT targets of the router (`scoped`: the router's scope proxy) among the services `admits` keeps, in
 * service order: every TCP port of each, with no subset and with each subset of its DestinationRule.
 */
export function sniDnatTargets(ctx: PushContext, scoped: Proxy, admits: (svc: Service) => boolean): SniDnatTarget[] {
  const out: SniDnatTarget[] = [];
  const seen = new Set<string>();
  for (const svc of sidecarScope(ctx, scoped).services) {
    if (!admits(svc)) continue;
    const subsets = ['', ...subsetsOf(ctx.destinationRule(svc.hostname, scoped)).map((x) => x.name)];
    for (const p of svc.ports) {
      if (p.protocol === 'UDP') continue;
      for (const subset of subsets) {
        const name = sniDnatClusterName(p.port, subset, svc.hostname);
        if (seen.has(name)) continue;
        seen.add(name);
        out.push({ svc, port: p.port, subset, name });
      }
    }
  }
  return out;
}

/** Every AUTO_PASSTHROUGH server of a merged gateway. */
export function autoPassthroughServers(merged: MergedGateway): RouterServer[] {
  return merged.ports.flatMap((p) => p.servers.filter((s) => s.kind === 'auto-passthrough'));
}

/**
 * The SNI-DNAT clusters (see the file comment). `opts.redisFilter`: PILOT_ENABLE_REDIS_FILTER (MAGLEV for a
 * REDIS port, as istiod's load balancer settings apply to them too).
 * NOTE: no TLS setting at all (istiod's SniDnatClusterMode skips it), so no ENABLE_AUTO_SNI options either.
 */
export function buildSniDnatClusters(ctx: PushContext, scoped: Proxy, merged: MergedGateway, endpoints: EndpointView, opts: Pick<OutboundClusterOptions, 'redisFilter'> = {}): Obj[] {
  if (autoPassthroughServers(merged).length === 0) return [];
  const clusterOpts: OutboundClusterOptions = { autoSni: false, ...definedFields(opts, ['redisFilter']) };
  // NOTE: as istiod's buildOutboundSniDnatClusters: every service of the scope but mesh-external ones, whatever
  // the servers' hosts (those pick the listener's chains only).
  return sniDnatTargets(ctx, scoped, (svc) => svc.location !== 'MESH_EXTERNAL').flatMap((t): Obj[] => {
    const port = t.svc.ports.find((p) => p.port === t.port)!;
    const built = buildOutboundCluster(ctx, scoped, t.svc, port, t.subset, endpoints, clusterOpts);
    // NOTE: as istiod's buildOutboundSniDnatClusters, a DNS cluster without endpoints is not built.
    if (!built) return [];
    const { transportSocket: _ts, transportSocketMatches: _tsm, ...c } = built;
    const out: Obj = { ...c, name: t.name };
    if (out['edsClusterConfig']) out['edsClusterConfig'] = { ...(out['edsClusterConfig'] as Obj), serviceName: t.name };
    if (out['loadAssignment']) out['loadAssignment'] = { ...(out['loadAssignment'] as Obj), clusterName: t.name };
    return [out];
  });
}

/**
 * The load assignment of an SNI-DNAT cluster name: the outbound one, renamed, keeping only endpoints
 * that take mesh mTLS (as istiod: the client's mTLS goes through to them); a locality left empty keeps
 * no weight. Undefined for other names.
 */
export function buildSniDnatLoadAssignment(ctx: PushContext, scoped: Proxy, name: string, endpoints: EndpointView, opts: SidecarEndpointOptions): Obj | undefined {
  const parsed = parseSniDnatClusterName(name);
  if (!parsed) return undefined;
  const la = buildSidecarLoadAssignment(ctx, scoped, outboundClusterName(parsed.port, parsed.subset, parsed.host), endpoints, opts);
  if (!la) return undefined;
  const svc = ctx.serviceFor(parsed.host, scoped.namespace);
  const byAddress = new Map(endpoints.instances(parsed.host, scoped.namespace).filter((i) => i.servicePort === parsed.port).map((i) => [`${i.address}:${i.port}`, i]));
  const keep = (e: Obj): boolean => {
    const a = ((e['endpoint'] as Obj | undefined)?.['address'] as Obj | undefined)?.['socketAddress'] as Obj | undefined;
    const i = byAddress.get(`${String(a?.['address'])}:${String(a?.['portValue'])}`);
    return i !== undefined && mtlsToEndpoint(ctx, i, svc?.namespace ?? scoped.namespace);
  };
  const groups = ((la['endpoints'] as Obj[] | undefined) ?? []).map((g) => {
    const lbEndpoints = ((g['lbEndpoints'] as Obj[] | undefined) ?? []).filter(keep);
    const weight = lbEndpoints.reduce((n, e) => n + Number(((e['loadBalancingWeight'] as Obj | undefined)?.['value'] as number | undefined) ?? 1), 0);
    const { loadBalancingWeight: _w, ...rest } = g;
    return { ...rest, lbEndpoints, ...(weight > 0 ? { loadBalancingWeight: { value: weight } } : {}) };
  });
  return { ...la, clusterName: name, endpoints: groups };
}
