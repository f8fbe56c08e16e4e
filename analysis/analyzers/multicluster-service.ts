/**
 * services.MultiClusterServiceAnalyzer: a Service of the same namespace and name in several clusters of the
 * mesh (the local cluster and the remote clusters of its remote secrets) must agree on headless vs.
 * ClusterIP, type and ports; otherwise each cluster's endpoints are reached with different settings
 * (IST0170, reported once per service, on the local cluster's Service when it has one).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';
import type { Resource } from '../resource.js';

/** The reasons, as Istio words them. */
export const INCONSISTENCY = {
  mixedMode: 'service has mixed mode like headless and clusterIP',
  type: 'service type is inconsistent',
  ports: 'service ports are inconsistent',
} as const;

interface ServiceShape {
  readonly headless: boolean;
  readonly type: string;
  /** The ports in a canonical form, sorted by name. */
  readonly ports: string;
}

function shapeOf(svc: Resource): ServiceShape {
  const spec = rec(svc.obj['spec']);
  // NOTE: files are not defaulted by an API server: an unset type or protocol reads as the server's default
  // (ClusterIP, TCP) and an unset targetPort as the port, so a file and the live object agree. nodePort is
  // left out: each cluster allocates its own.
  const ports = recs(spec['ports'])
    .map((p) => ({
      name: str(p['name']) ?? '',
      protocol: str(p['protocol']) ?? 'TCP',
      appProtocol: str(p['appProtocol']) ?? '',
      port: String(p['port'] ?? ''),
      targetPort: String(p['targetPort'] ?? p['port'] ?? ''),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { headless: spec['clusterIP'] === 'None', type: str(spec['type']) ?? 'ClusterIP', ports: JSON.stringify(ports) };
}

/**
 * The clusters whose Service differs from the first cluster's and why (Istio's findInconsistencies): a
 * headless/ClusterIP mix names every cluster; a type or ports difference names the differing cluster and
 * the first one. Both lists sorted.
 */
export function findInconsistencies(services: ReadonlyMap<string, Resource>): { clusters: string[]; reasons: string[] } {
  const entries = [...services].map(([cluster, svc]) => ({ cluster, shape: shapeOf(svc) }));
  const first = entries[0];
  const clusters = new Set<string>();
  const reasons = new Set<string>();
  if (!first) return { clusters: [], reasons: [] };
  for (const { cluster, shape } of entries) {
    if (first.shape.headless !== shape.headless) {
      for (const e of entries) clusters.add(e.cluster);
      reasons.add(INCONSISTENCY.mixedMode);
    }
    if (first.shape.type !== shape.type) {
      clusters.add(cluster);
      reasons.add(INCONSISTENCY.type);
    }
    if (first.shape.ports !== shape.ports) {
      clusters.add(cluster);
      reasons.add(INCONSISTENCY.ports);
    }
  }
  if (clusters.size > 0) clusters.add(first.cluster);
  return { clusters: [...clusters].sort(), reasons: [...reasons].sort() };
}

/** See the file comment. */
export const multiClusterServiceAnalyzer: Analyzer = {
  name: 'services.MultiClusterServiceAnalyzer',
  description: 'Check the validity of services in the multi-cluster environment',
  inputs: [K.Service],
  analyze(ctx) {
    // namespace/name -> cluster -> Service, the local cluster first (byCluster's order).
    const services = new Map<string, Map<string, Resource>>();
    for (const [cluster, list] of ctx.byCluster(K.Service)) {
      for (const svc of list) {
        const key = `${svc.namespace}/${svc.name}`;
        let byCluster = services.get(key);
        if (!byCluster) services.set(key, (byCluster = new Map()));
        byCluster.set(cluster, svc);
      }
    }
    for (const byCluster of services.values()) {
      if (byCluster.size < 2) continue;
      const { clusters, reasons } = findInconsistencies(byCluster);
      if (clusters.length === 0) continue;
      const svc = [...byCluster.values()][0]!;
      ctx.report(MESSAGES.MultiClusterInconsistentService, svc, svc.name, svc.namespace, clusters, reasons.join('; '));
    }
  },
};
