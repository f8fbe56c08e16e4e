import assert from 'node:assert/strict';
import { proxyRequestPush } from '../../../core/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { sidecarScope } from './sidecar-scope.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

function withSidecar(spec: string, meta = '{ name: default, namespace: default }'): string {
  return `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: ${meta}
spec: ${spec}
`;
}

function scopeOf(yaml: string, labels: Record<string, string> = { app: 'productpage' }): { hosts: string[]; mode: string; sidecar: string | undefined } {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml), sidecarNode({ metadata: { LABELS: labels, NAMESPACE: 'default' } }));
  const s = sidecarScope(snap.pushContext, proxy);
  return { hosts: s.services.map((x) => x.hostname), mode: s.outboundMode, sidecar: s.sidecar?.metadata.name };
}

const ALL = ['api.example.com', 'db.data.svc.cluster.local', 'productpage.default.svc.cluster.local', 'reviews.default.svc.cluster.local'];
const DEFAULT_NS = ['api.example.com', 'productpage.default.svc.cluster.local', 'reviews.default.svc.cluster.local'];

describe('sidecar scope (Sidecar resource)', () => {
  const cases: { name: string; yaml: string; labels?: Record<string, string>; want: { hosts: string[]; mode: string; sidecar: string | undefined } }[] = [
    { name: 'given no Sidecar should see every service exported to the namespace', yaml: SIDECAR_MESH, want: { hosts: ALL, mode: 'ALLOW_ANY', sidecar: undefined } },
    { name: 'given egress ./* should see only its own namespace', yaml: withSidecar('{ egress: [{ hosts: ["./*"] }] }'), want: { hosts: DEFAULT_NS, mode: 'ALLOW_ANY', sidecar: 'default' } },
    { name: 'given egress data/* should see only that namespace', yaml: withSidecar('{ egress: [{ hosts: ["data/*"] }] }'), want: { hosts: ['db.data.svc.cluster.local'], mode: 'ALLOW_ANY', sidecar: 'default' } },
    { name: 'given egress ~/* should see nothing', yaml: withSidecar('{ egress: [{ hosts: ["~/*"] }] }'), want: { hosts: [], mode: 'ALLOW_ANY', sidecar: 'default' } },
    {
      name: 'given egress on a host routed by a VirtualService should also see the VirtualService destinations',
      yaml: withSidecar('{ egress: [{ hosts: ["*/reviews.default.svc.cluster.local"] }] }'),
      want: { hosts: ['reviews.default.svc.cluster.local'], mode: 'ALLOW_ANY', sidecar: 'default' },
    },
    {
      name: 'given a Sidecar outboundTrafficPolicy should override the mesh mode',
      yaml: withSidecar('{ outboundTrafficPolicy: { mode: REGISTRY_ONLY } }'),
      want: { hosts: ALL, mode: 'REGISTRY_ONLY', sidecar: 'default' },
    },
    {
      name: 'given a Sidecar selecting the workload should win over the namespace-wide one',
      yaml: `${withSidecar('{ egress: [{ hosts: ["./*"] }] }')}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: pp, namespace: default }
spec: { workloadSelector: { labels: { app: productpage } }, egress: [{ hosts: ["data/*"] }] }
`,
      want: { hosts: ['db.data.svc.cluster.local'], mode: 'ALLOW_ANY', sidecar: 'pp' },
    },
    {
      name: 'given a root-namespace Sidecar and none in the namespace should use the root one',
      yaml: withSidecar('{ egress: [{ hosts: ["data/*"] }] }', '{ name: mesh-wide, namespace: mesh-system }'),
      want: { hosts: ['db.data.svc.cluster.local'], mode: 'ALLOW_ANY', sidecar: 'mesh-wide' },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(scopeOf(c.yaml, c.labels), c.want));

  it('given one proxy asked again under a newer snapshot that adds a Sidecar, and a proxy of other labels, should give each its own scope', () => {
    const node = sidecarNode({ metadata: { LABELS: { app: 'productpage' }, NAMESPACE: 'default' } });
    const before = sidecarAt(sidecarModel(SIDECAR_MESH), node);
    const after = sidecarAt(sidecarModel(withSidecar('{ workloadSelector: { labels: { app: productpage } }, egress: [{ hosts: ["data/*"] }] }')), node).snap.pushContext;
    const p = before.proxy;
    assert.equal(sidecarScope(before.snap.pushContext, p), sidecarScope(before.snap.pushContext, p));
    assert.equal(sidecarScope(before.snap.pushContext, p).sidecar, undefined);
    assert.deepEqual(sidecarScope(after, p).services.map((x) => x.hostname), ['db.data.svc.cluster.local']);
    assert.equal(sidecarScope(before.snap.pushContext, p).sidecar, undefined, 'the older snapshot still gives its own scope');
    const other = sidecarAt(sidecarModel(SIDECAR_MESH), sidecarNode({ metadata: { LABELS: { app: 'reviews' }, NAMESPACE: 'default' } })).proxy;
    assert.equal(sidecarScope(after, other).sidecar, undefined, 'the Sidecar selects productpage only');
  });

  it('given egress on a host whose VirtualService delegates should also see the delegate destinations', () => {
    const yaml = `${withSidecar('{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }] }')}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp, namespace: default }
spec:
  hosts: [productpage]
  http: [{ delegate: { name: pp-routes } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp-routes, namespace: default }
spec:
  http: [{ route: [{ destination: { host: db.data.svc.cluster.local } }] }]
`;
    assert.deepEqual(scopeOf(yaml).hosts, ['db.data.svc.cluster.local', 'productpage.default.svc.cluster.local']);
    const { proxy, snap } = sidecarAt(sidecarModel(yaml));
    assert.deepEqual(checkConsistency(allSidecarResources(proxy, snap)), []);
  });

  it('given egress ./* should leave the other namespace out of CDS and LDS, stay consistent, and pass the database through', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(withSidecar('{ egress: [{ hosts: ["./*"] }] }')));
    const cfg = allSidecarResources(proxy, snap);
    assert.deepEqual(checkConsistency(cfg), []);
    assert.ok(!cfg.clusters.some((c) => String(c['name']).endsWith('db.data.svc.cluster.local')));
    const walk = simulateRequest(cfg, { protocol: 'tcp', address: '10.96.0.30', port: 5432 });
    assert.deepEqual([walk.listener, walk.clusters?.[0]?.name], ['virtualOutbound', 'PassthroughCluster']);
  });

  it('given a Sidecar with REGISTRY_ONLY should black-hole unknown TCP and name the Sidecar on virtualOutbound', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(withSidecar('{ outboundTrafficPolicy: { mode: REGISTRY_ONLY } }')));
    const cfg = allSidecarResources(proxy, snap);
    const walk = simulateRequest(cfg, { protocol: 'tcp', address: '1.2.3.4', port: 80 });
    assert.deepEqual([walk.clusters?.[0]?.name, walk.sources], ['BlackHoleCluster', ['Sidecar/default/default@0']]);
  });

  it('given a service in scope only as a VirtualService destination should get its cluster but no listener or virtual host (as istiod)', () => {
    const yaml = `${withSidecar('{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }], outboundTrafficPolicy: { mode: REGISTRY_ONLY } }')}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp, namespace: default }
spec:
  hosts: [productpage]
  http: [{ match: [{ uri: { prefix: /r } }], route: [{ destination: { host: reviews } }] }, { route: [{ destination: { host: productpage } }] }]
`;
    const { proxy, snap } = sidecarAt(sidecarModel(yaml));
    const cfg = allSidecarResources(proxy, snap);
    assert.deepEqual(checkConsistency(cfg), []);
    assert.ok(cfg.clusters.some((c) => c['name'] === 'outbound|9080||reviews.default.svc.cluster.local'));
    const viaProductpage = simulateRequest(cfg, { address: '10.96.0.20', port: 9080, host: 'productpage:9080', path: '/r' });
    assert.deepEqual(viaProductpage.clusters?.map((c) => c.name), ['outbound|9080||reviews.default.svc.cluster.local']);
    const direct = simulateRequest(cfg, { address: '10.96.0.10', port: 9080, host: 'reviews:9080', path: '/' });
    assert.deepEqual([direct.outcome, direct.virtualHost], ['direct-response', 'block_all']);
  });
});

