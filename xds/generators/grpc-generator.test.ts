/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk decoded Envoy JSON */
import assert from 'node:assert/strict';
import { ConfigKeySet, parseConfigKey, proxyFromNode, proxyRequestPush, type MeshModel, type Proxy, type PushRequest } from '../../core/index.js';
import { decode } from '../protos/codec.js';
import { protoRoot } from '../protos/root.js';
import { validate } from '../protos/validate.js';
import { TYPE_URL, type WatchedResource } from '../server/contracts.js';
import { ProxylessGrpcGenerator } from './grpc-generator.js';
import { configEvent, configsFromYaml, grpcNode, testModel } from './testing/model-fixtures.js';

const YAML = `
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  workloadSelector: { labels: { app: echo } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: v1, namespace: qs }
spec: { address: 127.0.0.11, labels: { app: echo, version: v1 }, locality: r1/z1, serviceAccount: echo }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: v2, namespace: qs }
spec: { address: 127.0.0.12, labels: { app: echo, version: v2, mesh.io/draining: "true" }, locality: r1/z2, weight: 3 }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: echo.qs.svc.cluster.local
  trafficPolicy:
    connectionPool: { http: { http2MaxRequests: 7 } }
    tls: { mode: MESH_MUTUAL }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - name: v2
    labels: { version: v2 }
    trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  http:
  - match: [{ headers: { x-canary: { exact: "yes" } } }]
    route: [{ destination: { host: echo.qs.svc.cluster.local, subset: v2 } }]
    fault: { abort: { grpcStatus: UNAVAILABLE, percentage: { value: 50 } } }
  - match: [{ uri: { prefix: /echo.Echo/ } }]
    timeout: 2s
    retries: { attempts: 3, retryOn: "unavailable,5xx" }
    route:
    - { destination: { host: echo.qs.svc.cluster.local, subset: v1 }, weight: 80 }
    - { destination: { host: echo.qs.svc.cluster.local, subset: v2 }, weight: 20 }
---
apiVersion: security.mesh.io/v1
kind: AuthorizationPolicy
metadata: { name: deny-bad, namespace: qs }
spec:
  action: DENY
  rules: [{ to: [{ operation: { paths: ["/echo.Echo/Forbidden"] } }] }]
`;

function watch(typeUrl: string, ...names: string[]): WatchedResource {
  return { typeUrl, names: new Set(names), wildcard: names.length === 0 };
}

/** The push the generator reads in a test: a proxy's request reading the model's newest snapshot (set by setup). */
let push: PushRequest;

function setup(optimizedConfigRebuild = true): { gen: ProxylessGrpcGenerator; state: Proxy; model: MeshModel } {
  const model = testModel();
  model.apply(configsFromYaml(YAML).map((c) => configEvent(c)));
  model.rebuild();
  push = proxyRequestPush(model.snapshot);
  const gen = new ProxylessGrpcGenerator({ enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, optimizedConfigRebuild });
  const state = proxyFromNode(grpcNode('qs', { locality: { region: 'r1', zone: 'z1' } }));
  return { gen, state, model };
}

/** A config push for `configs`, reading a snapshot the model publishes now (after the change). */
function configPush(model: MeshModel, configs: string[]): PushRequest {
  model.rebuild();
  return { full: true, reasons: new Map([['config', 1]]), configsUpdated: new ConfigKeySet(configs.map(parseConfigKey)), start: 0, snapshot: model.snapshot };
}

async function one(gen: ProxylessGrpcGenerator, state: Proxy, typeUrl: string, name: string): Promise<Record<string, unknown>> {
  const res = await gen.generate(state, watch(typeUrl, name), push);
  assert.ok(res, 'a result');
  assert.equal(res.resources.length, 1, `one ${typeUrl} named ${name}`);
  return decode(typeUrl, res.resources[0]!.body);
}

