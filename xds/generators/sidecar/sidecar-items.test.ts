import assert from 'node:assert/strict';
import { TYPE_URL } from '../../server/contracts.js';
import { outboundClusterName } from '../grpc/envoy.js';
import { watchedOfHosts } from './sidecar-items.js';
import { SIDECAR_MESH, sidecarAt, sidecarModel, sidecarNode } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';

describe('sidecar items: the load assignments of changed hosts', () => {
  it('given one set of changed hosts for proxies of two namespaces whose DestinationRules differ should name each proxy its own subsets, from the names it watches', () => {
    const model = sidecarModel(`${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-here, namespace: data }
spec:
  host: ${REVIEWS}
  subsets: [{ name: v9, labels: { version: v9 } }]
`);
    const inDefault = sidecarAt(model);
    const snap = inDefault.snap;
    const inData = sidecarAt(model, sidecarNode({ namespace: 'data', metadata: { LABELS: { app: 'db' }, NAMESPACE: 'data' } })).proxy;
    const name = (subset: string): string => outboundClusterName(9080, subset, REVIEWS);
    const names = new Set(['', 'v1', 'v2', 'v9'].map(name));
    const watched = { typeUrl: TYPE_URL.endpoint, wildcard: false, names };
    // NOTE: one Set object, as an endpoint push gives every proxy (incrementalEdsHosts), so the second and third
    // answers may come from what the first left behind.
    const hosts = new Set([REVIEWS]);
    assert.deepEqual(watchedOfHosts(snap, inDefault.proxy, watched, hosts), [name(''), name('v1'), name('v2')].sort());
    assert.deepEqual(watchedOfHosts(snap, inData, watched, hosts), [name(''), name('v9')].sort());
    const fewer = { ...watched, names: new Set([name('v2')]) };
    assert.deepEqual(watchedOfHosts(snap, inDefault.proxy, fewer, hosts), [name('v2')]);
  });
});
