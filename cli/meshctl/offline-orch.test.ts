import assert from 'node:assert/strict';
import type { V1Endpoints, V1Pod, V1Service } from '@kubernetes/client-node';
import { NotImplementedError } from '../framework/index.js';
import { orchInputs, sliceFromEndpoints, sliceFromPods } from './offline-orch.js';

const svc: V1Service = { metadata: { name: 'web', namespace: 'shop' }, spec: { clusterIP: '10.96.9.1', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'web' as never }, { name: 'admin', port: 9000, targetPort: 9001 as never }] } };
const pod = (name: string, ip: string | undefined, labels: Record<string, string>, phase = 'Running'): V1Pod => ({
  metadata: { name, namespace: 'shop', labels },
  spec: { serviceAccountName: 'web', containers: [{ name: 'c', image: 'i', ports: [{ name: 'web', containerPort: 8080 }] }] },
  status: { phase, ...(ip ? { podIP: ip } : {}) },
});

describe('meshctl offline orchestrator inputs (Services, Endpoints, EndpointSlices, Pods)', () => {
  it('given a Service and Pods should make the slice the endpoints controller would: running pods of the selector, named target ports resolved', () => {
    const slice = sliceFromPods(svc, [pod('a', '10.1.0.1', { app: 'web' }), pod('b', undefined, { app: 'web' }), pod('c', '10.1.0.3', { app: 'web' }, 'Succeeded'), pod('d', '10.1.0.4', { app: 'other' })])!;
    assert.deepEqual(slice.endpoints?.map((e) => e.addresses), [['10.1.0.1']]);
    assert.deepEqual(slice.ports?.map((p) => [p.name, p.port]), [['http', 8080], ['admin', 9001]]);
    assert.equal(slice.metadata?.labels?.['kubernetes.io/service-name'], 'web');
  });

  it('given Endpoints should make a slice with ready and not-ready addresses', () => {
    const ep: V1Endpoints = { metadata: { name: 'db', namespace: 'shop' }, subsets: [{ addresses: [{ ip: '10.2.0.1' }], notReadyAddresses: [{ ip: '10.2.0.2' }], ports: [{ name: 'tcp', port: 5432 }] }] };
    const slice = sliceFromEndpoints(ep);
    assert.deepEqual(slice.endpoints?.map((e) => [e.addresses[0], e.conditions?.ready]), [['10.2.0.1', true], ['10.2.0.2', false]]);
  });

  it('given a Service and Pods should make the ServiceEntry meshd would, and the Pods as proxies', () => {
    const doc = (object: object, n: number): { file: string; document: number; object: Record<string, unknown> } => ({ file: 'k8s.yaml', document: n, object: object as Record<string, unknown> });
    const out = orchInputs([doc({ kind: 'Service', ...svc }, 1), doc({ kind: 'Pod', ...pod('a', '10.1.0.1', { app: 'web', version: 'v1' }) }, 2)], { domain: 'cluster.local', trustDomain: 'cluster.local' });
    const se = out.configs[0]!;
    const spec = se.spec as { hosts: string[]; addresses: string[]; endpoints: { address: string; ports: Record<string, number>; labels: Record<string, string>; serviceAccount: string }[] };
    assert.deepEqual([se.kind, spec.hosts, spec.addresses], ['ServiceEntry', ['web.shop.svc.cluster.local'], ['10.96.9.1']]);
    assert.deepEqual(spec.endpoints.map((e) => [e.address, e.ports, e.labels['version'], e.serviceAccount]), [['10.1.0.1', { http: 8080, admin: 9001 }, 'v1', 'spiffe://cluster.local/ns/shop/sa/web']]);
    assert.deepEqual(out.proxies.map((p) => [p.metadata.namespace, p.metadata.name, (p.spec as { address: string }).address]), [['shop', 'a', '10.1.0.1']]);
  });

  it('given a Deployment should refuse it as not implemented, naming file and document', () => {
    assert.throws(
      () => orchInputs([{ file: 'k8s.yaml', document: 3, object: { kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } } }], { domain: 'cluster.local', trustDomain: 'cluster.local' }),
      (e: unknown) => e instanceof NotImplementedError && /Kubernetes Deployment inputs \(k8s\.yaml document 3 \(Deployment shop\/web\)\)/.test(e.message),
    );
  });
});
