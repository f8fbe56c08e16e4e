/**
 * Route configurations of a dataplane sidecar (Istio's httproute.go / route.go): one per outbound HTTP
 * port, named by the port (`80`, `9080`), with a virtual host per visible service on that port whose
 * domains are Istio's (FQDN, the FQDN with a trailing dot, short name in the proxy's namespace, `name.namespace.svc`, `name.namespace`,
 * the VIP, each with and without `:port`), VirtualService HTTP routes, delegates expanded (match, weighted destinations,
 * redirect, direct response, rewrite, timeout, retries, fault, mirror, CORS, headers, the destinations' consistent hash:
 * route-hash.ts) or the default
 * route, and Istio's `allow_any` / `block_all` virtual host per outboundTrafficPolicy. A sniffed port of a
 * service with a VIP has its own route configuration `<host>:<port>` (istiod's naming), holding only that
 * service's virtual host.
 */
import { keyStringOf, labelsMatch, resolveShortName, type Config, type PushContext, type Proxy, type Service } from '../../../core/index.js';
import type { Headers, HTTPMatchRequest, HTTPRoute, StringMatch, VirtualServiceSpec } from '../../../crds/index.js';
import { any, duration, fractionalPercent, GRPC_STATUS, outboundClusterName } from '../grpc/envoy.js';
import { routesHttp } from './cluster-builder.js';
import { sidecarScope } from './sidecar-scope.js';
import { isUnixBind, UNIX_ADDRESS_PREFIX } from './unix-egress.js';
import { consistentHashToHashPolicy, hashForDestination, hashForService, withoutPreviousHosts } from './route-hash.js';
import { ENVOY, HTTP_FILTER, PASSTHROUGH_CLUSTER, provenance } from './sidecar-names.js';
import type { RouteConfiguration } from '../../envoy-types/index.js';

const ZERO = { seconds: 0, nanos: 0 };

/** `retryRemoteLocalities`: Envoy's previous-priorities retry plugin, as istiod configures it (update frequency 2). */
const PREVIOUS_PRIORITIES = {
  name: 'envoy.retry_priorities.previous_priorities',
  typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig', updateFrequency: 2 },
};

