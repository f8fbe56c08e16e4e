/**
 * Route configurations of a dataplane sidecar (Istio's httproute.go): one per outbound HTTP
 * port, named by the port (`80`, `9080`), with a virtual host per visible service on that port whose
 * domains are Istio's (FQDN, the FQDN with a trailing dot, short name in the proxy's namespace, `name.namespace.svc`, `name.namespace`,
 * the VIP, each with and without `:port`), the VirtualService's HTTP routes (http-routes.ts) or the default
 * route, and Istio's `allow_any` / `block_all` virtual host per outboundTrafficPolicy. A sniffed port of a
 * service with a VIP has its own route configuration `<host>:<port>` (istiod's naming), holding only that
 * service's virtual host.
 */
import { keyStringOf, type Config, type PushContext, type Proxy, type Service } from '../../../core/index.js';
import type { VirtualServiceSpec } from '../../../crds/index.js';
import { routesHttp } from './cluster-builder.js';
import { sidecarScope } from './sidecar-scope.js';
import { isUnixBind, UNIX_ADDRESS_PREFIX } from './unix-egress.js';
import { consistentHashToHashPolicy, hashForService } from './route-hash.js';
import { PASSTHROUGH_CLUSTER, provenance } from './sidecar-names.js';
import type { RouteConfiguration } from '../../envoy-types/index.js';
import { defaultRoute, virtualServiceRoutes, ZERO, type RouteBuild } from './http-routes.js';

/**
 * The virtual host domains Istio gives a service on a port, as seen from a proxy's namespace. Without `withPort`
 * the names alone: as istiod's sidecar route configurations, which ignore the Host's port in matching
 * (`ignorePortInHostMatching`); with it each name also with `:<port>` (a unix socket's configuration, see below).
 */
export function serviceDomains(svc: Service, port: number, proxyNamespace: string, domain: string, withPort = false): string[] {
  const names = [svc.hostname];
  const suffix = `.svc.${domain}`;
  if (svc.hostname.endsWith(suffix)) {
    const [name, ns] = svc.hostname.slice(0, -suffix.length).split('.');
    if (name && ns) {
      if (ns === proxyNamespace) names.push(name);
      names.push(`${name}.${ns}.svc`, `${name}.${ns}`);
    }
  }
  for (const a of svc.addresses) if (a && a !== '0.0.0.0') names.push(a.includes(':') ? `[${a}]` : a);
  // NOTE: as istiod, the FQDN with a trailing dot too (a client may send the absolute name as Host).
  names.splice(1, 0, `${svc.hostname}.`);
  return withPort ? names.flatMap((n) => [n, `${n}:${port}`]) : names;
}

/** A built route configuration and what it depends on. */
export interface BuiltRouteConfiguration {
  readonly resource: RouteConfiguration;
  readonly dependencies: readonly string[];
  /** The virtual hosts that lost a domain (see RouteConfigurationPlan.duplicateDomains). */
  readonly duplicateDomains: readonly string[];
}

/**
 * A sidecar route configuration name: `<port>`, `<host>:<port>` for a sniffed port of a service with a VIP, or
 * `unix://<path>` for a Sidecar egress listener on a unix socket (port 0).
 */
export interface RouteConfigurationName {
  readonly port: number;
  /** The service host of a sniffed port's own route configuration. */
  readonly host?: string;
  /** The unix socket bind the route configuration is named after. */
  readonly bind?: string;
}

/** Parses a sidecar route configuration name (see {@link RouteConfigurationName}), or undefined when it is none of the forms. */
export function parseRouteConfigurationName(name: string): RouteConfigurationName | undefined {
  if (isUnixBind(name)) return name.length > UNIX_ADDRESS_PREFIX.length ? { port: 0, bind: name } : undefined;
  const colon = name.lastIndexOf(':');
  const portText = colon < 0 ? name : name.slice(colon + 1);
  if (!/^[1-9]\d{0,4}$/.test(portText) || Number(portText) > 65535) return undefined;
  if (colon < 0) return { port: Number(portText) };
  const host = name.slice(0, colon);
  return host === '' ? undefined : { port: Number(portText), host };
}

/** The route configuration name of the HTTP chain of a sniffed port's `<vip>_<port>` listener (istiod's `<host>:<port>`). */
export function sniffedRouteConfigurationName(host: string, port: number): string {
  return `${host}:${port}`;
}

