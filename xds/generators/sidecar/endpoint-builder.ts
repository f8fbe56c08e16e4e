/**
 * ClusterLoadAssignments of a dataplane sidecar (Istio's EDS): for `outbound|<port>|<subset>|<host>`,
 * the service port's endpoints filtered by the subset's labels, grouped by locality with weights (and
 * failover priorities by proximity when the DestinationRule has outlier detection), health status
 * (DRAINING marked, UNHEALTHY left out unless PILOT_SEND_UNHEALTHY_ENDPOINTS), and the endpoint
 * metadata auto mTLS matches on (`envoy.transport_socket_match: {tlsMode: mesh}`).
 */
import { isIP } from 'node:net';
import { labelsMatch, localityString, type EndpointView, type Locality, type PushContext, type Proxy, type ServiceInstance } from '../../../core/index.js';
import { effectivePolicy } from '../grpc/cluster-builder.js';
import { localityPriority } from '../grpc/endpoint-builder.js';
import { parseOutboundClusterName } from '../grpc/envoy.js';
import { subsetsOf } from './cluster-builder.js';
import { sidecarScope } from './sidecar-scope.js';
import { struct, TLS_MODE_LABEL, TLS_MODE_MESH, TRANSPORT_SOCKET_MATCH } from './sidecar-names.js';
import type { ClusterLoadAssignment } from '../../envoy-types/index.js';

/** Options of the endpoint builder. */
export interface SidecarEndpointOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
}

function endpointMetadata(i: ServiceInstance): Record<string, unknown> | undefined {
  if (i.labels[TLS_MODE_LABEL] !== TLS_MODE_MESH) return undefined;
  return { filterMetadata: { [TRANSPORT_SOCKET_MATCH]: struct({ tlsMode: TLS_MODE_MESH }) } };
}

/**
 * The assignment for an EDS cluster name, or undefined when the name is not an outbound cluster of a
 * visible service, port and subset (Envoy then keeps waiting for it; the consistency checker reports it).
 */
export function buildSidecarLoadAssignment(ctx: PushContext, proxy: Proxy, name: string, endpoints: EndpointView, opts: SidecarEndpointOptions): ClusterLoadAssignment | undefined {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return undefined;
  const svc = ctx.service(parsed.host);
  if (!svc || !sidecarScope(ctx, proxy).includes(svc) || !svc.ports.some((p) => p.port === parsed.port)) return undefined;
  const dr = ctx.destinationRule(parsed.host, proxy.namespace);
  let selector: Readonly<Record<string, string>> | undefined;
  if (parsed.subset) {
    const sub = subsetsOf(dr).find((s) => s.name === parsed.subset);
    if (!sub) return undefined;
    selector = sub.labels ?? {};
  }
  const policy = effectivePolicy(dr, parsed.subset, parsed.port);
  const failover = policy.outlierDetection !== undefined && proxy.locality.region !== '';
  const picked = endpoints
    .instances(parsed.host)
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
  // NOTE: Envoy wants priorities contiguous from 0.
  const rank = new Map([...new Set([...groups.values()].map((g) => g.priority))].sort((a, b) => a - b).map((p, n) => [p, n]));
  const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
  return {
    clusterName: name,
    endpoints: ordered.map((g) => {
      const eps = [...g.eps].sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
      return {
        locality: { region: g.locality.region, zone: g.locality.zone, subZone: g.locality.subZone },
        loadBalancingWeight: { value: eps.reduce((n, e) => n + e.weight, 0) },
        priority: rank.get(g.priority) ?? 0,
        lbEndpoints: eps.map((e) => {
          const metadata = endpointMetadata(e);
          return {
            endpoint: { address: { socketAddress: { address: e.address, portValue: e.port } } },
            healthStatus: e.health,
            loadBalancingWeight: { value: e.weight },
            ...(metadata ? { metadata } : {}),
          };
        }),
      };
    }),
  };
}
