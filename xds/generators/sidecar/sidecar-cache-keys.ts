/**
 * XdsCache keys of the sidecar generator: every input a builder reads is either in the key or a
 * dependency of the entry (a wrong key serves wrong config to another proxy, which is worse than slow).
 *
 * Outbound cluster (`buildOutboundCluster`) reads: the cluster name (port, subset, host); the service
 * (resolution, ports, location, namespace, service accounts: dependency `ServiceEntry/<ns>/<host>`,
 * plus its declaring config in the key: proxies of two namespaces may each see their own service of one host,
 * PushContext.serviceFor); the DestinationRule that
 * applies to the proxy (by its namespace and, for a rule with a workloadSelector, its labels: its
 * identity in the key, so a DestinationRule that starts or stops applying changes the key; its own key a
 * dependency, so an edit clears; a rule merged from several names them all); the endpoints of the host
 * (DNS targets and SANs: endpoint pushes name `ServiceEntry/<ns>/<host>`); PeerAuthentication through
 * `mtlsMode` (dependency `kind:PeerAuthentication`); the mesh config (connect timeout, DNS refresh,
 * auto mTLS, trust domain: a mesh config change is a full push naming nothing, which clears all). The
 * proxy itself only decides which clusters it gets (visibility, Sidecar scope), not their bytes, so
 * proxies of every namespace that see the same DestinationRule share an entry.
 *
 * Load assignment (`buildSidecarLoadAssignment`) reads the same service, DestinationRule (subset
 * labels, outlier detection, locality LB setting), endpoints and PeerAuthentication (`kind:` dependency), plus the proxy's locality when locality
 * LB applies (distribute, or failover with outlier detection) and its labels for `failoverPriority`
 * (then in the key).
 *
 * Route configuration (`buildSidecarRouteConfiguration`) reads the proxy's namespace (domains,
 * VirtualService visibility, sourceNamespace matches), its Sidecar scope (the HTTP services on the
 * port and the outbound mode: both in the key, as a digest), its labels only through sourceLabels
 * matches (in the key when any VirtualService has one), every VirtualService (`kind:` dependency) and the
 * services it names (dependencies the builder collects), and the DestinationRules whose consistent hash the
 * routes carry (every rule read a dependency; the proxy's DestinationRule selection and a digest of every
 * rule's identity in the key, so a rule that starts or stops applying changes it). Its virtual hosts are
 * cached one by one too (sidecar-route-cache.ts).
 */
import { createHash } from 'node:crypto';
import { destinationRuleKey, destinationRuleSources, type Config, type MeshConfig, type PushContext, type Proxy, type Service } from '../../../core/index.js';
import type { VirtualServiceSpec } from '../../../crds/index.js';
import { effectivePolicy } from '../grpc/cluster-builder.js';
import { routesHttp } from './cluster-builder.js';
import { ipModeKey } from './listener-address.js';
import { localityLbMode } from './locality-lb.js';
import { destinationRulesKey } from './route-hash.js';
import type { SidecarScope } from './sidecar-scope.js';

/** The dependencies of an outbound cluster of `svc` built with DestinationRule `dr`. */
export function clusterDependencies(svc: Service, dr: Config | undefined): string[] {
  const deps = [`ServiceEntry/${svc.namespace}/${svc.hostname}`, 'kind:PeerAuthentication'];
  if (dr) deps.push(...destinationRuleSources(dr));
  return deps;
}

/**
 * The key of outbound cluster `name` of `svc` with DestinationRule `dr` (see the file comment); for a DNS
 * service the IP mode of `proxy` joins it (the DNS lookup family follows it; listener-address.ts).
 */
export function sidecarClusterKey(name: string, svc: Service, dr: Config | undefined, proxy?: Pick<Proxy, 'ipAddresses'>): string {
  const dns = proxy && (svc.resolution === 'DNS' || svc.resolution === 'DNS_ROUND_ROBIN') ? ipModeKey(proxy) : '';
  return `scds|${name}|${svc.source}|${dr ? destinationRuleKey(dr) : '-'}${dns}`;
}

