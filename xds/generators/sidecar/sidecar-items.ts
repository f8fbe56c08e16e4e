/**
 * The items of the sidecar generator: for each xDS type, the resources a sidecar gets as names with their cache
 * keys and builders, shared through the ScopeMemo by the sidecars of one Sidecar scope where the inputs allow
 * (sidecar-generator.ts resolves them into bytes: known bytes, cache hits, else built and cached).
 */
import { definedFields, type Proxy, type PushRequest, type PushSnapshot } from '../../../core/index.js';
import type { XdsCache } from '../../cache/xds-cache.js';
import { encode } from '../../protos/codec.js';
import type { GeneratedResource, WatchedResource } from '../../server/contracts.js';
import { outboundClusterName, parseOutboundClusterName } from '../grpc/envoy.js';
import type { SidecarBuilderOptions } from './builder-options.js';
import { changedServiceHosts, outboundClusterNamesOf, serviceViewKey } from './changed-services.js';
import { buildOutboundCluster, buildSpecialClusters, subsetsOf, type OutboundClusterOptions } from './cluster-builder.js';
import { buildInboundClusterFrom, buildProxyInboundCluster, inboundClusterDependencies, inboundClusterInputs, inboundClusterKey, proxyInboundPorts } from './inbound-clusters.js';
import type { ConflictSink } from './conflict-recorder.js';
import { buildSidecarLoadAssignment, type SidecarEndpointOptions } from './endpoint-builder.js';
import { ipMode, ipModeKey } from './listener-address.js';
import { buildSidecarRouteConfiguration, parseRouteConfigurationName } from './route-builder.js';
import type { ScopeMemo } from './scope-memo.js';
import { clusterDependencies, endpointsDependencies, sidecarClusterKey, sidecarEndpointsKeyOf, sidecarRouteKey } from './sidecar-cache-keys.js';
import { ENVOY, inboundClusterName } from './sidecar-names.js';
import { encodedRouteConfiguration } from './sidecar-route-cache.js';
import { scopedServiceFor, sidecarScope, type SidecarScope, scopedDestinationRule } from './sidecar-scope.js';

/** One resource to serve: its name and, on a cache miss, how to build it with its cache key and dependencies. */
export interface Item {
  readonly name: string;
  readonly key: string | undefined;
  /** Builds the resource; `onConflict` hears what the build met (kept with the bytes by the caller). */
  readonly build: (onConflict: ConflictSink) => { resource: Record<string, unknown>; dependencies: readonly string[] } | undefined;
  /** Builds the bytes directly from cached parts (a keyed route configuration); `build` is then not called. */
  readonly encoded?: (onConflict: ConflictSink) => { body: Uint8Array; dependencies: readonly string[] } | undefined;
  /** A keyed item shared through the ScopeMemo: its bytes once a proxy of the scope resolved them in this snapshot. */
  body?: Uint8Array;
  /** With `body`: the resource served, made once. */
  resource?: GeneratedResource;
}

/** The cluster builder's options from the generator's. */
export function clusterOptions(o: SidecarBuilderOptions): OutboundClusterOptions {
  return { edsForHeadless: o.edsForHeadless === true, ...definedFields(o, ['autoSni', 'verifyCertAtClient', 'redisFilter', 'listener']) };
}

/**
 * The watched load assignment names of the services `hosts`, sorted: every outbound cluster name those
 * services have for the proxy (port x subset of the DestinationRule that applies) that the proxy watches.
 * NOTE: derived from the few changed services rather than by parsing every watched name (a sidecar
 * watches one per cluster of the mesh); a watched name of those hosts that is not derived here (an unknown
 * port or subset) would build nothing anyway.
 */