/** One virtual host of a route configuration before it is built: the service, its domains there, and the VirtualService whose HTTP routes it takes (none: the default route). */
export interface VirtualHostPlan {
  readonly svc: Service;
  /** The service port, when it is not the route configuration's (a unix socket's configuration holds every port). */
  readonly port?: number;
  readonly domains: readonly string[];
  readonly vs: Config | undefined;
}

/** What route configuration `<port>` or `<host>:<port>` holds for a proxy (see {@link buildSidecarRouteConfiguration}). */
export interface RouteConfigurationPlan {
  readonly name: string;
  readonly port: number;
  /** The service virtual hosts, in order. */
  readonly hosts: readonly VirtualHostPlan[];
  /** `allow_any` or `block_all` (last); none for a sniffed port's `<host>:<port>`. */
  readonly catchAll: Record<string, unknown> | undefined;
  /** What the plan read: the services on the port and every VirtualService (which one applies to a host). */
  readonly dependencies: readonly string[];
  /** The virtual hosts (`<host>:<port>`) that lost a domain to an earlier one (istiod's DuplicatedDomains keys). */
  readonly duplicateDomains: readonly string[];
}

/**
 * Plans route configuration `<port>` or `<host>:<port>` for a proxy, or undefined when the name is
 * neither. `<port>`: a virtual host per service speaking HTTP on the port (services sorted by host; a
 * domain already claimed by an earlier virtual host is left out of later ones, as Envoy refuses a
 * route configuration with a duplicate domain), then `allow_any` or `block_all`. `<host>:<port>` (the
 * HTTP chain of a sniffed port's `<vip>_<port>` listener): as istiod, only the virtual host of `<port>`
 * that names the host (its domains then `*`: the listener already chose the service by address) and no
 * catch-all.
 */
export function planSidecarRouteConfiguration(ctx: PushContext, proxy: Proxy, name: string): RouteConfigurationPlan | undefined {
  const parsed = parseRouteConfigurationName(name);
  if (!parsed) return undefined;
  const port = parsed.port;
  const deps = new Set(['kind:VirtualService']);
  const claimed = new Set<string>();
  const duplicateDomains: string[] = [];
  const hosts: VirtualHostPlan[] = [];
  const scope = sidecarScope(ctx, proxy);
  // NOTE: a unix socket's configuration takes every HTTP port of its services; as istiod's mergeAllVirtualHosts, a port
  // other than 80 keeps only its `:port` domains (the plain names then go to port 80, or nowhere).
  const services = parsed.bind !== undefined ? scope.unixRouteServices(parsed.bind) : scope.routeServices(port).filter((s) => s.ports.some((p) => p.port === port && routesHttp(p)));
  const pairs = [...services]
    .sort((a, c) => (a.hostname < c.hostname ? -1 : 1))
    .flatMap((svc) => (parsed.bind !== undefined ? svc.ports.filter(routesHttp).map((p) => ({ svc, at: p.port })) : [{ svc, at: port }]));
  for (const { svc, at } of pairs) {
    deps.add(`ServiceEntry/${svc.namespace}/${svc.hostname}`);
    const every = serviceDomains(svc, at, proxy.namespace, ctx.domain, parsed.bind !== undefined);
    const all = parsed.bind !== undefined && at !== 80 ? every.filter((d) => d.includes(':')) : every;
    const domains = all.filter((d) => !claimed.has(d));
    // NOTE: as istiod's BuildSidecarOutboundVirtualHosts: a virtual host that lost a domain (or every one) is
    // counted under its name `<host>:<port>` (pilot_vservice_dup_domain).
    if (domains.length !== all.length) duplicateDomains.push(`${svc.hostname}:${at}`);
    if (domains.length === 0) continue;
    for (const d of domains) claimed.add(d);
    // NOTE: as istiod, a VirtualService without HTTP routes (only `tcp` or `tls`) leaves HTTP on the default route.
    const found = ctx.virtualService(svc.hostname, proxy.namespace);
    const vs = found && ((found.spec as unknown as VirtualServiceSpec).http ?? []).length > 0 ? found : undefined;
    hosts.push({ svc, domains, vs, ...(at !== port ? { port: at } : {}) });
  }
  // NOTE: as istiod's SortVirtualHosts, by name (`host:port`).
  if (parsed.bind !== undefined) hosts.sort((a, c) => (`${a.svc.hostname}:${a.port}` < `${c.svc.hostname}:${c.port}` ? -1 : 1));
  const dependencies = [...deps].sort();
  if (parsed.host !== undefined) {
    // NOTE: as istiod's getVirtualHostsForSniffedServicePort: the virtual hosts naming `<host>:<port>` or `<host>`;
    // exactly one takes every domain (`*`); none leaves the configuration empty (no catch-all either way).
    const own = hosts.filter((h) => h.domains.some((d) => d === name || d === parsed.host));
    return { name, port, hosts: own.length === 1 ? [{ ...own[0]!, domains: ['*'] }] : own, catchAll: undefined, dependencies, duplicateDomains };
  }
  const catchAll = scope.outboundMode === 'ALLOW_ANY'
    ? { name: 'allow_any', domains: ['*'], routes: [{ name: 'allow_any', match: { prefix: '/' }, route: { cluster: PASSTHROUGH_CLUSTER, timeout: ZERO, maxGrpcTimeout: ZERO } }], includeRequestAttemptCount: true }
    : { name: 'block_all', domains: ['*'], routes: [{ name: 'block_all', match: { prefix: '/' }, directResponse: { status: 502 } }], includeRequestAttemptCount: true };
  return { name, port, hosts, catchAll, dependencies, duplicateDomains };
}