describe('ProxylessGrpcGenerator', () => {
  before(function () {
    this.timeout(60_000);
    protoRoot(); // loading the Envoy protos takes a few seconds on a busy machine
  });

  it('given a client listener name with a short host should serve an API listener pointing at RDS', async () => {
    const { gen, state } = setup();
    const l = await one(gen, state, TYPE_URL.listener, 'echo.qs:50051');
    const hcm = (l['apiListener'] as { apiListener: Record<string, unknown> }).apiListener;
    assert.equal(hcm['@type'], 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager');
    assert.equal((hcm['rds'] as { routeConfigName: string }).routeConfigName, 'outbound|50051||echo.qs.svc.cluster.local');
    const filters = (hcm['httpFilters'] as { name: string }[]).map((f) => f.name);
    assert.deepEqual(filters, ['envoy.filters.http.fault', 'envoy.filters.http.router']);
  });

  it('given an unknown listener name should serve nothing for it', async () => {
    const { gen, state } = setup();
    assert.equal((await gen.generate(state, watch(TYPE_URL.listener, 'nope.qs:1'), push))!.resources.length, 0);
  });

  it('given the VirtualService should serve header, prefix, weighted, retry, timeout and fault routes', async () => {
    const { gen, state } = setup();
    const rc = await one(gen, state, TYPE_URL.route, 'outbound|50051||echo.qs.svc.cluster.local');
    const routes = (rc['virtualHosts'] as { routes: Record<string, unknown>[] }[])[0]!.routes;
    assert.equal(routes.length, 2);
    const [canary, main] = routes as [Record<string, any>, Record<string, any>];
    assert.deepEqual(canary['match']['headers'][0], { name: 'x-canary', stringMatch: { exact: 'yes' } });
    assert.equal(canary['route']['cluster'], 'outbound|50051|v2|echo.qs.svc.cluster.local');
    assert.deepEqual(canary['route']['hashPolicy'], [{ header: { headerName: 'x-user' } }]);
    assert.equal(canary['typedPerFilterConfig']['envoy.filters.http.fault']['abort']['grpcStatus'], 14);
    assert.deepEqual(canary['typedPerFilterConfig']['envoy.filters.http.fault']['abort']['percentage'], { numerator: 500000, denominator: 'MILLION' });
    assert.equal(main['match']['prefix'], '/echo.Echo/');
    assert.deepEqual(main['route']['weightedClusters']['clusters'], [
      { name: 'outbound|50051|v1|echo.qs.svc.cluster.local', weight: { value: 80 } },
      { name: 'outbound|50051|v2|echo.qs.svc.cluster.local', weight: { value: 20 } },
    ]);
    assert.deepEqual(main['route']['retryPolicy']['numRetries'], { value: 3 });
    assert.equal(main['route']['retryPolicy']['retryOn'], 'unavailable');
    assert.deepEqual(main['route']['maxStreamDuration']['maxStreamDuration'], { seconds: 2 });
  });

  it('given subsets should serve a cluster per subset with the merged policy and MESH_MUTUAL TLS', async () => {
    const { gen, state } = setup();
    const v2 = await one(gen, state, TYPE_URL.cluster, 'outbound|50051|v2|echo.qs.svc.cluster.local');
    assert.equal(v2['type'], 'EDS');
    assert.equal(v2['lbPolicy'], 'RING_HASH');
    // NOTE: XX_HASH is the enum's zero value, so it is not on the wire; gRPC reads the default as XX_HASH.
    assert.equal((v2['ringHashLbConfig'] as { hashFunction?: string }).hashFunction ?? 'XX_HASH', 'XX_HASH');
    assert.deepEqual((v2['circuitBreakers'] as { thresholds: unknown[] }).thresholds, [{ maxRequests: { value: 7 } }]);
    const tls = (v2['transportSocket'] as { typedConfig: Record<string, any> }).typedConfig;
    assert.equal(tls['commonTlsContext']['tlsCertificateProviderInstance']['instanceName'], 'default');
    assert.deepEqual(tls['commonTlsContext']['validationContext']['matchSubjectAltNames'], [{ exact: 'spiffe://cluster.local/ns/qs/sa/echo' }]);
    const v1 = await one(gen, state, TYPE_URL.cluster, 'outbound|50051|v1|echo.qs.svc.cluster.local');
    assert.equal(v1['lbPolicy'] ?? 'ROUND_ROBIN', 'ROUND_ROBIN', 'ROUND_ROBIN is the zero value');
    assert.equal((await gen.generate(state, watch(TYPE_URL.cluster, 'outbound|50051|v9|echo.qs.svc.cluster.local'), push))!.resources.length, 0);
  });

  it('given a wildcard CDS request should serve the plain and every subset cluster', async () => {
    const { gen, state } = setup();
    const names = (await gen.generate(state, watch(TYPE_URL.cluster), push))!.resources.map((r) => r.name);
    assert.deepEqual(names, [
      'outbound|50051||echo.qs.svc.cluster.local',
      'outbound|50051|v1|echo.qs.svc.cluster.local',
      'outbound|50051|v2|echo.qs.svc.cluster.local',
    ]);
  });

  it('given endpoints in two localities should weight each locality and mark draining endpoints', async () => {
    const { gen, state } = setup();
    const cla = await one(gen, state, TYPE_URL.endpoint, 'outbound|50051||echo.qs.svc.cluster.local');
    const eps = cla['endpoints'] as Record<string, any>[];
    assert.equal(eps.length, 2);
    for (const e of eps) assert.ok(e['loadBalancingWeight']['value'] > 0, 'every locality has a weight');
    const byZone = new Map(eps.map((e) => [e['locality']['zone'], e]));
    assert.equal(byZone.get('z2')!['loadBalancingWeight']['value'], 3);
    assert.equal(byZone.get('z2')!['lbEndpoints'][0]['healthStatus'], 'DRAINING');
    assert.equal(byZone.get('z1')!['lbEndpoints'][0]['endpoint']['address']['socketAddress']['address'], '127.0.0.11');
    const v1 = await one(gen, state, TYPE_URL.endpoint, 'outbound|50051|v1|echo.qs.svc.cluster.local');
    assert.equal((v1['endpoints'] as unknown[]).length, 1);
  });

  it('given a DENY policy should serve a server listener with a DENY RBAC filter before the router', async () => {
    const { gen, state } = setup();
    const l = await one(gen, state, TYPE_URL.listener, 'xds.mesh.io/grpc/lds/inbound/127.0.0.11:50051');
    assert.deepEqual(l['address'], { socketAddress: { address: '127.0.0.11', portValue: 50051 } });
    const chain = (l['filterChains'] as Record<string, any>[])[0]!;
    assert.equal(chain['transportSocket'], undefined, 'PERMISSIVE by default: plaintext');
    const hcm = chain['filters'][0]['typedConfig'];
    assert.deepEqual(hcm['httpFilters'].map((f: { name: string }) => f.name), ['envoy.filters.http.rbac.deny', 'envoy.filters.http.router']);
    const rules = hcm['httpFilters'][0]['typedConfig']['rules'];
    assert.equal(rules['action'], 'DENY');
    const policy = Object.values(rules['policies'] as Record<string, any>)[0];
    assert.deepEqual(policy['permissions'][0], { urlPath: { path: { exact: '/echo.Echo/Forbidden' } } });
  });

  it('given a second identical request should serve the cached bytes, and a DestinationRule change should clear them', async () => {
    const { gen, state, model } = setup();
    const name = 'outbound|50051|v1|echo.qs.svc.cluster.local';
    const a = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
    const b = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
    assert.equal(a, b, 'the same bytes object (cache hit)');
    push = configPush(model, ['DestinationRule/qs/echo']);
    gen.invalidate(push);
    const c = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
    assert.notEqual(a, c, 'rebuilt after the clear');
    assert.deepEqual(c, a, 'same content: the rule did not really change');
  });

  for (const optimized of [true, false]) {
    it(`given ENABLE_OPTIMIZED_CONFIG_REBUILD=${optimized} and a full push for an unrelated config should ${optimized ? 'keep' : 'drop'} the cached cluster`, async () => {
      const { gen, state, model } = setup(optimized);
      const name = 'outbound|50051|v1|echo.qs.svc.cluster.local';
      const a = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
      push = configPush(model, ['AuthorizationPolicy/other/deny']);
      gen.invalidate(push);
      const b = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
      assert.equal(a === b, optimized);
    });
  }

  it('given every resource the config yields should pass the proto shape and validate rules, and every reference should resolve', async () => {
    const { gen, state } = setup();
    const types = [
      [TYPE_URL.listener, 'envoy.config.listener.v3.Listener', ['echo.qs.svc.cluster.local:50051', 'xds.mesh.io/grpc/lds/inbound/127.0.0.11:50051']],
      [TYPE_URL.route, 'envoy.config.route.v3.RouteConfiguration', ['outbound|50051||echo.qs.svc.cluster.local']],
    ] as const;
    const clusters = (await gen.generate(state, watch(TYPE_URL.cluster), push))!.resources.map((r) => r.name);
    const all: [string, string, string][] = [];
    for (const [url, type, names] of types) for (const n of names) all.push([url, type, n]);
    for (const n of clusters) {
      all.push([TYPE_URL.cluster, 'envoy.config.cluster.v3.Cluster', n]);
      all.push([TYPE_URL.endpoint, 'envoy.config.endpoint.v3.ClusterLoadAssignment', n]);
    }
    for (const [url, type, name] of all) {
      const obj = gen.buildObject(state, url, name, push.snapshot!);
      assert.ok(obj, `${name} builds`);
      assert.deepEqual(validate(type, obj), [], `${type} ${name} is valid`);
    }
    // references: the listener's RDS name is served; every routed cluster is served by CDS and EDS
    const listener = (await one(gen, state, TYPE_URL.listener, 'echo.qs.svc.cluster.local:50051')) as any;
    const rdsName = listener.apiListener.apiListener.rds.routeConfigName;
    const rc = (await one(gen, state, TYPE_URL.route, rdsName)) as any;
    const routed = new Set<string>();
    for (const r of rc.virtualHosts[0].routes) {
      if (r.route.cluster) routed.add(r.route.cluster);
      for (const w of r.route.weightedClusters?.clusters ?? []) routed.add(w.name);
    }
    for (const c of routed) assert.ok(clusters.includes(c), `routed cluster ${c} is served`);
  });

  it('given proxies in two namespaces that see the same DestinationRule should share the encoded cluster bytes', async () => {
    const { gen, state } = setup();
    const other = proxyFromNode(grpcNode('elsewhere'));
    const name = 'outbound|50051|v1|echo.qs.svc.cluster.local';
    const a = (await gen.generate(state, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
    const b = (await gen.generate(other, watch(TYPE_URL.cluster, name), push))!.resources[0]!.body;
    assert.equal(a, b, 'one encoding shared by both');
  });

  it('given a VirtualService matching on source labels should not share cached routes between proxies with other labels', async () => {
    const model = testModel();
    model.apply(
      configsFromYaml(`${YAML}---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  http:
  - { name: canary, match: [{ sourceLabels: { track: canary } }], route: [{ destination: { host: echo.qs.svc.cluster.local, subset: v2 } }] }
  - { name: rest, route: [{ destination: { host: echo.qs.svc.cluster.local, subset: v1 } }] }
`).map((c) => configEvent(c, 'updated')),
    );
    model.rebuild();
    push = proxyRequestPush(model.snapshot);
    const gen = new ProxylessGrpcGenerator({ enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false });
    const canary = proxyFromNode(grpcNode('qs', { metadata: { GENERATOR: 'grpc', LABELS: { track: 'canary' } } }));
    const stable = proxyFromNode(grpcNode('qs', { metadata: { GENERATOR: 'grpc', LABELS: { track: 'stable' } } }));
    const name = 'outbound|50051||echo.qs.svc.cluster.local';
    const first = (await one(gen, canary, TYPE_URL.route, name)) as any;
    const second = (await one(gen, stable, TYPE_URL.route, name)) as any;
    assert.deepEqual(first.virtualHosts[0].routes.map((r: any) => r.name), ['canary', 'rest']);
    assert.deepEqual(second.virtualHosts[0].routes.map((r: any) => r.name), ['rest']);
  });

  it('given a DestinationRule with a workloadSelector should give the picked proxyless client its policy and hash, and keep sharing the rest', async () => {
    const model = testModel();
    model.apply(
      configsFromYaml(`${YAML}---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo-for-canary, namespace: qs }
spec:
  host: echo.qs.svc.cluster.local
  workloadSelector: { matchLabels: { track: canary } }
  trafficPolicy:
    connectionPool: { http: { http2MaxRequests: 3 } }
    loadBalancer: { consistentHash: { httpHeaderName: x-session } }
  subsets:
  - { name: v1, labels: { version: v1 } }
`).map((c) => configEvent(c, 'updated')),
    );
    model.rebuild();
    push = proxyRequestPush(model.snapshot);
    const gen = new ProxylessGrpcGenerator({ enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false });
    const node = (track: string): Proxy => proxyFromNode(grpcNode('qs', { metadata: { GENERATOR: 'grpc', LABELS: { track } } }));
    const [canary, stable, stable2] = [node('canary'), node('stable'), node('stable')];
    const cluster = 'outbound|50051|v1|echo.qs.svc.cluster.local';
    const route = 'outbound|50051||echo.qs.svc.cluster.local';
    // NOTE: the picked client first, so that a key shared with the others would serve them its bytes.
    const picked = (await one(gen, canary, TYPE_URL.cluster, cluster)) as any;
    const pickedRoute = (await one(gen, canary, TYPE_URL.route, route)) as any;
    const plain = (await one(gen, stable, TYPE_URL.cluster, cluster)) as any;
    const plainRoute = (await one(gen, stable, TYPE_URL.route, route)) as any;
    assert.equal(picked.circuitBreakers.thresholds[0].maxRequests.value, 3);
    assert.equal(plain.circuitBreakers.thresholds[0].maxRequests.value, 7);
    const hashOf = (rc: any): unknown[] => rc.virtualHosts[0].routes.map((r: any) => r.route.hashPolicy?.[0]?.header?.headerName);
    assert.ok(hashOf(pickedRoute).includes('x-session'), JSON.stringify(hashOf(pickedRoute)));
    assert.ok(!hashOf(plainRoute).includes('x-session'), JSON.stringify(hashOf(plainRoute)));
    const a = (await gen.generate(stable, watch(TYPE_URL.cluster, cluster), push))!.resources[0]!.body;
    const b = (await gen.generate(stable2, watch(TYPE_URL.cluster, cluster), push))!.resources[0]!.body;
    assert.equal(a, b, 'unpicked clients share one encoding');
  });

});
