/**
 * RouteConfiguration for proxyless gRPC clients, from the VirtualService of a host (Istio grpcgen's
 * RDS): one virtual host, routes by uri exact/prefix/regex and headers, weighted destinations with
 * subsets, retries, timeout as max_stream_duration, fault delay/abort, and the hash policy of the
 * destination's DestinationRule for RING_HASH.
 */
import { labelsMatch, resolveShortName, type Config, type PushContext, type Proxy } from '../../../core/index.js';
import { any, duration, ENVOY, fractionalPercent, GRPC_STATUS, outboundClusterName, parseOutboundClusterName } from './envoy.js';
import { headerMatchers } from './route-match.js';
import type { DestinationRuleSpec, HTTPRoute, HTTPRouteDestination, StringMatch, VirtualServiceSpec } from '../../../crds/index.js';
import type {
  AnyMessage, HashPolicy, HTTPFault, Route, RouteAction, RouteConfiguration, RouteMatch,
} from '../../envoy-types/index.js';

/** The retry conditions gRPC clients understand (grpc-js-xds); others in `retryOn` are dropped. */
const GRPC_RETRY_ON = new Set(['cancelled', 'deadline-exceeded', 'internal', 'resource-exhausted', 'unavailable']);

/** The fault filter's name in the client HCM; per-route fault config is keyed by it. */
export const FAULT_FILTER_NAME = 'envoy.filters.http.fault';

/** A built route configuration and the config keys it was built from. */
export interface BuiltRoute {
  readonly resource: RouteConfiguration;
  /** Config keys (`kind/ns/name`, `ServiceEntry/ns/host`) and kind markers (`kind:X`) it depends on. */
  readonly dependencies: readonly string[];
}

function pathMatch(uri: StringMatch | undefined): RouteMatch {
  if (uri?.exact !== undefined) return { path: uri.exact };
  if (uri?.prefix !== undefined) return { prefix: uri.prefix };
  if (uri?.regex !== undefined) return { safeRegex: { regex: uri.regex } };
  return { prefix: '/' };
}

/**
 * The Envoy matches of a VirtualService route for one proxy and port: match entries bound to another
 * port, other source labels or another source namespace are left out (a route with none left is
 * skipped). `method` and `authority` match the `:method` and `:authority` headers.
 */
function routeMatches(route: HTTPRoute, proxy: Proxy, port: number): RouteMatch[] {
  const given = route.match && route.match.length > 0 ? route.match : [{}];
  const matches = given.filter(
    (m) =>
      (m.port === undefined || m.port === port) &&
      labelsMatch(m.sourceLabels, proxy.labels) &&
      (m.sourceNamespace === undefined || m.sourceNamespace === proxy.namespace),
  );
  return matches.map((m) => {
    const headers = headerMatchers(m, [':method', ':authority']);
    return { ...pathMatch(m.uri), ...(headers.length > 0 ? { headers } : {}) };
  });
}

function percentOf(p: { value?: number } | undefined, legacy?: number): number {
  if (p?.value !== undefined) return p.value;
  if (legacy !== undefined) return legacy;
  return 100;
}

function faultConfig(route: HTTPRoute): AnyMessage | undefined {
  const f = route.fault;
  if (!f || (!f.delay && !f.abort)) return undefined;
  const out: HTTPFault = {};
  if (f.delay?.fixedDelay) {
    out.delay = { fixedDelay: duration(f.delay.fixedDelay), percentage: fractionalPercent(percentOf(f.delay.percentage, f.delay.percent)) };
  }
  if (f.abort) {
    const percentage = fractionalPercent(percentOf(f.abort.percentage));
    if (f.abort.grpcStatus !== undefined) {
      const code = GRPC_STATUS[f.abort.grpcStatus.toUpperCase()] ?? Number(f.abort.grpcStatus);
      out.abort = { grpcStatus: code, percentage };
    } else if (f.abort.httpStatus !== undefined) {
      out.abort = { httpStatus: f.abort.httpStatus, percentage };
    }
  }
  return any(ENVOY.fault, out);
}

/** The hash policy for RING_HASH destinations, from the destination's DestinationRule. */
function hashPolicy(dr: Config | undefined, subset: string): HashPolicy[] | undefined {
  if (!dr) return undefined;
  const spec = dr.spec as unknown as DestinationRuleSpec;
  const sub = spec.subsets?.find((s) => s.name === subset)?.trafficPolicy?.loadBalancer?.consistentHash;
  const ch = sub ?? spec.trafficPolicy?.loadBalancer?.consistentHash;
  if (!ch) return undefined;
  if (ch.httpHeaderName) return [{ header: { headerName: ch.httpHeaderName } }];
  // NOTE: gRPC has no source IP at pick time; it offers a per-channel id for "same client, same backend".
  if (ch.useSourceIp) return [{ filterState: { key: 'io.grpc.channel_id' } }];
  return undefined;
}

