import assert from 'node:assert/strict';
import type { V1EndpointSlice, V1Namespace, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Config } from '../../core/index.js';
import { portProtocol } from './port-protocol.js';
import { serviceEntryFromService, type OrchLookup, type OrchTranslationOptions } from './service-entry-from-service.js';
import { workloadEntryFromPod } from './workload-entry-from-pod.js';

const OPTS: OrchTranslationOptions = { domain: 'cluster.local', clusterId: 'c1', trustDomain: 'td', externalNameAlias: true, selectWorkloadEntries: true };

function lookup(pods: V1Pod[] = [], nodes: V1Node[] = [], wes: Config[] = [], namespaces: V1Namespace[] = []): OrchLookup {
  return {
    pod: (ns, name) => pods.find((p) => p.metadata?.namespace === ns && p.metadata?.name === name),
    podByIp: (ip) => pods.find((p) => p.status?.podIP === ip),
    node: (name) => nodes.find((n) => n.metadata?.name === name),
    namespace: (name) => namespaces.find((n) => n.metadata?.name === name),
    workloadEntries: (ns) => wes.filter((w) => w.metadata.namespace === ns),
  };
}

const svc = (spec: V1Service['spec'], annotations?: Record<string, string>): V1Service => ({ metadata: { name: 'web', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec });
const pod = (name: string, ip: string, labels: Record<string, string> = {}): V1Pod => ({
  metadata: { name, namespace: 'ns', labels },
  spec: { nodeName: 'n1', serviceAccountName: 'sa1', containers: [] },
  status: { podIP: ip, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
const node: V1Node = { metadata: { name: 'n1', labels: { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z', 'topology.mesh.io/subzone': 's' } } };
const slice = (endpoints: V1EndpointSlice['endpoints'], port = 8080): V1EndpointSlice => ({
  metadata: { name: 'web-1', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http-web', port }],
  endpoints,
});
const HTTP_PORT = { ports: [{ name: 'http-web', port: 80, targetPort: 8080 }] };

type Spec = { hosts: string[]; addresses: string[]; resolution: string; ports: { name: string; protocol: string }[]; endpoints: Record<string, unknown>[]; subjectAltNames?: string[]; exportTo?: string[] };

describe('portProtocol', () => {
  const cases = [
    { name: 'given grpc-echo should be GRPC', port: { name: 'grpc-echo' }, want: 'GRPC' },
    { name: 'given the bare prefix http should be HTTP', port: { name: 'http' }, want: 'HTTP' },
    { name: 'given http2-x should be HTTP2, not HTTP', port: { name: 'http2-x' }, want: 'HTTP2' },
    { name: 'given grpc-web-ui should be GRPC-WEB', port: { name: 'grpc-web-ui' }, want: 'GRPC-WEB' },
    { name: 'given tcp-db should be TCP', port: { name: 'tcp-db' }, want: 'TCP' },
    { name: 'given httpx (no dash) should be UNSUPPORTED', port: { name: 'httpx' }, want: 'UNSUPPORTED' },
    { name: 'given appProtocol grpc on a tcp- name should prefer appProtocol', port: { name: 'tcp-x', appProtocol: 'grpc' }, want: 'GRPC' },
    { name: 'given appProtocol kubernetes.io/h2c should be HTTP2', port: { name: 'x', appProtocol: 'kubernetes.io/h2c' }, want: 'HTTP2' },
    { name: 'given transport UDP should be UDP', port: { name: 'http-x', protocol: 'UDP' }, want: 'UDP' },
    { name: 'given no name should be UNSUPPORTED (sniffed)', port: {}, want: 'UNSUPPORTED' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(portProtocol(c.port), c.want));
});

describe('serviceEntryFromService', () => {
  it('given a ClusterIP service with a ready pod endpoint should give a STATIC internal entry with pod labels, identity and node locality', () => {
    const t = serviceEntryFromService(
      svc({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], selector: { app: 'web' }, ...HTTP_PORT }),
      [slice([{ addresses: ['10.1.0.5'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'p1', namespace: 'ns' } }])],
      lookup([pod('p1', '10.1.0.5', { app: 'web', version: 'v1' })], [node]),
      OPTS,
    );
    const spec = t.config.spec as unknown as Spec;
    assert.equal(t.config.kind, 'ServiceEntry');
    assert.equal(t.config.metadata.name, 'orch:web');
    assert.deepEqual(spec.hosts, ['web.ns.svc.cluster.local']);
    assert.deepEqual(spec.addresses, ['10.0.0.1']);
    assert.equal(spec.resolution, 'STATIC');
    assert.deepEqual(spec.ports, [{ number: 80, name: 'http-web', protocol: 'HTTP', targetPort: 8080 }]);
    assert.deepEqual(spec.endpoints, [
      {
        address: '10.1.0.5',
        ports: { 'http-web': 8080 },
        labels: { app: 'web', version: 'v1', 'topology.mesh.io/cluster': 'c1', 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z', 'topology.mesh.io/subzone': 's' },
        locality: 'r/z/s',
        serviceAccount: 'spiffe://td/ns/ns/sa/sa1',
      },
    ]);
    assert.deepEqual(spec.subjectAltNames, ['spiffe://td/ns/ns/sa/sa1']);
    assert.deepEqual(t.stats, { pendingPod: 0, noPod: 0 });
  });

  const endpointCases = [
    { name: 'given a not-ready endpoint should leave it out', eps: [{ addresses: ['10.1.0.5'], conditions: { ready: false }, targetRef: { kind: 'Pod', name: 'p1' } }], pods: [pod('p1', '10.1.0.5')], want: [] as string[], pending: 0, noPod: 0 },
    { name: 'given an endpoint whose pod is not known yet should hold it back as pending', eps: [{ addresses: ['10.1.0.9'], targetRef: { kind: 'Pod', name: 'later' } }], pods: [], want: [], pending: 1, noPod: 0 },
    { name: 'given an endpoint with no pod at all should serve it and count it', eps: [{ addresses: ['10.9.9.9'] }], pods: [], want: ['10.9.9.9'], pending: 0, noPod: 1 },
    { name: 'given the same address twice should serve it once', eps: [{ addresses: ['10.1.0.5'], targetRef: { kind: 'Pod', name: 'p1' } }, { addresses: ['10.1.0.5'], targetRef: { kind: 'Pod', name: 'p1' } }], pods: [pod('p1', '10.1.0.5')], want: ['10.1.0.5'], pending: 0, noPod: 0 },
  ];
  for (const c of endpointCases) {
    it(c.name, () => {
      const t = serviceEntryFromService(svc({ clusterIP: '10.0.0.1', ...HTTP_PORT }), [slice(c.eps)], lookup(c.pods, [node]), OPTS);
      assert.deepEqual((t.config.spec as unknown as Spec).endpoints.map((e) => e['address']), c.want);
      assert.deepEqual(t.stats, { pendingPod: c.pending, noPod: c.noPod });
    });
  }

  it('given a headless service should resolve NONE with no virtual address', () => {
    const spec = serviceEntryFromService(svc({ clusterIP: 'None', clusterIPs: ['None'], ...HTTP_PORT }), [], lookup(), OPTS).config.spec as unknown as Spec;
    assert.equal(spec.resolution, 'NONE');
    assert.deepEqual(spec.addresses, []);
  });

  const externalCases = [
    { name: 'given ExternalName with aliasing should resolve DNS to the external name and keep port protocols', alias: true, want: 'HTTP' },
    { name: 'given ExternalName without aliasing should make every port opaque TCP', alias: false, want: 'TCP' },
  ];
  for (const c of externalCases) {
    it(c.name, () => {
      const spec = serviceEntryFromService(svc({ type: 'ExternalName', externalName: 'db.example.com', ...HTTP_PORT }), [], lookup(), { ...OPTS, externalNameAlias: c.alias }).config.spec as unknown as Spec;
      assert.equal(spec.resolution, 'DNS');
      assert.equal(spec.endpoints[0]?.['address'], 'db.example.com');
      assert.equal(spec.ports[0]?.protocol, c.want);
    });
  }

  const weCases = [
    { name: 'given PILOT_ENABLE_ORCH_SELECT_WORKLOAD_ENTRIES should add selected WorkloadEntries', enabled: true, want: ['10.5.0.1'] },
    { name: 'given PILOT_ENABLE_ORCH_SELECT_WORKLOAD_ENTRIES=false should ignore WorkloadEntries', enabled: false, want: [] as string[] },
  ];
  for (const c of weCases) {
    it(c.name, () => {
      const we = (name: string, labels: Record<string, string>, address: string): Config => ({ apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name, namespace: 'ns' }, spec: { address, labels } });
      const t = serviceEntryFromService(
        svc({ clusterIP: '10.0.0.1', selector: { app: 'web' }, ...HTTP_PORT }),
        [],
        lookup([], [], [we('vm', { app: 'web' }, '10.5.0.1'), we('other', { app: 'db' }, '10.5.0.2')]),
        { ...OPTS, selectWorkloadEntries: c.enabled },
      );
      assert.deepEqual((t.config.spec as unknown as Spec).endpoints.map((e) => e['address']), c.want);
    });
  }

  it('given the exportTo annotation should restrict visibility', () => {
    const spec = serviceEntryFromService(svc({ clusterIP: '10.0.0.1', ...HTTP_PORT }, { 'networking.mesh.io/exportTo': '., other' }), [], lookup(), OPTS).config.spec as unknown as Spec;
    assert.deepEqual(spec.exportTo, ['.', 'other']);
  });

  for (const optimized of [true, false]) {
    it(`given MESH_ENABLE_OPTIMIZED_SERVICE_PUSH=${optimized} should ${optimized ? 'leave an annotation-only change out of' : 'carry an annotation-only change into'} the generated entry`, () => {
      const opts = { ...OPTS, optimizedServicePush: optimized };
      const a = serviceEntryFromService(svc({ clusterIP: '10.0.0.1', ...HTTP_PORT }, { team: 'a' }), [], lookup(), opts).config;
      const b = serviceEntryFromService(svc({ clusterIP: '10.0.0.1', ...HTTP_PORT }, { team: 'b' }), [], lookup(), opts).config;
      assert.equal(JSON.stringify(a) === JSON.stringify(b), optimized);
    });
  }

  it('given a network label on the namespace should put endpoints on that network', () => {
    const ns: V1Namespace = { metadata: { name: 'ns', labels: { 'topology.mesh.io/network': 'net1' } } };
    const t = serviceEntryFromService(svc({ clusterIP: '10.0.0.1', ...HTTP_PORT }), [slice([{ addresses: ['10.1.0.5'], targetRef: { kind: 'Pod', name: 'p1' } }])], lookup([pod('p1', '10.1.0.5')], [], [], [ns]), OPTS);
    assert.equal((t.config.spec as unknown as Spec).endpoints[0]?.['network'], 'net1');
  });
});

describe('workloadEntryFromPod', () => {
  const cases = [
    { name: 'given a ready running pod should be a healthy WorkloadEntry', p: pod('p1', '10.1.0.5', { app: 'web' }), want: 'True' },
    { name: 'given a pod that is not ready should be unhealthy', p: { ...pod('p1', '10.1.0.5'), status: { podIP: '10.1.0.5', phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }, want: 'False' },
    { name: 'given a pod without an IP should give nothing', p: { ...pod('p1', ''), status: { phase: 'Pending' } }, want: undefined },
    { name: 'given a finished pod should give nothing', p: { ...pod('p1', '10.1.0.5'), status: { podIP: '10.1.0.5', phase: 'Succeeded' } }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const we = workloadEntryFromPod(c.p as V1Pod, node, 'td');
      const status = (we?.status as { conditions?: { status: string }[] } | undefined)?.conditions?.[0]?.status;
      assert.equal(status, c.want);
      if (we) assert.equal((we.spec as { locality?: string }).locality, 'r/z/s');
    });
  }
});
