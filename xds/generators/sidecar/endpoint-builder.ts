/**
 * ClusterLoadAssignments of a dataplane sidecar (Istio's EDS): for `outbound|<port>|<subset>|<host>`,
 * the service port's endpoints filtered by the subset's labels, grouped by locality with weights and
 * priorities per the locality LB setting (locality-lb.ts: distribute, failover, failoverPriority), health status
 * (DRAINING marked, UNHEALTHY left out unless PILOT_SEND_UNHEALTHY_ENDPOINTS), and the endpoint
 * metadata auto mTLS matches on (`envoy.transport_socket_match: {tlsMode: mesh}`, see takesMeshMtls).
 */
import { isIP } from 'node:net';
import { labelsMatch, localityString, type EndpointView, type Locality, type PushContext, type Proxy, type ServiceInstance } from '../../../core/index.js';
import { effectivePolicy } from '../grpc/cluster-builder.js';
import { parseOutboundClusterName } from '../grpc/envoy.js';
import { subsetsOf } from './cluster-builder.js';
import { applyLocalityLb, type LocalityGroup } from './locality-lb.js';
import { scopedServiceFor, sidecarScope, scopedDestinationRule } from './sidecar-scope.js';
import { takesMeshMtls } from './cluster-tls.js';
import { struct, TLS_MODE_MESH, TRANSPORT_SOCKET_MATCH } from './sidecar-names.js';
import type { ClusterLoadAssignment } from '../../envoy-types/index.js';

/** Options of the endpoint builder. */
export interface SidecarEndpointOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
}

/**
 * Whether auto mTLS sends mesh mTLS to an endpoint: it takes mesh mTLS (takesMeshMtls) and the
 * PeerAuthentication of its workload at its port is not DISABLE (as istiod's mTLS checker: such a port
 * expects plaintext).
 */
export function mtlsToEndpoint(ctx: PushContext, i: ServiceInstance, serviceNamespace: string): boolean {
  if (!takesMeshMtls(i)) return false;
  const ns = /^WorkloadEntry\/([^/]+)\//.exec(i.source)?.[1] ?? serviceNamespace;
  return ctx.mtlsMode(ns, i.labels, i.port) !== 'DISABLE';
}

function endpointMetadata(ctx: PushContext, i: ServiceInstance, serviceNamespace: string): Record<string, unknown> | undefined {
  if (!mtlsToEndpoint(ctx, i, serviceNamespace)) return undefined;
  return { filterMetadata: { [TRANSPORT_SOCKET_MATCH]: struct({ tlsMode: TLS_MODE_MESH }) } };
}

/**
 * The assignment for an EDS cluster name, or undefined when the name is not an outbound cluster of a
 * visible service, port and subset (Envoy then keeps waiting for it; the consistency checker reports it).
 */
export function buildSidecarLoadAssignment(ctx: PushContext, proxy: Proxy, name: string, endpoints: EndpointView, opts: SidecarEndpointOptions): ClusterLoadAssignment | undefined {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return undefined;
  const svc = scopedServiceFor(ctx, proxy, parsed.host);
  if (!svc || !sidecarScope(ctx, proxy).includesPort(svc, parsed.port)) return undefined;
  const dr = scopedDestinationRule(ctx, proxy, parsed.host);
  let selector: Readonly<Record<string, string>> | undefined;
  if (parsed.subset) {
    const sub = subsetsOf(dr).find((s) => s.name === parsed.subset);
    if (!sub) return undefined;
    selector = sub.labels ?? {};
  }
  const policy = effectivePolicy(dr, parsed.subset, parsed.port);
  const picked = endpoints
    .instancesOf(svc)
    .filter((i) => i.servicePort === parsed.port && labelsMatch(selector, i.labels) && isIP(i.address) !== 0)
    .filter((i) => i.health !== 'UNHEALTHY' || opts.sendUnhealthyEndpoints);
  const byLocality = new Map<string, { locality: Locality; eps: ServiceInstance[] }>();
  for (const i of picked) {
    const key = localityString(i.locality);
    let g = byLocality.get(key);
    if (!g) byLocality.set(key, (g = { locality: i.locality, eps: [] }));
    g.eps.push(i);
  }
  const groups: LocalityGroup[] = [...byLocality.values()].map((g) => ({ locality: g.locality, priority: 0, weight: g.eps.reduce((n, e) => n + e.weight, 0), instances: g.eps }));
  const ordered = applyLocalityLb(groups, proxy, policy, ctx.meshConfig);
  return {
    clusterName: name,
    endpoints: ordered.map((g) => {
      const eps = [...g.instances].sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
      return {
        locality: { region: g.locality.region, zone: g.locality.zone, subZone: g.locality.subZone },
        loadBalancingWeight: { value: g.weight },
        priority: g.priority,
        lbEndpoints: eps.map((e) => {
          const metadata = endpointMetadata(ctx, e, svc.namespace);
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
