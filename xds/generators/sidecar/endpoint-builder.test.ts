/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { buildSidecarLoadAssignment } from './endpoint-builder.js';
import { sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';

function assignment(name: string, yaml = SIDECAR_MESH, locality?: { region: string; zone: string }): any {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml), sidecarNode(locality ? { locality } : {}));
  return buildSidecarLoadAssignment(snap.pushContext, proxy, name, snap.endpoints, { sendUnhealthyEndpoints: false });
}

const addresses = (la: any): string[][] => la.endpoints.map((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address));

describe('sidecar endpoint builder', () => {
  const cases: { name: string; cluster: string; check: (la: any) => void }[] = [
    {
      name: 'given a subset should serve only the endpoints with its labels',
      cluster: `outbound|9080|v1|${REVIEWS}`,
      check: (la) => assert.deepEqual(addresses(la), [['127.0.0.21']]),
    },
    {
      name: 'given a service in two localities should group endpoints by locality with summed weights',
      cluster: `outbound|9080||${REVIEWS}`,
      check: (la) => {
        assert.deepEqual(la.endpoints.map((l: any) => [l.locality.zone, l.loadBalancingWeight.value]), [['z1', 1], ['z2', 3]]);
        assert.deepEqual(addresses(la), [['127.0.0.21'], ['127.0.0.22']]);
      },
    },
    {
      name: 'given endpoints labelled tlsMode mesh should carry the transport socket match metadata',
      cluster: `outbound|9080|v2|${REVIEWS}`,
      check: (la) => assert.deepEqual(la.endpoints[0].lbEndpoints[0].metadata, { filterMetadata: { 'envoy.transport_socket_match': { fields: { tlsMode: { stringValue: 'mesh' } } } } }),
    },
    {
      name: 'given an endpoint without the tlsMode label should carry no metadata (auto mTLS sends plaintext)',
      cluster: 'outbound|5432||db.data.svc.cluster.local',
      check: (la) => assert.equal(la.endpoints[0].lbEndpoints[0].metadata, undefined),
    },
    { name: 'given an unknown subset should serve nothing', cluster: `outbound|9080|v9|${REVIEWS}`, check: (la) => assert.equal(la, undefined) },
    { name: 'given an unknown port should serve nothing', cluster: `outbound|1|v1|${REVIEWS}`, check: (la) => assert.equal(la, undefined) },
    { name: 'given a name that is not an outbound cluster should serve nothing', cluster: 'inbound|9080||', check: (la) => assert.equal(la, undefined) },
  ];
  for (const c of cases) it(c.name, () => c.check(assignment(c.cluster)));

  it('given outlier detection and a proxy locality should put farther localities at lower priorities', () => {
    const la = assignment(`outbound|9080||${REVIEWS}`, SIDECAR_MESH, { region: 'r1', zone: 'z2' });
    assert.deepEqual(la.endpoints.map((l: any) => [l.locality.zone, l.priority]), [['z2', 0], ['z1', 1]]);
  });

  it('given a draining endpoint should mark it DRAINING', () => {
    const yaml = SIDECAR_MESH.replace('version: v2, security.mesh.io/tlsMode: mesh', 'version: v2, security.mesh.io/tlsMode: mesh, mesh.io/draining: "true"');
    const la = assignment(`outbound|9080|v2|${REVIEWS}`, yaml);
    assert.equal(la.endpoints[0].lbEndpoints[0].healthStatus, 'DRAINING');
  });

  const MTLS_META = { filterMetadata: { 'envoy.transport_socket_match': { fields: { tlsMode: { stringValue: 'mesh' } } } } };
  const tlsModes: { name: string; yaml: string; cluster: string; want: unknown }[] = [
    {
      name: 'given a WorkloadEntry without the tlsMode label but with a service account should carry the mTLS metadata (as istiod)',
      yaml: SIDECAR_MESH.replace('spec: { address: 127.0.0.31, labels: { app: db } }', 'spec: { address: 127.0.0.31, labels: { app: db }, serviceAccount: db }'),
      cluster: 'outbound|5432||db.data.svc.cluster.local',
      want: MTLS_META,
    },
    {
      name: 'given a WorkloadEntry labelled tlsMode disabled with a service account should carry no metadata',
      yaml: SIDECAR_MESH.replace('spec: { address: 127.0.0.31, labels: { app: db } }', 'spec: { address: 127.0.0.31, labels: { app: db, security.mesh.io/tlsMode: disabled }, serviceAccount: db }'),
      cluster: 'outbound|5432||db.data.svc.cluster.local',
      want: undefined,
    },
    {
      name: 'given an orchestrator pod without the tlsMode label should carry no metadata whatever its service account',
      yaml: SIDECAR_MESH.replace('metadata: { name: db, namespace: data }\nspec: { address: 127.0.0.31, labels: { app: db } }', 'metadata: { name: "orch:db-0", namespace: data }\nspec: { address: 127.0.0.31, labels: { app: db }, serviceAccount: "spiffe://cluster.local/ns/data/sa/db" }'),
      cluster: 'outbound|5432||db.data.svc.cluster.local',
      want: undefined,
    },
    {
      name: "given a PeerAuthentication that disables mTLS on the endpoint's port should carry no metadata (as istiod)",
      yaml: `${SIDECAR_MESH}
---
apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: reviews, namespace: default }
spec: { selector: { matchLabels: { app: reviews } }, mtls: { mode: STRICT }, portLevelMtls: { 9080: { mode: DISABLE } } }
`,
      cluster: `outbound|9080|v2|${REVIEWS}`,
      want: undefined,
    },
  ];
  for (const c of tlsModes) {
    it(c.name, () => {
      const la = assignment(c.cluster, c.yaml);
      assert.ok(la, 'the assignment is built');
      assert.deepEqual(la.endpoints[0].lbEndpoints[0].metadata, c.want);
    });
  }
});
