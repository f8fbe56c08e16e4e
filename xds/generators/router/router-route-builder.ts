/**
 * Route configurations of a router (gateway) proxy (istiod's buildGatewayHTTPRouteConfig): for route
 * configuration `http.<port>` (plain HTTP servers sharing a port) or `https.<port>.<portName>.<gateway>.<ns>`
 * (one terminated HTTPS server), every VirtualService bound to the server's Gateway (`gateways:` names
 * it as `ns/name`, `name` in the VirtualService's namespace, or `name.ns`) and visible to the proxy's
 * namespace contributes a virtual host per host it shares with the server (`ns/host` server hosts,
 * wildcards intersected as istiod does: the narrower name wins), domains the host alone (the port is
 * ignored in host matching), the VirtualService's HTTP routes for that gateway and server port (the
 * sidecar's route builder, with match `gateways` read for this gateway). Hosts of several
 * VirtualServices share one virtual host (routes appended in order). `tls.httpsRedirect` makes a virtual
 * host require TLS. No virtual host at all gives istiod's `blackhole:<port>` (404 for everything). With
 * PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION (default true) virtual hosts with the same routes are merged
 * (collapseVirtualHosts).
 */
import { hostMatches, resolveShortName, visibleTo, type Config, type PushContext, type Proxy } from '../../../core/index.js';
import type { VirtualServiceSpec } from '../../../crds/index.js';
import { qualifiedGateway, virtualServiceRoutes, type RouteBuild } from '../sidecar/http-routes.js';
import { provenance } from '../sidecar/sidecar-names.js';
import { splitServerHost, type MergedGateway, type RouterServer } from './merged-gateway.js';
import type { RouteConfiguration } from '../../envoy-types/index.js';

/** The VirtualServices bound to a gateway (`namespace/name`) and visible from `from`, oldest first. */
export function virtualServicesForGateway(ctx: PushContext, gatewayName: string, from: string): Config[] {
  return ctx.configs
    .byIndex('kind', 'VirtualService')
    .filter((vs) => {
      const spec = vs.spec as unknown as VirtualServiceSpec & { exportTo?: string[] };
      if (!(spec.gateways ?? []).some((g) => qualifiedGateway(g, vs.metadata.namespace) === gatewayName)) return false;
      return visibleTo(spec.exportTo, ctx.meshConfig.defaultVirtualServiceExportTo, vs.metadata.namespace, from);
    })
    .sort((a, b) => {
      const ta = a.metadata.creationTimestamp ?? '';
      const tb = b.metadata.creationTimestamp ?? '';
      if (ta !== tb) return ta < tb ? -1 : 1;
      return `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}` ? -1 : 1;
    });
}

/**
 * The hosts a server and a VirtualService share (istiod's host.Names.Intersection): the server's hosts
 * whose namespace part admits the VirtualService's namespace (`*`, `.` for the Gateway's own, or the
 * name), against the VirtualService's hosts; where one is a wildcard covering the other, the narrower.
 */
export function intersectHosts(server: RouterServer, vs: Config, domain: string): string[] {
  const vsNs = vs.metadata.namespace;
  const serverHosts = server.server.hosts
    .map(splitServerHost)
    .filter(({ namespace }) => namespace === '*' || namespace === vsNs || (namespace === '.' && server.gateway.metadata.namespace === vsNs))
    .map(({ host }) => host.toLowerCase());
  const vsHosts = ((vs.spec as unknown as VirtualServiceSpec).hosts ?? []).map((h) => resolveShortName(h, vsNs, domain).toLowerCase());
  const out: string[] = [];
  for (const sh of serverHosts) {
    for (const vh of vsHosts) {
      const h = hostMatches(sh, vh) ? vh : hostMatches(vh, sh) ? sh : undefined;
      if (h !== undefined && !out.includes(h)) out.push(h);
    }
  }
  return out;
}

/** A built route configuration and the configs it read (for provenance and tests). */
export interface BuiltRouterRoutes {
  readonly resource: RouteConfiguration;
  readonly virtualServices: readonly Config[];
}

/** A virtual host being built, with the configs behind it. */
type BuildingHost = Record<string, unknown> & { domains: string[]; routes: Record<string, unknown>[]; sources: Config[] };

/** How router route configurations are built: process-wide options, read once at start (see generatorOptionsFromEnv). */
export interface RouterRouteOptions {
  /** PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION (default true): virtual hosts with the same routes become one (collapseVirtualHosts). */
  readonly routeCollapse?: boolean;
}

