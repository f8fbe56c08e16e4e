/**
 * The Envoy routes of VirtualService HTTP routes (Istio's route.go), for sidecars (route-builder.ts) and routers
 * (router-route-builder.ts): delegates expanded, one Envoy route per applicable match entry (match, weighted
 * destinations, redirect, direct response, rewrite, timeout, retries, fault, mirror, CORS, headers, the
 * destinations' consistent hash: route-hash.ts); and Istio's default route of a service without a VirtualService.
 */
import { labelsMatch, resolveShortName, type Config, type PushContext, type Proxy, type Service } from '../../../core/index.js';
import type { Headers, HTTPMatchRequest, HTTPRoute, VirtualServiceSpec } from '../../../crds/index.js';
import { any, duration, fractionalPercent, GRPC_STATUS, outboundClusterName } from '../grpc/envoy.js';
import { headerMatchers, stringMatcher } from '../grpc/route-match.js';
import { consistentHashToHashPolicy, hashForDestination, withoutPreviousHosts } from './route-hash.js';
import { ENVOY, HTTP_FILTER, provenance } from './sidecar-names.js';
import { scopedServiceFor } from './sidecar-scope.js';

/** A zero duration: as a route's timeout or maxGrpcTimeout, none. */
export const ZERO = { seconds: 0, nanos: 0 };

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
  const headers = headerMatchers(m, [':method', ':authority', ':scheme']);
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
  const svc = scopedServiceFor(b.ctx, b.proxy, host);
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
