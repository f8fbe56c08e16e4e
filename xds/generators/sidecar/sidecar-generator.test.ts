import assert from 'node:assert/strict';
import { proxyRequestPush } from '../../../core/index.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { GeneratorRegistry } from '../../server/generator-registry.js';
import { ProxylessGrpcGenerator } from '../grpc-generator.js';
import { grpcNode } from '../testing/model-fixtures.js';
import { checkConsistency } from './consistency-checker.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const TYPES = { listeners: ENVOY.listener, routes: ENVOY.route, clusters: ENVOY.cluster, endpoints: ENVOY.endpoint } as const;

const variants: { name: string; yaml: string; mesh?: object }[] = [
  { name: 'the test mesh (STRICT, MESH_MUTUAL, weighted VirtualService)', yaml: SIDECAR_MESH },
  { name: 'PERMISSIVE mTLS and REGISTRY_ONLY', yaml: SIDECAR_MESH.replace('mode: STRICT', 'mode: PERMISSIVE'), mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } } },
  {
    name: 'SIMPLE and MUTUAL origination, redirects, mirrors and CORS',
    yaml: `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: api, namespace: default }
spec:
  host: api.example.com
  trafficPolicy: { tls: { mode: SIMPLE, caCertificates: /etc/certs/ca.pem, sni: api.example.com }, connectionPool: { http: { h2UpgradePolicy: UPGRADE, maxRequestsPerConnection: 5 } } }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: pp, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy: { tls: { mode: MUTUAL, credentialName: pp-cert }, loadBalancer: { simple: RANDOM } }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp, namespace: default }
spec:
  hosts: [productpage]
  http:
  - match: [{ uri: { exact: /old } }]
    redirect: { uri: /new }
  - corsPolicy: { allowOrigins: [{ prefix: "https://" }], allowCredentials: true }
    mirrors: [{ destination: { host: reviews }, percentage: { value: 5 } }]
    route: [{ destination: { host: productpage }, headers: { response: { remove: [x-internal] } } }]
`,
  },
];

describe('SidecarGenerator', () => {
  before(function () {
    this.timeout(60_000);
    protoRoot();
  });

  for (const v of variants) {
    it(`given ${v.name} should send resources that encode, pass protoc-gen-validate and reference only what was sent`, async () => {
      const model = sidecarModel(v.yaml, v.mesh);
      const { proxy, snap } = sidecarAt(model);
      const plain = allSidecarResources(proxy, snap);
      assert.deepEqual(checkConsistency(plain), []);
      const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false });
      const push = proxyRequestPush(model.snapshot);
      const urls = { listeners: TYPE_URL.listener, routes: TYPE_URL.route, clusters: TYPE_URL.cluster, endpoints: TYPE_URL.endpoint } as const;
      const decoded: Record<string, Record<string, unknown>[]> = {};
      for (const [k, typeName] of Object.entries(TYPES) as [keyof typeof TYPES, string][]) {
        const names = k === 'routes' || k === 'endpoints' ? plain[k].map((r) => String(r['name'] ?? r['clusterName'])) : [];
        const res = await gen.generate(proxy, { typeUrl: urls[k], names: new Set(names), wildcard: names.length === 0 }, push);
        assert.equal(res.resources.length, plain[k].length, `${k}: one resource per built object`);
        decoded[k] = res.resources.map((r) => {
          assert.deepEqual(validate(typeName, r.body), [], `${k} ${r.name} passes protoc-gen-validate`);
          return decode(typeName, r.body);
        });
      }
      // NOTE: the decoded form (what Envoy gets) must be consistent too, not only the built objects.
      const sent = { listeners: decoded['listeners']!, routes: decoded['routes']!, clusters: decoded['clusters']!, endpoints: decoded['endpoints']! };
      assert.deepEqual(checkConsistency(sent), []);
      assert.notDeepEqual(checkConsistency({ ...sent, routes: [], endpoints: [] }), [], 'the check sees the references in the decoded form');
    });
  }

  it('given a registry with both generators should serve sidecars with SidecarGenerator, proxyless clients with gRPC, and still refuse routers', () => {
    const registry = new GeneratorRegistry();
    new ProxylessGrpcGenerator({ enableCache: false, enableCdsCache: false, enableRdsCache: false, sendUnhealthyEndpoints: false }).register(registry);
    const sidecar = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    sidecar.register(registry);
    const sidecarTypes = new Set(sidecar.typeGenerators().map((g) => g.typeUrl));
    assert.deepEqual([...sidecarTypes].sort(), [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route].sort());
    const node = sidecarNode();
    assert.doesNotThrow(() => registry.initProxy(node));
    assert.ok(registry.lookup(node, TYPE_URL.cluster));
    assert.notEqual(registry.lookup(node, TYPE_URL.cluster), registry.lookup(grpcNode('default'), TYPE_URL.cluster), 'proxyless clients keep their own generator');
    assert.throws(() => registry.initProxy(sidecarNode({ type: 'router' })), /^NotImplementedError: not implemented yet: xDS generation for dataplane router proxies/);
  });

  it('given an endpoint-only push should push sidecar EDS only', () => {
    const registry = new GeneratorRegistry();
    new SidecarGenerator({ sendUnhealthyEndpoints: false }).register(registry);
    const state = registry.initProxy(sidecarNode());
    const push = { full: false, reasons: new Map([['endpoint', 1]]), configsUpdated: new Set(['ServiceEntry/default/reviews.default.svc.cluster.local']), start: 0 } as const;
    assert.deepEqual(
      [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route].map((t) => registry.needsPush(state, t, push as never)),
      [false, true, false, false],
    );
  });
});