/**
 * Builds `outbound|<port>||<host>` for a proxy, or undefined when no such service is visible
 * (the client then sees the route configuration as missing).
 */
export function buildRouteConfiguration(ctx: PushContext, proxy: Proxy, name: string): BuiltRoute | undefined {
  const parsed = parseOutboundClusterName(name);
  if (!parsed || parsed.subset !== '') return undefined;
  const svc = ctx.serviceFor(parsed.host, proxy.namespace);
  if (!svc || !ctx.serviceVisible(svc, proxy.namespace)) return undefined;
  const deps = new Set<string>([`ServiceEntry/${svc.namespace}/${svc.hostname}`, 'kind:VirtualService', 'kind:DestinationRule']);
  const vs = ctx.virtualService(parsed.host, proxy.namespace);
  const defaultRoute = (): Route => ({
    name: 'default',
    match: { prefix: '/' },
    route: { cluster: outboundClusterName(parsed.port, '', parsed.host), ...withHash(hashPolicy(ctx.destinationRule(parsed.host, proxy), '')) },
  });
  const routes: Route[] = [];
  if (!vs) {
    routes.push(defaultRoute());
  } else {
    const spec = vs.spec as unknown as VirtualServiceSpec;
    for (const [i, r] of (spec.http ?? []).entries()) {
      const action = routeAction(ctx, proxy, vs, r, parsed.port, deps);
      if (!action) continue;
      const fault = faultConfig(r);
      for (const match of routeMatches(r, proxy, parsed.port)) {
        routes.push({
          name: r.name ?? `${vs.metadata.namespace}/${vs.metadata.name}/${i}`,
          match,
          route: action,
          ...(fault ? { typedPerFilterConfig: { [FAULT_FILTER_NAME]: fault } } : {}),
        });
      }
    }
  }
  return {
    resource: {
      name,
      virtualHosts: [{ name: `${parsed.host}:${parsed.port}`, domains: ['*'], routes }],
    },
    dependencies: [...deps].sort(),
  };
}

function withHash(policy: HashPolicy[] | undefined): RouteAction {
  return policy ? { hashPolicy: policy } : {};
}

function routeAction(
  ctx: PushContext,
  proxy: Proxy,
  vs: Config,
  r: HTTPRoute,
  listenerPort: number,
  deps: Set<string>,
): RouteAction | undefined {
  const dests = (r.route ?? []).filter((d: HTTPRouteDestination) => d.destination?.host);
  if (dests.length === 0) return undefined;
  const clusters = dests.map((d) => {
    const host = resolveShortName(d.destination.host, vs.metadata.namespace, ctx.domain);
    const svc = ctx.serviceFor(host, proxy.namespace);
    if (svc) deps.add(`ServiceEntry/${svc.namespace}/${svc.hostname}`);
    const port = d.destination.port?.number ?? (svc && svc.ports.length === 1 ? svc.ports[0]!.port : listenerPort);
    const subset = d.destination.subset ?? '';
    return { name: outboundClusterName(port, subset, host), weight: d.weight ?? (dests.length === 1 ? 100 : 0), host, subset };
  });
  const first = clusters[0]!;
  const action: RouteAction = {};
  const positive = clusters.filter((c) => c.weight > 0);
  if (clusters.length === 1) {
    action.cluster = first.name;
  } else {
    // NOTE: Istio requires weights on multiple destinations; when all are 0 split evenly.
    const use = positive.length > 0 ? positive : clusters.map((c) => ({ ...c, weight: 1 }));
    action.weightedClusters = { clusters: use.map((c) => ({ name: c.name, weight: { value: c.weight } })) };
  }
  Object.assign(action, withHash(hashPolicy(ctx.destinationRule(first.host, proxy), first.subset)));
  if (r.timeout) {
    const d = duration(r.timeout);
    if (d.seconds > 0 || d.nanos > 0) action.maxStreamDuration = { maxStreamDuration: d };
  }
  if (r.retries && (r.retries.attempts ?? 0) > 0) {
    const on = (r.retries.retryOn ?? 'unavailable')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => GRPC_RETRY_ON.has(s));
    if (on.length > 0) {
      action.retryPolicy = {
        retryOn: on.join(','),
        numRetries: { value: r.retries.attempts },
        ...(r.retries.perTryTimeout ? { perTryTimeout: duration(r.retries.perTryTimeout) } : {}),
      };
    }
  }
  return action;
}
