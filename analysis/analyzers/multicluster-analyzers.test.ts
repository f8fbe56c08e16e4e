import assert from 'node:assert/strict';
import { messageText } from '../diagnostic.js';
import { runAnalysis } from '../run-analysis.js';
import { analyzerTable, readTestResources } from '../testing/analyzer-table.js';
import { multiClusterServiceAnalyzer } from './multicluster-service.js';

const C1 = 'multicluster/services-cluster-1.yaml';
const C2 = 'multicluster/services-cluster-2.yaml';
const C3 = 'multicluster/services-cluster-3.yaml';

describe('services.MultiClusterServiceAnalyzer', () => {
  analyzerTable(
    [multiClusterServiceAnalyzer],
    [
      {
        name: 'given two clusters should report each service whose ports, protocol or headless mode differ, not defaults written out, node ports or one-cluster services',
        files: [C1],
        clusters: { local: 'cluster-1', remotes: { 'cluster-2': [C2] } },
        expected: ['IST0170 Service shop/extra-port', 'IST0170 Service shop/renamed-port', 'IST0170 Service shop/headless', 'IST0170 Service shop/udp'],
      },
      {
        name: 'given a third cluster changing one service type should report that service too',
        files: [C1],
        clusters: { local: 'cluster-1', remotes: { 'cluster-2': [C2], 'cluster-3': [C3] } },
        expected: ['IST0170 Service shop/same', 'IST0170 Service shop/extra-port', 'IST0170 Service shop/renamed-port', 'IST0170 Service shop/headless', 'IST0170 Service shop/udp'],
      },
      { name: 'given one cluster only (no remote secrets, or files alone) should report nothing', files: [C1, C3], expected: [] },
    ],
  );

  it('given inconsistent services should name the clusters and the reasons as Istio does, on the local cluster\'s Service', () => {
    const { diagnostics } = runAnalysis(readTestResources([C1]), [multiClusterServiceAnalyzer], {
      multiCluster: { local: 'cluster-1', remotes: [{ cluster: 'cluster-2', resources: readTestResources([C2]) }, { cluster: 'cluster-3', resources: readTestResources([C3]) }] },
    });
    const text = new Map(diagnostics.map((d) => [d.resource?.name, messageText(d)]));
    assert.equal(
      text.get('same'),
      'The service same in namespace "shop" is inconsistent across clusters ["cluster-1" "cluster-3"], which can lead to undefined behaviors. The inconsistent behaviors are: service type is inconsistent.',
    );
    assert.match(text.get('headless') ?? '', /across clusters \["cluster-1" "cluster-2"\].*: service has mixed mode like headless and clusterIP\.$/);
    assert.match(text.get('extra-port') ?? '', /: service ports are inconsistent\.$/);
    for (const d of diagnostics) assert.equal(d.resource?.origin.file, C1, `${d.resource?.name} is reported on the local cluster's Service`);
  });
});