export function watchedOfHosts(snap: PushSnapshot, p: Proxy, watched: WatchedResource, hosts: ReadonlySet<string>): string[] {
  // NOTE: asked for every proxy of an endpoint push with the push's one set of hosts (incrementalEdsHosts): the
  // names are kept per snapshot, set of hosts and the proxy's view of services and rules.
  let byHosts = namesOfHosts.get(snap);
  if (!byHosts) namesOfHosts.set(snap, (byHosts = new WeakMap()));
  let byView = byHosts.get(hosts);
  if (!byView) byHosts.set(hosts, (byView = new Map()));
  const view = serviceViewKey(snap.pushContext, p);
  let names = byView.get(view);
  if (!names) byView.set(view, (names = outboundClusterNamesOf(snap, p, hosts, false).sort()));
  return names.filter((n) => watched.names.has(n));
}

const namesOfHosts = new WeakMap<PushSnapshot, WeakMap<ReadonlySet<string>, Map<string, readonly string[]>>>();

const byName = (a: Item, b: Item): number => (a.name < b.name ? -1 : 1);

/**
 * The clusters of a sidecar in buildSidecarClusters' order; outbound clusters keyed when `cached`. With
 * a memo and every cluster asked for, the outbound ones come from the memo of the proxy's scope.
 */
export function clusterItems(p: Proxy, snap: PushSnapshot, names: readonly string[] | undefined, memo: ScopeMemo | undefined, cached: boolean, o: SidecarBuilderOptions): Item[] {
  const want = names && names.length > 0 ? new Set(names) : undefined;
  if (!memo || want) return [...outboundClusterItems(p, snap, want, cached, o), ...localClusterItems(p, snap, want, o)].sort(byName);
  // NOTE: the outbound part depends on the proxy only through its scope and the DestinationRules whose
  // workloadSelector picks it (see sidecarClusterKey); the locality joins the memo key so that a
  // locality-dependent cluster field would not be shared across zones.
  const loc = p.locality;
  // NOTE: so does the proxy's IP mode (the DNS lookup family of DNS clusters; see listener-address.ts).
  const part = `cds\n${loc.region}/${loc.zone}/${loc.subZone}${ipModeKey(p)}\n${snap.pushContext.destinationRuleSelection(p)}`;
  const shared = memo.of(snap, sidecarScope(snap.pushContext, p), part, () => outboundClusterItems(p, snap, undefined, true, o).sort(byName));
  return mergeByName(shared, localClusterItems(p, snap, undefined, o, memo).sort(byName));
}

/**
 * Over delta, the clusters a push changing services and DestinationRules only may have changed for p, whose
 * clusters were last built from `prev`: those of the changed services and p's own (inbound and special, always
 * rebuilt, as istiod), and as removed every name those services and p's own had in `prev` (the transport drops
 * from it what is sent again). Undefined when the push may have changed any cluster.
 */
export function changedClusterItems(p: Proxy, snap: PushSnapshot, prev: PushSnapshot, push: PushRequest, memo: ScopeMemo, o: SidecarBuilderOptions, unaffected: ReadonlySet<string>): { items: Item[]; removed: string[] } | undefined {
  const hosts = changedServiceHosts(push, snap, prev, p, unaffected);
  if (!hosts) return undefined;
  const loc = p.locality;
  const scope = sidecarScope(snap.pushContext, p);
  const part = `cds-changed\n${loc.region}/${loc.zone}/${loc.subZone}${ipModeKey(p)}\n${snap.pushContext.destinationRuleSelection(p)}\n${[...hosts].sort().join('\n')}`;
  const changed = memo.of(snap, scope, part, () => outboundClusterItems(p, snap, undefined, true, o, hosts).sort(byName));
  const removed = [...outboundClusterNamesOf(prev, p, hosts), ...localClusterItems(p, prev, undefined, o, memo).map((it) => it.name)];
  return { items: mergeByName(changed, localClusterItems(p, snap, undefined, o, memo).sort(byName)), removed };
}

