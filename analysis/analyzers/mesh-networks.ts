/**
 * meshnetworks.MeshNetworksAnalyzer: every `fromRegistry` of the mesh networks (the `meshNetworks` key of
 * the `mesh-networks` or `mesh` ConfigMap) names a known registry: `Kubernetes`/`Orchestrator` or a
 * cluster of a multicluster secret (label `mesh/multiCluster: "true"`) (IST0126).
 */
import { parseConfigYaml } from '../../crds/index.js';
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';

function parseYamlObject(text: string): Record<string, unknown> {
  const parsed = parseConfigYaml(text);
  return parsed.ok ? rec(parsed.documents[0]?.value) : {};
}

/** See the file comment. */
export const meshNetworksAnalyzer: Analyzer = {
  name: 'meshnetworks.MeshNetworksAnalyzer',
  description: 'Check the validity of MeshNetworks in the cluster',
  inputs: [K.ConfigMap, K.Secret],
  analyze(ctx) {
    const known = new Set(['Kubernetes', 'Orchestrator']);
    for (const s of ctx.all(K.Secret)) {
      if (s.labels['mesh/multiCluster'] !== 'true') continue;
      for (const key of Object.keys(rec(s.obj['data']))) known.add(key);
    }
    for (const name of ['mesh-networks', 'mesh']) {
      const cm = ctx.get(K.ConfigMap, ctx.settings.meshNamespace, name);
      const text = str(rec(cm?.obj['data'])['meshNetworks']);
      if (!cm || text === undefined) continue;
      const networks = rec(parseYamlObject(text)['networks']);
      for (const [network, def] of Object.entries(networks)) {
        for (const ep of recs(rec(def)['endpoints'])) {
          const reg = str(ep['fromRegistry']);
          if (reg !== undefined && !known.has(reg)) ctx.report(MESSAGES.UnknownMeshNetworksServiceRegistry, cm, reg, network);
        }
      }
    }
  },
};
