import assert from 'node:assert/strict';
import { Subject, type Subscription } from 'rxjs';
import type { ConfigEvent, ModelInput, ServiceInstance } from '../../core/index.js';
import { InformerFactory, ORCH_RESOURCES, resourcePath } from '../orch/index.js';
import { parseLabelSelectors, namespaceSelected, type LabelSelector } from './label-selector.js';
import { orchRegistry, type OrchRegistryOptions } from './orch-registry.js';
import { PathTransport } from './testing/path-transport.js';

const P = {
  namespaces: resourcePath(ORCH_RESOURCES.namespaces),
  nodes: resourcePath(ORCH_RESOURCES.nodes),
  pods: resourcePath(ORCH_RESOURCES.pods),
  services: resourcePath(ORCH_RESOURCES.services),
  slices: resourcePath(ORCH_RESOURCES.endpointSlices),
};

const ns = (name: string, labels: Record<string, string> = {}): Record<string, unknown> => ({ metadata: { name, labels } });
const node = (zone: string, extra: Record<string, string> = {}): Record<string, unknown> => ({ metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': zone, ...extra } } });
const pod = (name: string, namespace: string, ip: string): Record<string, unknown> => ({
  metadata: { name, namespace, labels: { app: 'web' } },
  spec: { nodeName: 'n1', serviceAccountName: 'sa' },
  status: { podIP: ip, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
const service = (namespace: string): Record<string, unknown> => ({
  metadata: { name: 'web', namespace },
  spec: { clusterIP: '10.0.0.1', selector: { app: 'web' }, ports: [{ name: 'grpc', port: 80 }] },
});
const slice = (namespace: string, podName: string, ip: string): Record<string, unknown> => ({
  metadata: { name: `web-${podName}`, namespace, labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'grpc', port: 8080 }],
  endpoints: [{ addresses: [ip], targetRef: { kind: 'Pod', name: podName, namespace } }],
});

async function settle(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never reached: ${what}`);
}

describe('orchRegistry (path transport)', () => {
  let transport: PathTransport;
  let batches: (readonly ModelInput[])[];
  let gauges: Record<string, number>;
  let sub: Subscription | undefined;
  const we$ = new Subject<ConfigEvent>();

  const start = (over: Partial<OrchRegistryOptions> = {}): void => {
    sub = orchRegistry({
      informers: new InformerFactory(transport),
      domain: 'cluster.local',
      clusterId: 'c1',
      trustDomain: 'td',
      externalNameAlias: true,
      selectWorkloadEntries: true,
      selectPods: false,
      discoverySelectors: [],
      workloadEntries$: we$,
      metrics: { pendingPods: (n) => (gauges['pending'] = n), endpointsWithoutPod: (n) => (gauges['noPod'] = n) },
      ...over,
    }).subscribe((b) => batches.push(b));
  };
  const events = (b: readonly ModelInput[] | undefined): string[] =>
    (b ?? []).map((i) =>
      i.kind === 'config' ? `${i.event.type} ${i.event.key.kind}/${i.event.key.namespace}/${i.event.key.name}` : i.kind === 'endpoints' ? `endpoints ${i.hostname} ${i.shard}` : i.kind,
    );
  const endpointsOf = (b: readonly ModelInput[] | undefined, hostname = 'web.a.svc.cluster.local'): readonly ServiceInstance[] => {
    const i = b?.find((x) => x.kind === 'endpoints' && x.hostname === hostname);
    return i?.kind === 'endpoints' ? i.instances : [];
  };
  const EP_A = 'endpoints web.a.svc.cluster.local Orchestrator/c1';
  const synced = async (): Promise<void> => settle('the first batch and every watch', () => batches.length === 1 && Object.values(P).every((p) => transport.watching(p)));

  beforeEach(() => {
    transport = new PathTransport();
    batches = [];
    gauges = {};
    transport.lists.set(P.namespaces, [ns('a', { mesh: 'on' }), ns('b')]);
    transport.lists.set(P.nodes, [node('z1')]);
    transport.lists.set(P.pods, [pod('p1', 'a', '10.1.0.1')]);
    transport.lists.set(P.services, [service('a'), service('b')]);
    transport.lists.set(P.slices, [slice('a', 'p1', '10.1.0.1'), slice('a', 'p2', '10.1.0.2')]);
  });
  afterEach(() => sub?.unsubscribe());

  it('given the first list, should emit one batch with a ServiceEntry per Service and the endpoint shard of a, holding back the endpoint whose pod is unknown', async () => {
    start();
    await synced();
    assert.deepEqual(events(batches[0]).sort(), ['added ServiceEntry/a/orch:web', 'added ServiceEntry/b/orch:web', EP_A]);
    const se = batches[0]!.find((i) => i.kind === 'config' && i.event.key.namespace === 'a');
    assert.equal(se?.kind === 'config' && 'endpoints' in (se.event.object?.spec ?? {}), false, 'endpoints stay out of the generated config');
    const eps = endpointsOf(batches[0]);
    assert.deepEqual(eps.map((e) => [e.address, e.port, e.locality.zone, e.serviceAccount, e.source]), [['10.1.0.1', 8080, 'z1', 'spiffe://td/ns/a/sa/sa', 'ServiceEntry/a/orch:web']]);
    assert.equal(gauges['pending'], 1);
  });

  it('given the pending pod arrives, should emit the endpoint shard of its service only', async () => {
    start();
    await synced();
    transport.emit(P.pods, 'ADDED', pod('p2', 'a', '10.1.0.2'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), [EP_A]);
    assert.equal(endpointsOf(batches[1]).length, 2);
    assert.equal(gauges['pending'], 0);
  });

  it('given informer events of one turn for two services, should fold them into one batch', async () => {
    transport.lists.set(P.pods, [pod('p1', 'a', '10.1.0.1'), pod('p3', 'b', '10.2.0.3')]);
    start();
    await synced();
    transport.emit(P.pods, 'ADDED', pod('p2', 'a', '10.1.0.2'));
    transport.emit(P.slices, 'ADDED', { ...slice('b', 'p3', '10.2.0.3'), metadata: { name: 'web-p3', namespace: 'b', labels: { 'kubernetes.io/service-name': 'web' } } });
    await settle('a second batch', () => batches.length >= 2);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(batches.length, 2, 'one batch for both events');
    assert.deepEqual(events(batches[1]).sort(), [EP_A, 'endpoints web.b.svc.cluster.local Orchestrator/c1', 'updated ServiceEntry/b/orch:web']);
  });

  it('given a node update that changes nothing the registry uses, should emit nothing; a zone change should update', async () => {
    start();
    await synced();
    transport.emit(P.nodes, 'MODIFIED', node('z1', { heartbeat: 'x' }));
    transport.emit(P.nodes, 'MODIFIED', node('z2'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), [EP_A]);
    assert.equal(endpointsOf(batches[1])[0]?.locality.zone, 'z2');
  });

  it('given discovery selectors, should serve only selected namespaces and follow namespace label changes', async () => {
    start({ discoverySelectors: parseLabelSelectors([{ matchLabels: { mesh: 'on' } }], 'test') });
    await synced();
    assert.deepEqual(events(batches[0]), ['added ServiceEntry/a/orch:web', EP_A]);
    transport.emit(P.namespaces, 'MODIFIED', ns('b', { mesh: 'on' }));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), ['added ServiceEntry/b/orch:web']);
  });

  it('given new discovery selectors from the mesh config, should drop and add services to match', async () => {
    const selectors$ = new Subject<readonly LabelSelector[]>();
    start({ discoverySelectors$: selectors$ });
    await synced();
    selectors$.next([]);
    selectors$.next(parseLabelSelectors([{ matchLabels: { mesh: 'on' } }], 'test'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), ['deleted ServiceEntry/b/orch:web']);
  });

  it('given PILOT_ENABLE_SERVICEENTRY_SELECT_PODS, should emit a WorkloadEntry per running pod', async () => {
    start({ selectPods: true });
    await synced();
    assert.ok(events(batches[0]).includes('added WorkloadEntry/a/orch:p1'));
    transport.emit(P.pods, 'DELETED', pod('p1', 'a', '10.1.0.1'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]).sort(), ['deleted WorkloadEntry/a/orch:p1', EP_A, 'updated ServiceEntry/a/orch:web']);
    assert.deepEqual(endpointsOf(batches[1]), [], 'the endpoint of the deleted pod is held back');
  });

  it('given a WorkloadEntry the service selects, should add it as an endpoint', async () => {
    start();
    await synced();
    we$.next({ type: 'added', key: { kind: 'WorkloadEntry', namespace: 'b', name: 'vm' }, object: { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'vm', namespace: 'b' }, spec: { address: '10.9.0.1', labels: { app: 'web' } } }, resourceVersion: '1' });
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), ['endpoints web.b.svc.cluster.local Orchestrator/c1']);
    assert.equal(endpointsOf(batches[1], 'web.b.svc.cluster.local')[0]?.address, '10.9.0.1');
  });

  it('given an ExternalName service naming a mesh service, should alias its endpoints and follow their changes', async () => {
    transport.lists.set(P.services, [service('a'), { metadata: { name: 'alias', namespace: 'a' }, spec: { type: 'ExternalName', externalName: 'web.a.svc.cluster.local', ports: [{ name: 'grpc', port: 80 }] } }]);
    start();
    await synced();
    const alias = batches[0]!.find((x) => x.kind === 'config' && x.event.key.name === 'orch:alias');
    assert.equal(alias?.kind === 'config' && (alias.event.object?.spec as { resolution: string }).resolution, 'STATIC');
    const aliasHost = 'alias.a.svc.cluster.local';
    assert.deepEqual(endpointsOf(batches[0], aliasHost).map((e) => [e.hostname, e.address]), [[aliasHost, '10.1.0.1']]);
    transport.emit(P.pods, 'ADDED', pod('p2', 'a', '10.1.0.2'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]).sort(), [`endpoints ${aliasHost} Orchestrator/c1`, EP_A]);
    assert.deepEqual(endpointsOf(batches[1], aliasHost).map((e) => e.address), ['10.1.0.1', '10.1.0.2']);
  });

  it('given the service deleted, should delete its ServiceEntry', async () => {
    start();
    await synced();
    transport.emit(P.services, 'DELETED', service('b'));
    await settle('a second batch', () => batches.length === 2);
    assert.deepEqual(events(batches[1]), ['deleted ServiceEntry/b/orch:web']);
  });
});

describe('namespaceSelected', () => {
  const sel = (s: unknown): LabelSelector[] => parseLabelSelectors(s, 'meshConfig discoverySelectors');
  const cases: { name: string; selectors: LabelSelector[]; labels: Record<string, string>; want: boolean }[] = [
    { name: 'given no selectors should select every namespace', selectors: sel([]), labels: {}, want: true },
    { name: 'given matchLabels that match should select', selectors: sel([{ matchLabels: { env: 'prod' } }]), labels: { env: 'prod' }, want: true },
    { name: 'given matchLabels that do not match should not select', selectors: sel([{ matchLabels: { env: 'prod' } }]), labels: { env: 'dev' }, want: false },
    { name: 'given In should select a listed value', selectors: sel([{ matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }] }]), labels: { env: 'b' }, want: true },
    { name: 'given NotIn should not select a listed value', selectors: sel([{ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['b'] }] }]), labels: { env: 'b' }, want: false },
    { name: 'given DoesNotExist should select a namespace without the label', selectors: sel([{ matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] }]), labels: {}, want: true },
    { name: 'given two selectors should select when either matches', selectors: sel([{ matchLabels: { a: '1' } }, { matchExpressions: [{ key: 'b', operator: 'Exists' }] }]), labels: { b: 'x' }, want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(namespaceSelected(c.selectors, c.labels), c.want));

  const bad = [
    { name: 'given an unknown operator should name it and the item', raw: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }], error: /discoverySelectors\[0\]\.matchExpressions\[0\]\.operator: "Near" is not one of/ },
    { name: 'given In without values should say so', raw: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }], error: /\.values: In needs at least one value/ },
    { name: 'given a non-list should say so', raw: { matchLabels: {} }, error: /must be a list of label selectors/ },
  ];
  for (const c of bad) it(c.name, () => assert.throws(() => sel(c.raw), c.error));
});