/** Two lists sorted by name as one (what sorting their concatenation gives for distinct names). */
function mergeByName(a: readonly Item[], b: readonly Item[]): Item[] {
  const out: Item[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(byName(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * The outbound clusters of the proxy's scope (of `hosts` only, when given), keyed when `cached`.
 * NOTE: the options are process-wide (read once at start), so they need no part in the cache keys.
 */
function outboundClusterItems(p: Proxy, snap: PushSnapshot, want: ReadonlySet<string> | undefined, cached: boolean, o: SidecarBuilderOptions, hosts?: ReadonlySet<string>): Item[] {
  const opts = clusterOptions(o);
  const ctx = snap.pushContext;
  const items: Item[] = [];
  for (const svc of sidecarScope(ctx, p).services) {
    if (hosts && !hosts.has(svc.hostname)) continue;
    const dr = scopedDestinationRule(ctx, p, svc.hostname);
    const subsets = ['', ...subsetsOf(dr).map((s) => s.name)];
    for (const port of svc.ports) {
      for (const subset of subsets) {
        const name = outboundClusterName(port.port, subset, svc.hostname);
        if (want && !want.has(name)) continue;
        items.push({
          name,
          key: cached ? sidecarClusterKey(name, svc, dr, p) : undefined,
          build: (onConflict) => {
            const resource = buildOutboundCluster(ctx, p, svc, port, subset, snap.endpoints, opts, (n) => onConflict('pilot_dns_cluster_without_endpoints', n));
            return resource ? { resource, dependencies: clusterDependencies(svc, dr) } : undefined;
          },
        });
      }
    }
  }
  return items;
}

/**
 * The proxy's own clusters: inbound per inbound port, and the special ones. With a memo, the inbound ones are
 * keyed by a digest of their inputs (inboundClusterKey), so the proxies of one workload share them across
 * snapshots, and the special ones are built and encoded once per snapshot and scope (they read only the IP mode
 * and the mesh config); without one (PILOT_ENABLE_CDS_CACHE off) every cluster is built for the proxy.
 */
function localClusterItems(p: Proxy, snap: PushSnapshot, want: ReadonlySet<string> | undefined, o: SidecarBuilderOptions, memo?: ScopeMemo): Item[] {
  const ctx = snap.pushContext;
  const ports = proxyInboundPorts(ctx, p, snap.endpoints);
  const item = (c: Record<string, unknown>): Item => ({ name: c['name'] as string, key: undefined, build: () => ({ resource: c, dependencies: [] }) });
  const mode = ipMode(p);
  let local: Item[];
  if (!memo) local = [...ports.map((ip) => buildProxyInboundCluster(ctx, p, ip, o.listener)), ...buildSpecialClusters(ctx, mode)].map(item);
  else {
    const scope = sidecarScope(ctx, p);
    const shared = (c: Record<string, unknown>): Item => ({ ...item(c), body: encode(ENVOY.cluster, c) });
    // NOTE: the bind addresses of passthrough clusters follow the proxy's IP mode (in the memo key).
    const m = ipModeKey(p);
    // NOTE: inbound clusters are keyed by a digest of their inputs (inboundClusterInputs: a default endpoint that
    // names the proxy's own address is in it), so they are shared across snapshots through the cache.
    local = [
      ...ports.map((ip) => {
        const inputs = inboundClusterInputs(ctx, p, ip, o.listener);
        const key = inboundClusterKey(inputs);
        return memo.of(snap, scope, key, (): Item => ({ name: inboundClusterName(ip.targetPort), key, build: () => ({ resource: buildInboundClusterFrom(inputs), dependencies: inboundClusterDependencies(ip) }) }));
      }),
      ...memo.of(snap, scope, `cds-special${m}`, () => buildSpecialClusters(ctx, mode).map(shared)),
    ];
  }
  return want ? local.filter((it) => want.has(it.name)) : local;
}

/**
 * The load assignments asked for, keyed when cached (a memo is given) and the name is an outbound cluster
 * in the proxy's scope. Keyed items are shared through the memo by the proxies of the scope in the same
 * locality picked by the same selector DestinationRules (the key's other inputs but the labels, whose
 * items are not shared; see sidecarEndpointsKey).
 */
export function endpointItems(p: Proxy, snap: PushSnapshot, names: readonly string[], memo: ScopeMemo | undefined, o: SidecarEndpointOptions): Item[] {
  const scope = sidecarScope(snap.pushContext, p);
  if (!memo) return names.map((name) => endpointItem(p, snap, scope, name, false, o).item);
  const loc = p.locality;
  const part = `eds\n${loc.region}/${loc.zone}/${loc.subZone}\n${snap.pushContext.destinationRuleSelection(p)}`;
  const shared = memo.of(snap, scope, part, () => new Map<string, Item>());
  return names.map((name) => {
    const known = shared.get(name);
    if (known) return known;
    const { item, usesLabels } = endpointItem(p, snap, scope, name, true, o);
    // NOTE: an assignment shaped by the proxy's labels (failoverPriority on labels) is not shared.
    if (item.key !== undefined && !usesLabels) shared.set(name, item);
    return item;
  });
}

/** One load assignment's item (see endpointItems). */
function endpointItem(p: Proxy, snap: PushSnapshot, scope: SidecarScope, name: string, cached: boolean, o: SidecarEndpointOptions): { item: Item; usesLabels: boolean } {
  const ctx = snap.pushContext;
  const build = (): { resource: Record<string, unknown>; dependencies: readonly string[] } | undefined => {
    const resource = buildSidecarLoadAssignment(ctx, p, name, snap.endpoints, o);
    const parsed = parseOutboundClusterName(name);
    const svc = parsed ? scopedServiceFor(ctx, p, parsed.host) : undefined;
    return resource && svc ? { resource, dependencies: endpointsDependencies(svc, scopedDestinationRule(ctx, p, svc.hostname)) } : undefined;
  };
  const parsed = cached ? parseOutboundClusterName(name) : undefined;
  const svc = parsed ? scopedServiceFor(ctx, p, parsed.host) : undefined;
  // NOTE: only names the builder serves get a key (the scope decides which proxies may read it).
  if (!parsed || !svc || !scope.includesPort(svc, parsed.port)) return { item: { name, key: undefined, build }, usesLabels: false };
  const dr = scopedDestinationRule(ctx, p, svc.hostname);
  const { key, usesLabels } = sidecarEndpointsKeyOf(name, svc, dr, parsed.subset, parsed.port, p, ctx.meshConfig);
  return { item: { name, key, build }, usesLabels };
}

/** The route configurations asked for; with a cache, keyed and encoded from cached virtual hosts (sidecar-route-cache.ts). */
export function routeItems(p: Proxy, snap: PushSnapshot, names: readonly string[], cache: XdsCache | undefined): Item[] {
  const ctx = snap.pushContext;
  const scope = sidecarScope(ctx, p);
  const encodeRoute = (r: Record<string, unknown>): Uint8Array => encode(ENVOY.route, r);
  return names.map((name) => {
    const report = <T extends { duplicateDomains: readonly string[] }>(r: T | undefined, onConflict: ConflictSink): T | undefined => {
      for (const k of r?.duplicateDomains ?? []) onConflict('pilot_vservice_dup_domain', k);
      return r;
    };
    const build = (onConflict: ConflictSink): ReturnType<Item['build']> => report(buildSidecarRouteConfiguration(ctx, p, name), onConflict);
    // NOTE: a unix socket's route configuration (`unix://<path>`, one per Sidecar bind) is built uncached.
    const parsed = parseRouteConfigurationName(name);
    if (!cache || !parsed || parsed.bind !== undefined) return { name, key: undefined, build };
    return { name, key: sidecarRouteKey(ctx, p, scope, name), build, encoded: (onConflict) => report(encodedRouteConfiguration(cache, ctx, p, name, snap.token, encodeRoute), onConflict) };
  });
}