/**
 * The default route with the hash policy of the service's DestinationRule on the port (istiod's
 * buildSidecarVirtualHostForService). NOTE: as istiod, its retry policy keeps the previous_hosts predicate
 * (BuildDefaultHTTPOutboundRoute converts the mesh default without the hash flag).
 */
function withServiceHash(b: RouteBuild, svc: Service, route: Record<string, unknown>): Record<string, unknown> {
  const policy = consistentHashToHashPolicy(hashForService(b.ctx, b.proxy, svc.hostname, b.port, b.deps));
  return policy ? { ...route, route: { ...(route['route'] as Record<string, unknown>), hashPolicy: [policy] } } : route;
}

/**
 * Builds one planned service virtual host with what it read: the service, the VirtualService (every one
 * when it delegates: a delegate is found by name) and the services its destinations name.
 */
export function buildServiceVirtualHost(ctx: PushContext, proxy: Proxy, port: number, h: VirtualHostPlan): { virtualHost: Record<string, unknown>; dependencies: string[] } {
  const b: RouteBuild = { ctx, proxy, port, deps: new Set([`ServiceEntry/${h.svc.namespace}/${h.svc.hostname}`]) };
  if (h.vs) {
    b.deps.add(keyStringOf(h.vs));
    if (((h.vs.spec as unknown as VirtualServiceSpec).http ?? []).some((r) => r.delegate)) b.deps.add('kind:VirtualService');
  }
  const routes = h.vs ? virtualServiceRoutes(b, h.vs) : [withServiceHash(b, h.svc, defaultRoute(h.svc, port))];
  const virtualHost: Record<string, unknown> = { name: `${h.svc.hostname}:${port}`, domains: [...h.domains], routes, includeRequestAttemptCount: true };
  const meta = provenance([h.vs]);
  if (meta) virtualHost['metadata'] = meta;
  return { virtualHost, dependencies: [...b.deps].sort() };
}

/**
 * The fields of a route configuration that follow its virtual hosts, as istiod's sidecar ones: `validate_clusters`
 * off (Envoy's default is on for RDS), direct responses up to 1 MiB, and the Host's port ignored in matching.
 */
export const ROUTE_CONFIGURATION_TAIL = { validateClusters: { value: false }, maxDirectResponseBodySizeBytes: { value: 1048576 }, ignorePortInHostMatching: true } as const;

/** Builds route configuration `<port>` or `<host>:<port>` for a proxy (see {@link planSidecarRouteConfiguration}), or undefined when the name is neither. */
export function buildSidecarRouteConfiguration(ctx: PushContext, proxy: Proxy, name: string): BuiltRouteConfiguration | undefined {
  const plan = planSidecarRouteConfiguration(ctx, proxy, name);
  if (!plan) return undefined;
  const deps = new Set(plan.dependencies);
  const virtualHosts = plan.hosts.map((h) => {
    const built = buildServiceVirtualHost(ctx, proxy, h.port ?? plan.port, h);
    for (const d of built.dependencies) deps.add(d);
    return built.virtualHost;
  });
  if (plan.catchAll) virtualHosts.push(plan.catchAll);
  // NOTE: as istiod, the port is stripped from the Host before matching (ROUTE_CONFIGURATION_TAIL); on a unix socket's
  // configuration only port 80's plain domains then match; another port's `host:port` domains never do and its
  // requests take the catch-all (istiod's outcome).
  return { resource: { name, virtualHosts, ...ROUTE_CONFIGURATION_TAIL }, dependencies: [...deps].sort(), duplicateDomains: plan.duplicateDomains };
}
