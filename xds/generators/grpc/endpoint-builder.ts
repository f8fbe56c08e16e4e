/**
 * ClusterLoadAssignments for proxyless gRPC clients (Istio's EDS): endpoints of a service port,
 * filtered by the subset's labels, grouped by locality (every locality carries
 * load_balancing_weight, as gRPC drops localities without one), with failover priorities by
 * locality proximity when the DestinationRule enables outlier detection, DRAINING endpoints marked,
 * and UNHEALTHY ones left out unless PILOT_SEND_UNHEALTHY_ENDPOINTS.
 */
import { isIP } from 'node:net';
import { labelsMatch, localityString, type EndpointView, type Locality, type PushContext, type Proxy, type ServiceInstance } from '../../../core/index.js';
import { effectivePolicy } from './cluster-builder.js';
import { parseOutboundClusterName } from './envoy.js';
import type { DestinationRuleSpec } from '../../../crds/index.js';
import type { ClusterLoadAssignment, LocalityLbEndpoints } from '../../envoy-types/index.js';

/** Options of the endpoint builder. */
export interface EndpointBuildOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
}

/** A built load assignment and what it depends on. */
export interface BuiltEndpoints {
  readonly resource: ClusterLoadAssignment;
  readonly dependencies: readonly string[];
  /** Whether the result depends on the proxy's locality (priorities were assigned). */
  readonly localitySensitive: boolean;
}

/** 0 = same region/zone/subzone, 1 = same region and zone, 2 = same region, 3 = elsewhere. */
export function localityPriority(proxy: Locality, ep: Locality): number {
  if (!proxy.region || proxy.region !== ep.region) return 3;
  if (proxy.zone !== ep.zone) return 2;
  if (proxy.subZone !== ep.subZone) return 1;
  return 0;
}

/**
 * Builds the assignment for `outbound|<port>|<subset>|<host>`, or undefined when the service or
 * subset does not exist for this proxy.
 */
export function buildLoadAssignment(
  ctx: PushContext,
  proxy: Proxy,
  name: string,
  index: EndpointView,
  opts: EndpointBuildOptions,
): BuiltEndpoints | undefined {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return undefined;
  const svc = ctx.serviceFor(parsed.host, proxy.namespace);
  if (!svc || !ctx.serviceVisible(svc, proxy.namespace)) return undefined;
  const dr = ctx.destinationRule(parsed.host, proxy);
  let selector: Readonly<Record<string, string>> | undefined;
  if (parsed.subset) {
    const sub = ((dr?.spec as unknown as DestinationRuleSpec | undefined)?.subsets ?? []).find((s) => s.name === parsed.subset);
    if (!sub) return undefined;
    selector = sub.labels ?? {};
  }
  const policy = effectivePolicy(dr, parsed.subset, parsed.port);
  const failover = policy.outlierDetection !== undefined && proxy.locality.region !== '';
  const picked: ServiceInstance[] = index
    .instances(parsed.host, proxy.namespace)
    .filter((i) => i.servicePort === parsed.port && labelsMatch(selector, i.labels) && isIP(i.address) !== 0)
    .filter((i) => i.health !== 'UNHEALTHY' || opts.sendUnhealthyEndpoints);
  const groups = new Map<string, { locality: Locality; priority: number; eps: ServiceInstance[] }>();
  for (const i of picked) {
    const priority = failover ? localityPriority(proxy.locality, i.locality) : 0;
    const key = `${priority}|${localityString(i.locality)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { locality: i.locality, priority, eps: [] }));
    g.eps.push(i);
  }
  // NOTE: gRPC wants contiguous priorities starting at 0.
  const used = [...new Set([...groups.values()].map((g) => g.priority))].sort((a, b) => a - b);
  const rank = new Map(used.map((p, n) => [p, n]));
  const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
  const endpoints = ordered.map((g): LocalityLbEndpoints => {
    const eps = [...g.eps].sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
    return {
      locality: { region: g.locality.region, zone: g.locality.zone, subZone: g.locality.subZone },
      loadBalancingWeight: { value: eps.reduce((n, e) => n + e.weight, 0) },
      priority: rank.get(g.priority) ?? 0,
      lbEndpoints: eps.map((e) => ({
        endpoint: { address: { socketAddress: { address: e.address, portValue: e.port } } },
        healthStatus: e.health,
        loadBalancingWeight: { value: e.weight },
      })),
    };
  });
  return {
    resource: { clusterName: name, endpoints },
    dependencies: [`ServiceEntry/${svc.namespace}/${svc.hostname}`, 'kind:DestinationRule'],
    localitySensitive: failover,
  };
}