/** istiod's host.MoreSpecific order: non-wildcards first, longest first, then alphabetically. */
function moreSpecificFirst(a: string, b: string): number {
  const wa = a.startsWith('*');
  const wb = b.startsWith('*');
  if (wa !== wb) return wa ? 1 : -1;
  if (a.length !== b.length) return b.length - a.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * istiod's collapseDuplicateRoutes (PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION): in host order (most specific
 * first), a virtual host whose routes are the very same route objects as an earlier one's (the hosts of one
 * VirtualService, or of the same VirtualServices in the same order; istiod compares route pointers), with the
 * same includeRequestAttemptCount and requireTls, joins it: its domains (and the configs behind it) are
 * appended to the earlier one, which keeps its name. Only the last host seen with a given route list is a
 * merge target, as istiod's map by route hash.
 * NOTE: istiod collapses gateway route configurations only; sidecar route configurations are never collapsed.
 */
export function collapseVirtualHosts(vhosts: ReadonlyMap<string, BuildingHost>): Map<string, BuildingHost> {
  const ids = new Map<Record<string, unknown>, number>();
  const routeKey = (routes: readonly Record<string, unknown>[]): string => routes.map((r) => ids.get(r) ?? ids.set(r, ids.size).get(r)!).join(',');
  const out = new Map<string, BuildingHost>();
  const known = new Map<string, string>();
  for (const h of [...vhosts.keys()].sort(moreSpecificFirst)) {
    const vh = vhosts.get(h)!;
    const key = routeKey(vh.routes);
    const target = known.has(key) ? out.get(known.get(key)!) : undefined;
    if (target && target['includeRequestAttemptCount'] === vh['includeRequestAttemptCount'] && target['requireTls'] === vh['requireTls']) {
      target.domains.push(...vh.domains);
      for (const c of vh.sources) if (!target.sources.includes(c)) target.sources.push(c);
      continue;
    }
    known.set(key, h);
    out.set(h, { ...vh, domains: [...vh.domains], sources: [...vh.sources] });
  }
  return out;
}

/** Builds route configuration `name` of a router, or undefined when no server of the proxy's Gateways uses it (Envoy still asks while a listener drains: istiod answers an empty one; so do we, see the caller). */
export function buildRouterRouteConfiguration(ctx: PushContext, proxy: Proxy, merged: MergedGateway, name: string, opts: RouterRouteOptions = {}): BuiltRouterRoutes | undefined {
  const servers = merged.serversByRoute.get(name);
  if (!servers || servers.length === 0) return undefined;
  const vhosts = new Map<string, BuildingHost>();
  const used: Config[] = [];
  for (const s of servers) {
    const port = s.server.port.number;
    const redirect = s.server.tls?.httpsRedirect === true;
    const b: RouteBuild = { ctx, proxy, port, deps: new Set(), gateways: new Set([s.gatewayName]) };
    for (const vs of virtualServicesForGateway(ctx, s.gatewayName, proxy.namespace)) {
      const hosts = intersectHosts(s, vs, ctx.domain);
      if (hosts.length === 0) continue;
      if (!used.includes(vs)) used.push(vs);
      const routes = virtualServiceRoutes(b, vs);
      for (const h of hosts) {
        const vh = vhosts.get(h);
        if (vh) {
          vh.routes.push(...routes);
          if (!vh.sources.includes(vs)) vh.sources.push(vs);
          if (redirect) vh['requireTls'] = 'ALL';
          continue;
        }
        vhosts.set(h, { name: `${h}:${port}`, domains: [h], routes: [...routes], includeRequestAttemptCount: true, sources: [vs], ...(redirect ? { requireTls: 'ALL' } : {}) });
      }
    }
    if (redirect) {
      for (const { host } of s.server.hosts.map(splitServerHost)) {
        const h = host.toLowerCase();
        const vh = vhosts.get(h);
        if (vh) vh['requireTls'] = 'ALL';
        else vhosts.set(h, { name: `${h}:${port}`, domains: [h], routes: [], includeRequestAttemptCount: true, requireTls: 'ALL', sources: [] });
      }
    }
  }
  let virtualHosts: Record<string, unknown>[];
  if (vhosts.size === 0) {
    virtualHosts = [{ name: `blackhole:${servers[0]!.server.port.number}`, domains: ['*'], routes: [] }];
  } else {
    virtualHosts = [...(opts.routeCollapse !== false ? collapseVirtualHosts(vhosts) : vhosts).values()]
      .map(({ sources, ...vh }) => {
        const meta = provenance(sources);
        return meta ? { ...vh, metadata: meta } : vh;
      })
      .sort((a, b) => (String(a['name']) < String(b['name']) ? -1 : 1));
  }
  return { resource: { name, virtualHosts, validateClusters: { value: false }, ignorePortInHostMatching: true }, virtualServices: used };
}

/** An empty route configuration (what istiod answers for a name no server uses any more). */
export function emptyRouteConfiguration(name: string): RouteConfiguration {
  return { name, virtualHosts: [], validateClusters: { value: false } };
}