describe('sidecar scope ports (istiod trims the services of a Sidecar scope to ports)', () => {
  const MULTI = `
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: multi, namespace: data }
spec:
  hosts: [multi.data.svc.cluster.local]
  addresses: [10.96.7.1]
  location: MESH_INTERNAL
  ports: [{ number: 9080, name: http-a, protocol: HTTP }, { number: 9090, name: http-b, protocol: HTTP }, { number: 7000, name: tcp-c, protocol: TCP }]
  resolution: STATIC
  endpoints: [{ address: 10.1.7.1 }]
`;
  const PRODUCTPAGE_TO_9090 = `
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: to-multi, namespace: default }
spec:
  hosts: [productpage]
  http: [{ route: [{ destination: { host: multi.data.svc.cluster.local, port: { number: 9090 } } }] }]
`;
  /** The outbound clusters of the scope, as names. */
  function outboundClusters(yaml: string): string[] {
    const { proxy, snap } = sidecarAt(sidecarModel(yaml));
    const cfg = allSidecarResources(proxy, snap);
    assert.deepEqual(checkConsistency(cfg), []);
    return cfg.clusters.map((c) => String(c['name'])).filter((n) => n.startsWith('outbound|')).sort();
  }
  const cases: { name: string; sidecar: string; more?: string; want: string[] }[] = [
    {
      name: 'given an egress listener on port 9080 should keep only port 9080 of each service and leave out one without it',
      sidecar: '{ egress: [{ port: { number: 9080, protocol: HTTP, name: http }, hosts: ["data/*"] }] }',
      want: ['outbound|9080||multi.data.svc.cluster.local'],
    },
    {
      name: 'given an HTTP_PROXY egress listener should keep every port (no port match, as istiod)',
      sidecar: '{ egress: [{ port: { number: 9080, protocol: HTTP_PROXY, name: proxy }, hosts: ["data/*"] }] }',
      want: ['outbound|5432||db.data.svc.cluster.local', 'outbound|7000||multi.data.svc.cluster.local', 'outbound|9080||multi.data.svc.cluster.local', 'outbound|9090||multi.data.svc.cluster.local'],
    },
    {
      name: 'given a port listener and a catch-all selecting the same service should add up to every port',
      sidecar: '{ egress: [{ port: { number: 9080, protocol: HTTP, name: http }, hosts: ["data/*"] }, { hosts: ["data/multi.data.svc.cluster.local"] }] }',
      want: ['outbound|7000||multi.data.svc.cluster.local', 'outbound|9080||multi.data.svc.cluster.local', 'outbound|9090||multi.data.svc.cluster.local'],
    },
    {
      name: 'given a VirtualService destination on port 9090 of a service not imported should bring that port alone',
      sidecar: '{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }] }',
      more: PRODUCTPAGE_TO_9090,
      want: ['outbound|9080||productpage.default.svc.cluster.local', 'outbound|9090||multi.data.svc.cluster.local'],
    },
    {
      name: 'given a VirtualService destination without a port should bring every port of it',
      sidecar: '{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }] }',
      more: PRODUCTPAGE_TO_9090.replace(', port: { number: 9090 }', ''),
      want: ['outbound|7000||multi.data.svc.cluster.local', 'outbound|9080||multi.data.svc.cluster.local', 'outbound|9080||productpage.default.svc.cluster.local', 'outbound|9090||multi.data.svc.cluster.local'],
    },
    {
      name: 'given the route to multi only for sources in namespace data should not bring multi to a sidecar of default (as istiod)',
      sidecar: '{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }] }',
      more: PRODUCTPAGE_TO_9090.replace('http: [{ route:', 'http: [{ match: [{ sourceNamespace: data }], route:'),
      want: ['outbound|9080||productpage.default.svc.cluster.local'],
    },
    {
      name: 'given the route to multi for sources in namespace default should bring it',
      sidecar: '{ egress: [{ hosts: ["./productpage.default.svc.cluster.local"] }] }',
      more: PRODUCTPAGE_TO_9090.replace('http: [{ route:', 'http: [{ match: [{ sourceNamespace: data }, { sourceNamespace: default }], route:'),
      want: ['outbound|9080||productpage.default.svc.cluster.local', 'outbound|9090||multi.data.svc.cluster.local'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(outboundClusters(`${withSidecar(c.sidecar)}${MULTI}${c.more ?? ''}`), c.want));

  /** The load assignments the sidecar generator answers, cached or not, when asked for every port of every outbound service. */
  async function answeredEndpoints(yaml: string, enableCache: boolean): Promise<string[]> {
    const { proxy, snap } = sidecarAt(sidecarModel(yaml));
    const every = snap.pushContext.services.flatMap((svc) => svc.ports.map((p) => `outbound|${p.port}||${svc.hostname}`));
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache, enableCdsCache: enableCache, enableRdsCache: enableCache });
    const r = await gen.generate(proxy, { typeUrl: TYPE_URL.endpoint, names: new Set(every), wildcard: false }, proxyRequestPush(snap));
    return r.resources.map((x) => x.name).sort();
  }
  for (const c of cases) {
    for (const enableCache of [false, true]) {
      it(`${c.name}: EDS answers only those clusters' names (as istiod's scoped service), cache ${enableCache ? 'on' : 'off'}`, async () => {
        assert.deepEqual(await answeredEndpoints(`${withSidecar(c.sidecar)}${MULTI}${c.more ?? ''}`, enableCache), c.want);
      });
    }
  }
});
