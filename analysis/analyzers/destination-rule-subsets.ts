/**
 * destinationrule.SubsetSelectPodAnalyzer (Istio's PodNotSelectedAnalyzer): a DestinationRule's host is a
 * service of the mesh (IST0174), and each subset, with the service's workload selector, selects a workload
 * (IST0173), else traffic to it fails with 503 NoHealthyUpstream. NOTE: a ServiceEntry's endpoints are
 * WorkloadEntries and inline endpoints as well as pods, so their labels count as workloads here (Istio looks
 * at pods only; a mesh run from files has WorkloadEntries and no pods).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';
import { selects } from '../selectors.js';
import { ServiceIndex, toFqdn } from '../service-index.js';

/** The node labels the registry copies onto endpoints (topology), so subsets may select on them. */
const TOPOLOGY_LABELS = ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone', 'topology.mesh.io/subzone'] as const;

function strLabels(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(rec(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

/** See the file comment. */
export const subsetSelectPodAnalyzer: Analyzer = {
  name: 'destinationrule.SubsetSelectPodAnalyzer',
  description: 'Checks if pods are selected by subsets in destination rules.',
  inputs: [K.DestinationRule, K.Pod, K.Service, K.ServiceEntry, K.WorkloadEntry],
  analyze(ctx) {
    const index = new ServiceIndex(ctx);
    const nodes = new Map(ctx.all('/Node').map((n) => [n.name, n.labels]));
    const workloads = ctx.workloads().map((w) => {
      const node = str(w.spec['nodeName']);
      const nodeLabels = node ? nodes.get(node) : undefined;
      if (!nodeLabels) return w.labels;
      const extra: Record<string, string> = { 'kubernetes.io/hostname': node! };
      for (const l of TOPOLOGY_LABELS) if (nodeLabels[l] !== undefined) extra[l] = nodeLabels[l];
      return { ...w.labels, ...extra };
    });
    for (const we of ctx.all(K.WorkloadEntry)) workloads.push(strLabels(rec(we.obj['spec'])['labels']));
    for (const se of ctx.all(K.ServiceEntry)) for (const ep of recs(rec(se.obj['spec'])['endpoints'])) workloads.push(strLabels(ep['labels']));
    for (const dr of ctx.all(K.DestinationRule)) {
      const spec = rec(dr.obj['spec']);
      const host = str(spec['host']) ?? '';
      const found = index.lookup(toFqdn(host, dr.namespace), dr.namespace);
      if (found.length === 0) {
        ctx.report(MESSAGES.UnknownDestinationRuleHost, dr, host);
        continue;
      }
      const base = found[0]!.resource.kind === 'ServiceEntry' ? (found[0]!.selector ?? {}) : {};
      for (const subset of recs(spec['subsets'])) {
        const sel = { ...base, ...(rec(subset['labels']) as Record<string, string>) };
        if (!workloads.some((labels) => selects(sel, labels))) ctx.report(MESSAGES.DestinationRuleSubsetNotSelectPods, dr, str(subset['name']) ?? '');
      }
    }
  },
};