/**
 * The key of the load assignment `name`; the proxy's locality joins when locality LB (distribute or
 * failover) depends on it, and its labels when `failoverPriority` reads them.
 */
export function sidecarEndpointsKey(name: string, svc: Service, dr: Config | undefined, subset: string, port: number, proxy: Proxy, mesh: MeshConfig): string {
  return sidecarEndpointsKeyOf(name, svc, dr, subset, port, proxy, mesh).key;
}

/** {@link sidecarEndpointsKey}, and whether it reads the proxy's labels (failoverPriority on labels). */
export function sidecarEndpointsKeyOf(name: string, svc: Service, dr: Config | undefined, subset: string, port: number, proxy: Proxy, mesh: MeshConfig): { key: string; usesLabels: boolean } {
  const base = `seds|${name}|${svc.source}|${dr ? destinationRuleKey(dr) : '-'}`;
  const { mode, usesLabels } = localityLbMode(effectivePolicy(dr, subset, port), mesh, proxy);
  if (mode === 'none') return { key: base, usesLabels: false };
  const withLocality = `${base}|${proxy.locality.region}/${proxy.locality.zone}/${proxy.locality.subZone}`;
  if (!usesLabels) return { key: withLocality, usesLabels: false };
  return { key: `${withLocality}|${Object.keys(proxy.labels).sort().map((k) => `${k}=${proxy.labels[k]}`).join(',')}`, usesLabels: true };
}

/** The dependencies of a load assignment of `svc` with DestinationRule `dr`. */
export function endpointsDependencies(svc: Service, dr: Config | undefined): string[] {
  // NOTE: PeerAuthentication decides which endpoints carry the auto mTLS metadata (a DISABLE port does not).
  const deps = [`ServiceEntry/${svc.namespace}/${svc.hostname}`, 'kind:PeerAuthentication'];
  if (dr) deps.push(...destinationRuleSources(dr));
  return deps;
}

const scopeDigests = new WeakMap<SidecarScope, Map<number, string>>();

/** A digest of what the Sidecar scope gives route configuration `port`: the HTTP services on it and the outbound mode. */
function scopeDigest(scope: SidecarScope, port: number): string {
  let byPort = scopeDigests.get(scope);
  if (!byPort) scopeDigests.set(scope, (byPort = new Map()));
  let d = byPort.get(port);
  if (d === undefined) {
    const h = createHash('sha256').update(scope.outboundMode);
    for (const s of scope.routeServices(port)) if (s.ports.some((p) => p.port === port && routesHttp(p))) h.update(`\n${s.source}/${s.hostname}`);
    d = h.digest('base64url');
    byPort.set(port, d);
  }
  return d;
}

const bySourceLabels = new WeakMap<PushContext, boolean>();

/** Whether any VirtualService of the context matches on source labels (then routes differ per proxy labels). */
export function anySourceLabels(ctx: PushContext): boolean {
  let known = bySourceLabels.get(ctx);
  if (known === undefined) {
    known = ctx.configs.byIndex('kind', 'VirtualService').some((vs) =>
      ((vs.spec as unknown as VirtualServiceSpec).http ?? []).some((r) => (r.match ?? []).some((m) => m.sourceLabels !== undefined)),
    );
    bySourceLabels.set(ctx, known);
  }
  return known;
}

/** The key of route configuration `name` (`<port>` or a sniffed port's `<host>:<port>`) for a proxy with scope `scope`. */
export function sidecarRouteKey(ctx: PushContext, proxy: Proxy, scope: SidecarScope, name: string): string {
  const port = Number(name.slice(name.lastIndexOf(':') + 1));
  const rules = destinationRulesKey(ctx);
  const base = `srds|${name}|${proxy.namespace}|${scopeDigest(scope, port)}${rules === '' ? '' : `|dr:${ctx.destinationRuleSelection(proxy)}|${rules}`}`;
  if (!anySourceLabels(ctx)) return base;
  const labels = Object.keys(proxy.labels).sort().map((k) => `${k}=${proxy.labels[k]}`).join(',');
  return `${base}|${labels}`;
}
