/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * A ServiceEntry with a `workloadSelector`: its endpoints are the selected WorkloadEntries only (istiod's
 * convertServiceEntryToInstances makes the host an endpoint only without endpoints and without a selector).
 */
import assert from 'node:assert/strict';
import { createMetrics, type Metrics } from '../../../core/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { conflictRecorderFrom } from './conflict-recorder.js';
import { buildSidecarLoadAssignment } from './endpoint-builder.js';
import { buildSidecarResources } from './sidecar-generator.js';
import { sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const entry = (resolution: string, selector: boolean): string => `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: legacy, namespace: default }
spec:
  hosts: [legacy.partner.org]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: ${resolution}
${selector ? '  workloadSelector: { labels: { app: legacy } }' : ''}
`;

const WE = `
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: legacy-1, namespace: default }
spec: { address: legacy-1.partner.org, labels: { app: legacy } }
`;

async function gauge(metrics: Metrics, name: string): Promise<string | undefined> {
  return new RegExp(`^${name} (\\d+)$`, 'm').exec(await metrics.text())?.[1];
}

function clusterOf(yaml: string, metrics?: Metrics): any {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const conflicts = metrics ? conflictRecorderFrom(metrics) : undefined;
  const out = buildSidecarResources(proxy, TYPE_URL.cluster, snap, undefined, { sendUnhealthyEndpoints: false, ...(conflicts ? { conflicts } : {}) });
  return out.get('outbound|80||legacy.partner.org');
}

const targets = (c: any): string[] => c.loadAssignment.endpoints.flatMap((l: any) => l.lbEndpoints.map((e: any) => `${e.endpoint.address.socketAddress.address}:${e.endpoint.address.socketAddress.portValue}`));

describe('ServiceEntry with a workloadSelector', () => {
  it('given DNS resolution and no selected workload should drop the cluster (no host endpoint) and count it in pilot_dns_cluster_without_endpoints; a selected workload is resolved', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    assert.equal(clusterOf(entry('DNS', true), metrics), undefined);
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '1');
    assert.deepEqual(targets(clusterOf(entry('DNS', true) + WE)), ['legacy-1.partner.org:80'], 'a selected workload is resolved');
    assert.deepEqual(targets(clusterOf(entry('DNS', false))), ['legacy.partner.org:80'], 'without a selector the host is');
    // NOTE: STATIC with a selector and no workload: an EDS cluster whose assignment is empty (as istiod).
    const { proxy, snap } = sidecarAt(sidecarModel(entry('STATIC', true)));
    const la: any = buildSidecarLoadAssignment(snap.pushContext, proxy, 'outbound|80||legacy.partner.org', snap.endpoints, { sendUnhealthyEndpoints: false });
    assert.deepEqual(la.endpoints, []);
  });
});
