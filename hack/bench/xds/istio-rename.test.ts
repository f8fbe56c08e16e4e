import assert from 'node:assert/strict';
import { renderCrds } from '../../../crds/index.js';
import { istiodNode } from './bench-target.js';
import { clientSpecs } from './client-specs.js';
import { benchService, serviceDocuments } from './config-gen.js';
import { ISTIO_PROXY_VERSION, istioCrds, renameForIstio, renameString } from './istio-rename.js';
import { planEdits } from './markers.js';

describe('bench:xds renaming for istiod', () => {
  const strings: [string, string][] = [
    ['networking.mesh.io/v1', 'networking.istio.io/v1'],
    ['security.mesh.io/tlsMode', 'security.istio.io/tlsMode'],
    ['virtualservices.networking.mesh.io', 'virtualservices.networking.istio.io'],
    ['MESH_MUTUAL', 'ISTIO_MUTUAL'],
    ['networking-mesh-io', 'networking-istio-io'],
    ['mesh-io', 'istio-io'],
    // NOTE: what is not a group, mode or category stays as it is.
    ['svc-0.ns-0.svc.cluster.local', 'svc-0.ns-0.svc.cluster.local'],
    ['mesh', 'mesh'],
    ['MESH_ID', 'MESH_ID'],
  ];
  for (const [from, to] of strings) {
    it(`given "${from}" should rename it to "${to}"`, () => assert.equal(renameString(from), to));
  }

  it('given a generated service should rename every API group and keep names, hosts and labels', () => {
    const s = benchService(3, 10);
    const docs = serviceDocuments(s, { services: 10, namespaces: 10, endpointsPerService: 2 });
    const before = JSON.stringify(docs);
    const renamed = docs.map((d) => renameForIstio(d));
    assert.equal(JSON.stringify(docs), before, 'the input is not changed');
    assert.deepEqual(renamed.map((d) => d.apiVersion), docs.map(() => 'networking.istio.io/v1'));
    assert.doesNotMatch(JSON.stringify(renamed), /mesh\.io/);
    assert.equal(JSON.stringify(renamed).replaceAll('networking.istio.io', 'networking.mesh.io'), before, 'nothing but the group changed');
  });

  it('given a DestinationRule with MESH_MUTUAL and a workload with the mesh tlsMode label should give ISTIO_MUTUAL and istio', () => {
    const dr = { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', spec: { host: 'a', trafficPolicy: { tls: { mode: 'MESH_MUTUAL' } } } };
    const we = { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', spec: { labels: { app: 'mesh', 'security.mesh.io/tlsMode': 'mesh' } } };
    assert.deepEqual(renameForIstio(dr).spec.trafficPolicy.tls.mode, 'ISTIO_MUTUAL');
    assert.deepEqual(renameForIstio(we).spec.labels, { app: 'mesh', 'security.istio.io/tlsMode': 'istio' });
  });

  it('given a sidecar and a proxyless client should announce ISTIO_VERSION and the istio tlsMode label, with the same id and metadata otherwise', () => {
    const plan = planEdits('abc', 1);
    for (const proxyType of ['sidecar', 'grpc'] as const) {
      const [spec] = clientSpecs({ proxies: 1, proxyType, xds: 'sotw', services: 5, namespaces: 2, listenersPerClient: 2 }, plan);
      const node = istiodNode(spec!).node;
      const md = node.metadata as Record<string, unknown>;
      assert.equal(node.id, spec!.node.id);
      assert.equal(md.ISTIO_VERSION, ISTIO_PROXY_VERSION);
      assert.equal(md.MESH_VERSION, undefined);
      assert.deepEqual(md.LABELS, { app: 'client-0', version: 'v1', 'security.istio.io/tlsMode': 'istio' });
      for (const k of ['NAME', 'NAMESPACE', 'INSTANCE_IPS', 'SERVICE_ACCOUNT', 'WORKLOAD_NAME', 'CLUSTER_ID']) assert.equal(md[k], (spec!.node.metadata as Record<string, unknown>)[k], k);
      if (proxyType === 'grpc') assert.equal(md.GENERATOR, 'grpc');
      else assert.equal(md.POD_PORTS, '[{"name":"grpc","containerPort":8080,"protocol":"TCP"}]');
    }
  });

  it('given our CRDs should give istiod the networking, security, telemetry and extensions kinds under istio.io names', () => {
    const crds = istioCrds(renderCrds());
    const names = crds.map((c) => c.metadata.name);
    for (const n of ['virtualservices.networking.istio.io', 'serviceentries.networking.istio.io', 'workloadentries.networking.istio.io', 'peerauthentications.security.istio.io', 'telemetries.telemetry.istio.io', 'wasmplugins.extensions.istio.io']) {
      assert.ok(names.includes(n), `missing ${n} in ${names.join(', ')}`);
    }
    for (const c of crds) assert.ok(c.metadata.name.endsWith(`.${c.spec.group}`), c.metadata.name);
    assert.ok(!names.some((n) => n.includes('install')), 'no operator CRD');
    assert.doesNotMatch(JSON.stringify(crds), /[a-z]\.mesh\.io|MESH_MUTUAL/);
    assert.match(JSON.stringify(crds.find((c) => c.metadata.name === 'destinationrules.networking.istio.io')), /ISTIO_MUTUAL/);
  });
});