/** Istio's default retry policy (applied when a route sets no `retries`); current istiod lists no retriable status codes. */
export function defaultRetryPolicy(): Record<string, unknown> {
  return {
    retryOn: 'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes',
    numRetries: { value: 2 },
    retryHostPredicate: [{ name: 'envoy.retry_host_predicates.previous_hosts', typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate' } }],
    hostSelectionRetryMaxAttempts: 5,
  };
}

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

function stringMatcher(m: StringMatch, ignoreCase = false): Record<string, unknown> | undefined {
  const ic = ignoreCase ? { ignoreCase: true } : {};
  if (m.exact !== undefined) return { exact: m.exact, ...ic };
  if (m.prefix !== undefined) return { prefix: m.prefix, ...ic };
  if (m.regex !== undefined) return { safeRegex: { regex: m.regex } };
  return undefined;
}

/** The match entry of a VirtualService route that has none (everything). */
const NO_MATCH: HTTPMatchRequest = Object.freeze({});

/** The Envoy RouteMatch of one VirtualService match entry ({@link NO_MATCH}: a route without any). */
export function routeMatch(m: HTTPMatchRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const uri = m.uri;
  if (uri?.exact !== undefined) out['path'] = uri.exact;
  else if (uri?.prefix !== undefined) out['prefix'] = uri.prefix;
  else if (uri?.regex !== undefined) out['safeRegex'] = { regex: uri.regex };
  else out['prefix'] = '/';
  // NOTE: as istiod's translateRouteMatch, every match entry says its case sensitivity (a route without any does not).
  if (m !== NO_MATCH) out['caseSensitive'] = { value: m.ignoreUriCase !== true };
  const headers: Record<string, unknown>[] = [];
  for (const [name, sm] of [[':method', m.method], [':authority', m.authority], [':scheme', m.scheme]] as const) {
    const stringMatch = sm ? stringMatcher(sm) : undefined;
    if (stringMatch) headers.push({ name, stringMatch });
  }
  for (const [name, sm] of Object.entries(m.headers ?? {})) {
    const stringMatch = stringMatcher(sm);
    headers.push(stringMatch ? { name, stringMatch } : { name, presentMatch: true });
  }
  for (const [name, sm] of Object.entries(m.withoutHeaders ?? {})) {
    const stringMatch = stringMatcher(sm);
    headers.push(stringMatch ? { name, stringMatch, invertMatch: true } : { name, presentMatch: true, invertMatch: true });
  }
  if (headers.length > 0) out['headers'] = headers;
  const query = Object.entries(m.queryParams ?? {}).map(([name, sm]) => {
    const stringMatch = stringMatcher(sm);
    return stringMatch ? { name, stringMatch } : { name, presentMatch: true };
  });
  if (query.length > 0) out['queryParameters'] = query;
  return out;
}

/** Header operations to Envoy's fields with a prefix (`request` or `response`). */
function headerFields(h: Headers | undefined, target: Record<string, unknown>): void {
  for (const dir of ['request', 'response'] as const) {
    const ops = h?.[dir];
    if (!ops) continue;
    const add = [
      ...Object.entries(ops.set ?? {}).map(([key, value]) => ({ header: { key, value }, appendAction: 'OVERWRITE_IF_EXISTS_OR_ADD' })),
      ...Object.entries(ops.add ?? {}).map(([key, value]) => ({ header: { key, value }, appendAction: 'APPEND_IF_EXISTS_OR_ADD' })),
    ];
    if (add.length > 0) target[`${dir}HeadersToAdd`] = add;
    if (ops.remove && ops.remove.length > 0) target[`${dir}HeadersToRemove`] = [...ops.remove];
  }
}

function percentOf(p: { value?: number } | undefined, legacy?: number): number {
  return p?.value ?? legacy ?? 100;
}

function faultConfig(r: HTTPRoute): Record<string, unknown> | undefined {
  const f = r.fault;
  if (!f || (!f.delay && !f.abort)) return undefined;
  const out: Record<string, unknown> = {};
  if (f.delay?.fixedDelay) out['delay'] = { fixedDelay: duration(f.delay.fixedDelay), percentage: fractionalPercent(percentOf(f.delay.percentage, f.delay.percent)) };
  if (f.abort) {
    const percentage = fractionalPercent(percentOf(f.abort.percentage));
    if (f.abort.grpcStatus !== undefined) out['abort'] = { grpcStatus: GRPC_STATUS[f.abort.grpcStatus.toUpperCase()] ?? Number(f.abort.grpcStatus), percentage };
    else if (f.abort.httpStatus !== undefined) out['abort'] = { httpStatus: f.abort.httpStatus, percentage };
  }
  return any(ENVOY.fault, out);
}

function corsConfig(r: HTTPRoute): Record<string, unknown> | undefined {
  const c = r.corsPolicy;
  if (!c) return undefined;
  const out: Record<string, unknown> = {};
  const origins = (c.allowOrigins ?? []).map((o) => stringMatcher(o)).filter((o) => o !== undefined);
  if (origins.length > 0) out['allowOriginStringMatch'] = origins;
  if (c.allowMethods?.length) out['allowMethods'] = c.allowMethods.join(',');
  if (c.allowHeaders?.length) out['allowHeaders'] = c.allowHeaders.join(',');
  if (c.exposeHeaders?.length) out['exposeHeaders'] = c.exposeHeaders.join(',');
  if (c.maxAge) out['maxAge'] = String(Math.floor(duration(c.maxAge).seconds));
  if (c.allowCredentials !== undefined && c.allowCredentials !== null) out['allowCredentials'] = { value: c.allowCredentials };
  return any(ENVOY.corsPolicy, out);
}

const REDIRECT_CODES: Readonly<Record<number, string>> = { 301: 'MOVED_PERMANENTLY', 302: 'FOUND', 303: 'SEE_OTHER', 307: 'TEMPORARY_REDIRECT', 308: 'PERMANENT_REDIRECT' };

/** Context of one route configuration build. */
export interface RouteBuild {
  readonly ctx: PushContext;
  readonly proxy: Proxy;
  readonly port: number;
  readonly deps: Set<string>;
  /**
   * For a router (gateway): the gateways (`namespace/name`) the routes are built for; a match entry that
   * names `gateways` applies only when one of them is here. Unset for sidecars: such an entry applies
   * only when it names `mesh`.
   */
  readonly gateways?: ReadonlySet<string>;
}
type Build = RouteBuild;

function destinationCluster(b: Build, vs: Config, d: { host: string; subset?: string; port?: { number?: number } }): string {
  const host = resolveShortName(d.host, vs.metadata.namespace, b.ctx.domain);
  const svc = b.ctx.serviceFor(host, b.proxy.namespace);
  // NOTE: a destination that does not exist yet changes the route when it appears: depend on every service then.
  b.deps.add(svc ? `ServiceEntry/${svc.namespace}/${svc.hostname}` : 'kind:ServiceEntry');
  const port = d.port?.number ?? (svc && svc.ports.length === 1 ? svc.ports[0]!.port : b.port);
  return outboundClusterName(port, d.subset ?? '', host);
}

/** The hash policy of a VirtualService destination (route-hash.ts), its host resolved as destinationCluster does. */
function destinationHashPolicy(b: Build, vs: Config, d: { host: string; subset?: string; port?: { number?: number } }): Record<string, unknown> | undefined {
  const host = resolveShortName(d.host, vs.metadata.namespace, b.ctx.domain);
  return consistentHashToHashPolicy(hashForDestination(b.ctx, b.proxy, host, d.subset, d.port?.number, b.deps));
}

/**
 * istiod's hash policies of a route action (applyHTTPRouteDestination): one destination's, or each weighted
 * destination's in order (weight 0 left out, as its cluster); `sticky` when the route has one destination
 * with a hash policy (its retries then leave out the previous_hosts predicate; a weighted route keeps it).
 */
function routeHashPolicies(b: Build, vs: Config, dests: readonly { weight?: number; destination: { host: string; subset?: string; port?: { number?: number } } }[]): { policies: Record<string, unknown>[]; sticky: boolean } {
  const hashed = dests.length === 1 ? dests : dests.filter((d) => (d.weight ?? 0) > 0);
  const policies = hashed.map((d) => destinationHashPolicy(b, vs, d.destination)).filter((p) => p !== undefined);
  return { policies, sticky: dests.length === 1 && policies.length > 0 };
}

/** The Envoy route action (or redirect / direct response) of one VirtualService HTTP route. */
function routeBody(b: Build, vs: Config, r: HTTPRoute): Record<string, unknown> | undefined {
  if (r.redirect) {
    const rd = r.redirect;
    const redirect: Record<string, unknown> = {};
    if (rd.uri) redirect['pathRedirect'] = rd.uri;
    if (rd.authority) redirect['hostRedirect'] = rd.authority;
    if (rd.port) redirect['portRedirect'] = rd.port;
    if (rd.scheme) redirect['schemeRedirect'] = rd.scheme;
    redirect['responseCode'] = REDIRECT_CODES[rd.redirectCode ?? 301] ?? 'MOVED_PERMANENTLY';
    return { redirect };
  }
  if (r.directResponse) {
    const body = r.directResponse.body;
    const data = body?.string !== undefined ? { inlineString: body.string } : body?.bytes !== undefined ? { inlineBytes: body.bytes } : undefined;
    return { directResponse: { status: r.directResponse.status, ...(data ? { body: data } : {}) } };
  }
  const dests = (r.route ?? []).filter((d) => d.destination?.host);
  if (dests.length === 0) return undefined;
  const action: Record<string, unknown> = {};
  if (dests.length === 1 && !dests[0]!.headers) {
    action['cluster'] = destinationCluster(b, vs, dests[0]!.destination);
  } else {
    const weighted = dests
      .map((d) => {
        const w: Record<string, unknown> = { name: destinationCluster(b, vs, d.destination), weight: { value: d.weight ?? (dests.length === 1 ? 100 : 0) } };
        headerFields(d.headers, w);
        return w;
      })
      .filter((w) => (w['weight'] as { value: number }).value > 0);
    if (weighted.length === 0) return undefined;
    action['weightedClusters'] = { clusters: weighted };
  }
  action['timeout'] = r.timeout ? duration(r.timeout) : ZERO;
  // NOTE: as istiod's setTimeout for Envoy: the grpc-timeout header is capped by the route timeout (0: none).
  action['maxGrpcTimeout'] = r.timeout ? duration(r.timeout) : ZERO;
  if (r.retries) {
    if ((r.retries.attempts ?? 0) > 0) {
      const rp: Record<string, unknown> = { ...defaultRetryPolicy(), numRetries: { value: r.retries.attempts } };
      if (r.retries.retryOn) {
        const parts = r.retries.retryOn.split(',').map((s) => s.trim()).filter((s) => s !== '');
        const codes = parts.filter((s) => /^\d+$/.test(s)).map(Number);
        const names = parts.filter((s) => !/^\d+$/.test(s));
        if (codes.length > 0 && !names.includes('retriable-status-codes')) names.push('retriable-status-codes');
        rp['retryOn'] = names.join(',');
        if (codes.length > 0) rp['retriableStatusCodes'] = codes;
        else delete rp['retriableStatusCodes'];
      }
      if (r.retries.perTryTimeout) rp['perTryTimeout'] = duration(r.retries.perTryTimeout);
      if (r.retries.retryRemoteLocalities) rp['retryPriority'] = PREVIOUS_PRIORITIES;
      if (r.retries.backoff) rp['retryBackOff'] = { baseInterval: duration(r.retries.backoff) };
      action['retryPolicy'] = rp;
    }
  } else {
    action['retryPolicy'] = defaultRetryPolicy();
  }
  const hash = routeHashPolicies(b, vs, dests);
  if (hash.policies.length > 0) action['hashPolicy'] = hash.policies;
  // NOTE: as istiod: a consistent hash drops the previous-hosts predicate (a retry goes to the same host),
  // unless the route's retries say `retryIgnorePreviousHosts` themselves; `false` drops it always.
  const ignorePrevious = (r.retries?.attempts ?? 0) > 0 ? r.retries?.retryIgnorePreviousHosts : undefined;
  if (action['retryPolicy'] && (ignorePrevious === false || (hash.sticky && ignorePrevious !== true))) {
    action['retryPolicy'] = withoutPreviousHosts(action['retryPolicy'] as Record<string, unknown>);
  }
  const rw = r.rewrite;
  if (rw?.uri !== undefined) action['prefixRewrite'] = rw.uri;
  if (rw?.uriRegexRewrite?.match) action['regexRewrite'] = { pattern: { regex: rw.uriRegexRewrite.match }, substitution: rw.uriRegexRewrite.rewrite ?? '' };
  if (rw?.authority) action['hostRewriteLiteral'] = rw.authority;
  const mirrors = [
    ...(r.mirror ? [{ destination: r.mirror, percentage: r.mirrorPercentage }] : []),
    ...(r.mirrors ?? []),
  ];
  if (mirrors.length > 0) {
    action['requestMirrorPolicies'] = mirrors.map((m) => ({
      cluster: destinationCluster(b, vs, m.destination),
      runtimeFraction: { defaultValue: fractionalPercent(percentOf(m.percentage)) },
      traceSampled: { value: false },
    }));
  }
  return { route: action };
}

/** `gateway` of a VirtualService in `namespace` as `namespace/name` (`mesh` stays `mesh`), as Istio resolves `gateways` entries. */
export function qualifiedGateway(gateway: string, namespace: string): string {
  if (gateway === 'mesh' || gateway.includes('/')) return gateway;
  // NOTE: Istio also accepts `name.namespace` (and FQDN forms); the first label is the name.
  const dot = gateway.indexOf('.');
  return dot > 0 ? `${gateway.slice(dot + 1).split('.')[0]}/${gateway.slice(0, dot)}` : `${namespace}/${gateway}`;
}

/** Whether a match entry applies on this port for this proxy (port, source labels, source namespace, gateways). */
function matchApplies(m: HTTPMatchRequest, b: Build, vsNamespace: string): boolean {
  const gw = m.gateways;
  const gatewayOk = gw === undefined || gw.length === 0 || (b.gateways ? gw.some((g) => b.gateways!.has(qualifiedGateway(g, vsNamespace))) : gw.includes('mesh'));
  return (
    (m.port === undefined || m.port === b.port) &&
    labelsMatch(m.sourceLabels, b.proxy.labels) &&
    (m.sourceNamespace === undefined || m.sourceNamespace === b.proxy.namespace) &&
    gatewayOk
  );
}

/** One HTTP route after delegation: the route, the VirtualService that holds it, its index there, and the root that delegated to it. */
interface FlatRoute {
  readonly r: HTTPRoute;
  readonly owner: Config;
  readonly index: number;
  readonly root?: Config;
}

/** A root match and a delegate's match as one (the delegate's fields win; its uri must lie within the root's), or undefined when they conflict. */
function mergeMatch(root: HTTPMatchRequest, child: HTTPMatchRequest): HTTPMatchRequest | undefined {
  const ru = root.uri;
  const cu = child.uri;
  if (ru && cu) {
    const within = ru.prefix !== undefined ? (cu.prefix ?? cu.exact ?? '').startsWith(ru.prefix) : ru.exact !== undefined ? cu.exact === ru.exact : false;
    if (!within) return undefined;
  }
  return {
    ...root,
    ...child,
    ...(cu ?? ru ? { uri: cu ?? ru } : {}),
    ...(root.headers || child.headers ? { headers: { ...root.headers, ...child.headers } } : {}),
    ...(root.queryParams || child.queryParams ? { queryParams: { ...root.queryParams, ...child.queryParams } } : {}),
    ...(root.withoutHeaders || child.withoutHeaders ? { withoutHeaders: { ...root.withoutHeaders, ...child.withoutHeaders } } : {}),
  };
}

function mergeMatches(root: readonly HTTPMatchRequest[] | undefined, child: readonly HTTPMatchRequest[] | undefined): HTTPMatchRequest[] | undefined {
  if (!root || root.length === 0) return child ? [...child] : [];
  if (!child || child.length === 0) return [...root];
  const out = root.flatMap((rm) => child.map((cm) => mergeMatch(rm, cm)).filter((m): m is HTTPMatchRequest => m !== undefined));
  return out.length > 0 ? out : undefined;
}

/**
 * The HTTP routes of a VirtualService with delegation expanded (Istio's delegate VirtualServices, one
 * level): a route with `delegate` is replaced by the delegate's routes, each match merged with the
 * root's; a missing delegate, or one that has hosts, contributes nothing.
 */
export function flatRoutes(ctx: PushContext, vs: Config): FlatRoute[] {
  const out: FlatRoute[] = [];
  for (const [index, r] of ((vs.spec as unknown as VirtualServiceSpec).http ?? []).entries()) {
    if (!r.delegate) {
      out.push({ r, owner: vs, index });
      continue;
    }
    const ns = r.delegate.namespace ?? vs.metadata.namespace;
    const child = ctx.configs.byIndex('kindNamespace', `VirtualService/${ns}`).find((c) => c.metadata.name === r.delegate!.name);
    const childSpec = child?.spec as unknown as VirtualServiceSpec | undefined;
    if (!child || (childSpec?.hosts ?? []).length > 0) continue;
    for (const [j, cr] of (childSpec?.http ?? []).entries()) {
      if (cr.delegate) continue;
      const match = mergeMatches(r.match, cr.match);
      if (match === undefined) continue;
      out.push({ r: { ...cr, match }, owner: child, index: j, root: vs });
    }
  }
  return out;
}

/** The Envoy routes of a VirtualService for one port, in order (one Envoy route per applicable match entry). */
export function virtualServiceRoutes(b: Build, vs: Config): Record<string, unknown>[] {
  const routes: Record<string, unknown>[] = [];
  for (const { r, owner, index, root } of flatRoutes(b.ctx, vs)) {
    const entries = r.match && r.match.length > 0 ? r.match.filter((m) => matchApplies(m, b, vs.metadata.namespace)) : [NO_MATCH];
    if (entries.length === 0) continue;
    const body = routeBody(b, owner, r);
    if (!body) continue;
    const perFilter: Record<string, unknown> = {};
    const fault = faultConfig(r);
    if (fault) perFilter[HTTP_FILTER.fault] = fault;
    const cors = corsConfig(r);
    if (cors) perFilter[HTTP_FILTER.cors] = cors;
    for (const m of entries) {
      const route: Record<string, unknown> = {
        name: m.name ? `${r.name ?? ''}.${m.name}` : r.name ?? `${owner.metadata.namespace}/${owner.metadata.name}/${index}`,
        match: routeMatch(m),
        ...body,
        decorator: { operation: `${owner.metadata.name}:${b.port}/*` },
        ...(Object.keys(perFilter).length > 0 ? { typedPerFilterConfig: perFilter } : {}),
      };
      headerFields(r.headers, route);
      const meta = provenance(root ? [owner, root] : [owner]);
      if (meta) route['metadata'] = meta;
      routes.push(route);
    }
    // NOTE: as Envoy, a route matching everything ends the list: later routes could never match.
    if (entries.some((m) => m.uri === undefined && !m.headers && !m.method && !m.authority && !m.queryParams && !m.withoutHeaders && !m.scheme)) break;
  }
  return routes;
}

/** Istio's default route of a service without a VirtualService. */
export function defaultRoute(svc: Service, port: number): Record<string, unknown> {
  return {
    name: 'default',
    match: { prefix: '/' },
    route: {
      cluster: outboundClusterName(port, '', svc.hostname),
      timeout: ZERO,
      retryPolicy: defaultRetryPolicy(),
      maxGrpcTimeout: ZERO,
    },
    decorator: { operation: `${svc.hostname}:${port}/*` },
  };
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
function withServiceHash(b: Build, svc: Service, route: Record<string, unknown>): Record<string, unknown> {
  const policy = consistentHashToHashPolicy(hashForService(b.ctx, b.proxy, svc.hostname, b.port, b.deps));
  return policy ? { ...route, route: { ...(route['route'] as Record<string, unknown>), hashPolicy: [policy] } } : route;
}

/**
 * Builds one planned service virtual host with what it read: the service, the VirtualService (every one
 * when it delegates: a delegate is found by name) and the services its destinations name.
 */
export function buildServiceVirtualHost(ctx: PushContext, proxy: Proxy, port: number, h: VirtualHostPlan): { virtualHost: Record<string, unknown>; dependencies: string[] } {
  const b: Build = { ctx, proxy, port, deps: new Set([`ServiceEntry/${h.svc.namespace}/${h.svc.hostname}`]) };
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
