/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { parseConfigKey, proxyFromNode, proxyRequestPush, pushRequest, type PushRequest } from '../../../core/index.js';
import { decode, encode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest, type SimulatedRequest } from '../../simulator/request-simulator.js';
import { TYPE_URL } from '../../server/contracts.js';
import { GeneratorRegistry } from '../../server/generator-registry.js';
import { checkConsistency } from '../sidecar/consistency-checker.js';
import { buildSidecarResources, SidecarGenerator } from '../sidecar/sidecar-generator.js';
import { ENVOY } from '../sidecar/sidecar-names.js';
import { sidecarModel, sidecarNode } from '../sidecar/testing/sidecar-mesh.js';
import { mergeGateways } from './merged-gateway.js';
import { buildRouterResources, RouterGenerator, type RouterGeneratorOptions } from './router-generator.js';
import { parseSniDnatClusterName } from './sni-dnat.js';
import { allRouterResources, routerAt, routerNode, ROUTER_MESH } from './testing/router-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const PRODUCTPAGE = 'productpage.default.svc.cluster.local';
const GW = '10.0.9.9';

describe('RouterGenerator', () => {
  before(function () {
    this.timeout(60_000);
    protoRoot();
  });

  const model = sidecarModel(ROUTER_MESH);
  const { proxy, snap } = routerAt(model);
  const cfg = allRouterResources(proxy, snap);

  it('given Gateways selecting the pod should merge servers per (target) port as istiod names them', () => {
    assert.deepEqual(cfg.listeners.map((l) => l['name']), ['0.0.0.0_15443', '0.0.0.0_5432', '0.0.0.0_8080', '0.0.0.0_8443']);
    assert.deepEqual(cfg.routes.map((r) => r['name']), ['http.8080', 'https.443.https.public.default']);
    const https = cfg.listeners.find((l) => l['name'] === '0.0.0.0_8443')!;
    const chains = (https['filterChains'] as { name: string; filterChainMatch?: { serverNames?: string[] } }[]).map((c) => [c.name, c.filterChainMatch?.serverNames]);
    assert.deepEqual(chains, [
      ['https.443.https.public.default', ['shop.example.com']],
      ['0.0.0.0_8443-passthrough-default/secure-0', ['secure.example.com']],
    ]);
  });

  const cases: { name: string; req: SimulatedRequest; want: { outcome: string; listener?: string; route?: string; virtualHost?: string; clusters?: string[]; status?: unknown } }[] = [
    {
      name: 'given an HTTP request for a server host should route by the bound VirtualService',
      req: { address: GW, port: 8080, host: 'shop.example.com', path: '/reviews/1' },
      want: { outcome: 'routed', listener: '0.0.0.0_8080', virtualHost: 'shop.example.com:80', route: 'reviews', clusters: [`outbound|9080|v2|${REVIEWS}`] },
    },
    {
      name: 'given the Host header with a port should still match (the port is ignored in host matching)',
      req: { address: GW, port: 8080, host: 'shop.example.com:80', path: '/' },
      want: { outcome: 'routed', route: 'pages', clusters: [`outbound|9080||${PRODUCTPAGE}`] },
    },
    {
      name: 'given a route whose match names another gateway should skip it at this gateway',
      req: { address: GW, port: 8080, host: 'shop.example.com', path: '/internal/x' },
      want: { outcome: 'routed', route: 'pages', clusters: [`outbound|9080||${PRODUCTPAGE}`] },
    },
    {
      name: 'given a host no server admits should find no virtual host',
      req: { address: GW, port: 8080, host: 'reviews.default.svc.cluster.local', path: '/' },
      want: { outcome: 'no-virtual-host', listener: '0.0.0.0_8080' },
    },
    {
      name: 'given an httpsRedirect server with no VirtualService should redirect plaintext to https',
      req: { address: GW, port: 8080, host: 'admin.example.com', path: '/' },
      want: { outcome: 'redirect', virtualHost: 'admin.example.com:80', status: { httpsRedirect: true, responseCode: 'MOVED_PERMANENTLY' } },
    },
    {
      name: 'given HTTPS with the server SNI should terminate and route as HTTP',
      req: { protocol: 'tls', tls: true, sni: 'shop.example.com', address: GW, port: 8443, host: 'shop.example.com', path: '/reviews' },
      want: { outcome: 'routed', listener: '0.0.0.0_8443', route: 'reviews', clusters: [`outbound|9080|v2|${REVIEWS}`] },
    },
    {
      name: 'given TLS with a PASSTHROUGH SNI should forward the bytes by the tls route',
      req: { protocol: 'tls', tls: true, sni: 'secure.example.com', address: GW, port: 8443 },
      want: { outcome: 'routed', clusters: [`outbound|9080||${PRODUCTPAGE}`] },
    },
    {
      name: 'given TLS with an SNI no server serves should find no filter chain',
      req: { protocol: 'tls', tls: true, sni: 'other.example.com', address: GW, port: 8443 },
      want: { outcome: 'no-filter-chain', listener: '0.0.0.0_8443' },
    },
    {
      name: "given AUTO_PASSTHROUGH with an outbound_ SNI and a client sidecar's mesh ALPN should go to that SNI-DNAT cluster and the subset's endpoints",
      req: { protocol: 'tls', tls: true, sni: `outbound_.9080_.v1_.${REVIEWS}`, alpn: ['mesh-peer-exchange', 'mesh'], address: GW, port: 15443 },
      want: { outcome: 'routed', clusters: [`outbound_.9080_.v1_.${REVIEWS}`] },
    },
    {
      name: 'given AUTO_PASSTHROUGH with an outbound_ SNI but no mesh ALPN should find no filter chain (as istiod)',
      req: { protocol: 'tls', tls: true, sni: `outbound_.9080_.v1_.${REVIEWS}`, address: GW, port: 15443 },
      want: { outcome: 'no-filter-chain', listener: '0.0.0.0_15443' },
    },
    {
      name: 'given a TCP server should forward by the tcp route of a VirtualService in another namespace',
      req: { protocol: 'tcp', address: GW, port: 5432 },
      want: { outcome: 'routed', listener: '0.0.0.0_5432', clusters: ['outbound|5432||db.data.svc.cluster.local'] },
    },
    {
      name: 'given a port no server uses should find no listener',
      req: { protocol: 'tcp', address: GW, port: 9999 },
      want: { outcome: 'no-listener' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = simulateRequest(cfg, { direction: 'outbound', ...c.req });
      assert.equal(r.outcome, c.want.outcome, JSON.stringify(r));
      if (c.want.listener) assert.equal(r.listener, c.want.listener);
      if (c.want.route) assert.equal(r.route, c.want.route);
      if (c.want.virtualHost) assert.equal(r.virtualHost, c.want.virtualHost);
      if (c.want.clusters) assert.deepEqual(r.clusters?.map((x) => x.name), c.want.clusters);
      if (c.want.status) assert.deepEqual(r.response, c.want.status);
    });
  }

  it('given AUTO_PASSTHROUGH should serve SNI-DNAT clusters without upstream TLS, over EDS under their own name, with the subset endpoints', () => {
    const name = `outbound_.9080_.v1_.${REVIEWS}`;
    const c = cfg.clusters.find((x) => x['name'] === name) as any;
    assert.ok(c, 'the SNI-DNAT cluster is sent');
    assert.equal(c.type, 'EDS');
    assert.equal(c.edsClusterConfig.serviceName, name);
    assert.equal(c.transportSocket, undefined);
    assert.equal(c.transportSocketMatches, undefined);
    const plain = cfg.clusters.find((x) => x['name'] === `outbound|9080|v1|${REVIEWS}`) as any;
    assert.ok(plain.transportSocket ?? plain.transportSocketMatches, 'the outbound cluster keeps its mTLS');
    const la = cfg.endpoints.find((e) => e['clusterName'] === name) as any;
    const v1 = cfg.endpoints.find((e) => e['clusterName'] === `outbound|9080|v1|${REVIEWS}`) as any;
    assert.deepEqual(la.endpoints, v1.endpoints);
    assert.ok(la.endpoints.length > 0);
    const walk = simulateRequest(cfg, { protocol: 'tls', tls: true, sni: name, alpn: ['mesh-peer-exchange', 'mesh'], address: GW, port: 15443 });
    const v1Addresses = v1.endpoints.flatMap((g: any) => g.lbEndpoints.map((e: any) => `${e.endpoint.address.socketAddress.address}:${e.endpoint.address.socketAddress.portValue}`));
    assert.deepEqual(walk.clusters?.[0]?.endpoints, v1Addresses);
  });

  it('given PILOT_ENABLE_REDIS_FILTER and ENABLE_AUTO_SNI should shape a gateway\'s outbound and SNI-DNAT clusters of a REDIS port as istiod (MAGLEV on both, auto SNI on the outbound one only)', () => {
    const yaml = `${ROUTER_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: cache, namespace: default }
spec:
  hosts: [cache.default.svc.cluster.local]
  addresses: [10.96.0.40]
  location: MESH_INTERNAL
  ports: [{ number: 6379, name: redis, protocol: REDIS }]
  resolution: STATIC
  endpoints: [{ address: 10.0.0.40, labels: { security.mesh.io/tlsMode: mesh } }]
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: cache, namespace: default }
spec: { host: cache.default.svc.cluster.local, trafficPolicy: { tls: { mode: SIMPLE } } }
`;
    const at = routerAt(sidecarModel(yaml));
    const shape = (o: Omit<RouterGeneratorOptions, 'sendUnhealthyEndpoints'>): unknown[] => {
      const got = buildRouterResources(at.proxy, TYPE_URL.cluster, at.snap, undefined, { sendUnhealthyEndpoints: false, ...o });
      return ['outbound|6379||cache.default.svc.cluster.local', 'outbound_.6379_._.cache.default.svc.cluster.local'].map((n) => {
        const c = got.get(n) as any;
        return [c?.lbPolicy, c?.typedExtensionProtocolOptions?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']?.upstreamHttpProtocolOptions];
      });
    };
    const auto = { autoSni: true, autoSanValidation: true };
    assert.deepEqual(shape({ redisFilter: true }), [['MAGLEV', auto], ['MAGLEV', undefined]]);
    assert.deepEqual(shape({ autoSni: false }), [['LEAST_REQUEST', undefined], ['LEAST_REQUEST', undefined]]);
  });

  it('given AUTO_PASSTHROUGH should build SNI-DNAT clusters for every mesh service in scope, as istiod, but chains only for the hosts its servers admit', () => {
    const names = cfg.clusters.map((c) => String(c['name']));
    // NOTE: the server admits */*.default.svc.cluster.local; db lives in namespace data.
    assert.ok(names.includes('outbound_.5432_._.db.data.svc.cluster.local'), 'a service no server admits still gets its cluster');
    assert.ok(!names.some((n) => n.startsWith('outbound_.') && n.endsWith('api.example.com')), 'a mesh-external service gets none');
    const auto = cfg.listeners.find((l) => l['name'] === '0.0.0.0_15443') as any;
    const chains = (auto.filterChains as { name: string }[]).map((c) => c.name);
    assert.ok(chains.includes(`outbound_.9080_.v1_.${REVIEWS}`));
    assert.ok(!chains.includes('outbound_.5432_._.db.data.svc.cluster.local'));
    assert.deepEqual(checkConsistency(cfg), []);
  });

  it('given AUTO_PASSTHROUGH should leave endpoints out of SNI-DNAT load assignments that do not take mesh mTLS (as istiod)', () => {
    // NOTE: db (data namespace) is a workload without `tlsMode: mesh`; admit its namespace too.
    const at = routerAt(sidecarModel(ROUTER_MESH.replace('hosts: ["*/*.default.svc.cluster.local"]', 'hosts: ["*/*.svc.cluster.local"]')));
    const all = allRouterResources(at.proxy, at.snap);
    const count = (name: string): number => ((all.endpoints.find((e) => e['clusterName'] === name) as any)?.endpoints ?? []).reduce((n: number, g: any) => n + g.lbEndpoints.length, 0);
    assert.equal(count('outbound|5432||db.data.svc.cluster.local'), 1);
    assert.equal(count(`outbound_.9080_._.${REVIEWS}`) > 0, true);
    assert.equal(count('outbound_.5432_._.db.data.svc.cluster.local'), 0);
    const empty = (all.endpoints.find((e) => e['clusterName'] === 'outbound_.5432_._.db.data.svc.cluster.local') as any).endpoints[0];
    assert.equal(empty.loadBalancingWeight, undefined);
  });

  const names: [string, ReturnType<typeof parseSniDnatClusterName>][] = [
    [`outbound_.9080_.v1_.${REVIEWS}`, { port: 9080, subset: 'v1', host: REVIEWS }],
    [`outbound_.9080_._.${REVIEWS}`, { port: 9080, subset: '', host: REVIEWS }],
    [`outbound|9080||${REVIEWS}`, undefined],
    ['outbound_.0_._.x.example.com', undefined],
  ];
  for (const [n, want] of names) it(`given the cluster name ${n} should parse it as ${JSON.stringify(want)}`, () => assert.deepEqual(parseSniDnatClusterName(n), want));

  it('given a DestinationRule hashing on the source IP should hash the AUTO_PASSTHROUGH chains of its service and of its subsets but one whose load balancer is simple, as istiod', () => {
    const yaml = `${ROUTER_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: productpage-ip, namespace: default }
spec:
  host: ${PRODUCTPAGE}
  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 }, trafficPolicy: { loadBalancer: { simple: RANDOM } } }]
`;
    const at = routerAt(sidecarModel(yaml));
    const l = allRouterResources(at.proxy, at.snap).listeners.find((x) => x['name'] === '0.0.0.0_15443') as any;
    assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), []);
    const hash = (sni: string): unknown => l.filterChains.find((c: any) => c.name === sni).filters[0].typedConfig.hashPolicy;
    assert.deepEqual(hash(`outbound_.9080_._.${PRODUCTPAGE}`), [{ sourceIp: {} }]);
    assert.deepEqual(hash(`outbound_.9080_.v1_.${PRODUCTPAGE}`), [{ sourceIp: {} }]);
    assert.equal(hash(`outbound_.9080_.v2_.${PRODUCTPAGE}`), undefined);
    assert.equal(hash(`outbound_.9080_._.${REVIEWS}`), undefined);
    const plain = cfg.listeners.find((x) => x['name'] === '0.0.0.0_15443') as any;
    assert.ok(plain.filterChains.every((c: any) => c.filters[0].typedConfig.hashPolicy === undefined), 'no hash without the rule');
  });

  it('given a destination whose DestinationRule sets a consistent hash should carry its hash policy and retry without previous_hosts, as istiod\'s gateway routes', () => {
    const rc = cfg.routes.find((r) => r['name'] === 'http.8080') as any;
    const routes = rc.virtualHosts.flatMap((vh: any) => vh.routes);
    const byName = (n: string): any => routes.find((r: any) => r.name === n);
    // NOTE: ROUTER_MESH routes /reviews to subset v2, whose rule (SIDECAR_MESH) hashes on x-user; productpage has no rule.
    assert.deepEqual(byName('reviews').route.hashPolicy, [{ header: { headerName: 'x-user' } }]);
    assert.equal(byName('reviews').route.retryPolicy.retryHostPredicate, undefined);
    assert.equal(byName('pages').route.hashPolicy, undefined);
    assert.deepEqual(byName('pages').route.retryPolicy.retryHostPredicate.map((p: any) => p.name), ['envoy.retry_host_predicates.previous_hosts']);
  });

  it('given the VirtualService routed for the gateway should name it and the Gateway as the sources', () => {
    const r = simulateRequest(cfg, { address: GW, port: 8080, host: 'shop.example.com', path: '/' });
    assert.deepEqual(r.sources, ['Gateway/default/public@5', 'Gateway/mesh-system/internal@0', 'VirtualService/default/shop@7']);
  });

  it('given the generator output should encode, pass protoc-gen-validate and reference only what was sent', async () => {
    assert.deepEqual(checkConsistency(cfg), []);
    const gen = new RouterGenerator({ sendUnhealthyEndpoints: false });
    const push = proxyRequestPush(model.snapshot);
    const sent: Record<string, Record<string, unknown>[]> = {};
    const kinds = [
      ['listeners', TYPE_URL.listener, ENVOY.listener],
      ['routes', TYPE_URL.route, ENVOY.route],
      ['clusters', TYPE_URL.cluster, ENVOY.cluster],
      ['endpoints', TYPE_URL.endpoint, ENVOY.endpoint],
    ] as const;
    for (const [k, url, typeName] of kinds) {
      const names = k === 'routes' || k === 'endpoints' ? cfg[k].map((r) => String(r['name'] ?? r['clusterName'])) : [];
      const res = await gen.generate(proxy, { typeUrl: url, names: new Set(names), wildcard: names.length === 0 }, snapOf(push));
      assert.equal(res.resources.length, cfg[k].length, k);
      sent[k] = res.resources.map((r) => {
        assert.deepEqual(validate(typeName, r.body), [], `${k} ${r.name} passes protoc-gen-validate`);
        return decode(typeName, r.body);
      });
    }
    assert.deepEqual(checkConsistency({ listeners: sent['listeners']!, routes: sent['routes']!, clusters: sent['clusters']!, endpoints: sent['endpoints']! }), []);
  });

  it('given terminated servers should name their SDS secrets as istiod does', () => {
    const yaml = ROUTER_MESH.replace('tls: { mode: SIMPLE, credentialName: shop-cert }', 'tls: { mode: MUTUAL, credentialName: shop-cert }').replace(
      '  - port: { number: 5432, name: tcp, protocol: TCP }\n    hosts: [data/db.example.com]',
      '  - port: { number: 5432, name: tcp, protocol: TLS }\n    hosts: [data/db.example.com]\n    tls: { mode: MESH_MUTUAL }',
    );
    const m = sidecarModel(yaml);
    const at = routerAt(m);
    const listeners = [...buildRouterResources(at.proxy, TYPE_URL.listener, at.snap, undefined, { sendUnhealthyEndpoints: false }).values()];
    const secrets = (name: string): string[] => [...JSON.stringify(listeners.find((l) => l['name'] === name)).matchAll(/"name":"((?:kubernetes:\/\/|default|ROOTCA)[^"]*)"/g)].map((x) => x[1]!);
    assert.deepEqual(secrets('0.0.0.0_8443'), ['kubernetes://shop-cert', 'kubernetes://shop-cert-cacert']);
    assert.deepEqual(secrets('0.0.0.0_5432'), ['default', 'ROOTCA']);
  });

  it('given a server with tlsCertificates should serve each pair as a file certificate over SDS, as istiod', () => {
    const yaml = ROUTER_MESH.replace('tls: { mode: SIMPLE, credentialName: shop-cert }', 'tls: { mode: SIMPLE, tlsCertificates: [{ serverCertificate: /etc/certs/rsa.pem, privateKey: /etc/certs/rsa.key }, { serverCertificate: /etc/certs/ec.pem, privateKey: /etc/certs/ec.key }] }');
    assert.notEqual(yaml, ROUTER_MESH);
    const at = routerAt(sidecarModel(yaml));
    const cfg = allRouterResources(at.proxy, at.snap);
    const https = JSON.stringify(cfg.listeners.find((l) => l['name'] === '0.0.0.0_8443'));
    assert.deepEqual([...https.matchAll(/"name":"(file-cert:[^"]*)"/g)].map((x) => x[1]), ['file-cert:/etc/certs/rsa.pem~/etc/certs/rsa.key', 'file-cert:/etc/certs/ec.pem~/etc/certs/ec.key']);
    assert.deepEqual(checkConsistency(cfg), []);
  });

  it('given an HTTPS server on a port that serves plain HTTP should leave it out and report the conflict', () => {
    const yaml = ROUTER_MESH.replace('  - port: { number: 15443, name: tls, protocol: TLS }', '  - port: { number: 80, name: https-clash, protocol: HTTPS }\n    hosts: ["*/x.example.com"]\n    tls: { credentialName: x }\n  - port: { number: 15443, name: tls, protocol: TLS }');
    const at = routerAt(sidecarModel(yaml));
    const merged = mergeGateways(at.snap.pushContext, at.proxy, at.snap.endpoints);
    assert.deepEqual(merged.rejected.map((r) => [r.gatewayName, r.index]), [['mesh-system/internal', 1]]);
    assert.match(merged.rejected[0]!.reason, /port 8080 already serves HTTP servers/);
    assert.equal(merged.ports.find((p) => p.port === 8080)?.servers.length, 2);
  });

  it('given no VirtualService for an HTTP server should answer a blackhole virtual host, and an empty configuration for an unknown name', () => {
    const yaml = ROUTER_MESH.replace('gateways: [public]', 'gateways: [mesh]');
    const at = routerAt(sidecarModel(yaml));
    const routes = buildRouterResources(at.proxy, TYPE_URL.route, at.snap, ['https.443.https.public.default', 'http.9999'], { sendUnhealthyEndpoints: false });
    assert.deepEqual(routes.get('https.443.https.public.default')?.['virtualHosts'], [{ name: 'blackhole:443', domains: ['*'], routes: [] }]);
    assert.deepEqual(routes.get('http.9999'), { name: 'http.9999', virtualHosts: [], validateClusters: { value: false } });
  });

  it('given PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION should merge the virtual hosts of one VirtualService\'s hosts (most specific host keeps the name), keep them apart off, and route alike', () => {
    const yaml = ROUTER_MESH.replace('  - port: { number: 80, name: http, protocol: HTTP }\n    hosts: [default/shop.example.com]', '  - port: { number: 80, name: http, protocol: HTTP }\n    hosts: [default/shop.example.com, default/www.example.com, default/other.example.com]')
      .replace('  hosts: [shop.example.com]\n  gateways: [public]', '  hosts: [shop.example.com, www.example.com]\n  gateways: [public]')
      .concat(`---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: other, namespace: default }
spec:
  hosts: [other.example.com]
  gateways: [public]
  http: [{ name: other, route: [{ destination: { host: reviews } }] }]
`);
    const at = routerAt(sidecarModel(yaml));
    const vhosts = (routeCollapse?: boolean): unknown[] => {
      const rc = buildRouterResources(at.proxy, TYPE_URL.route, at.snap, ['http.8080'], { sendUnhealthyEndpoints: false, ...(routeCollapse !== undefined ? { routeCollapse } : {}) }).get('http.8080') as any;
      return rc.virtualHosts.map((v: any) => [v.name, v.domains]);
    };
    assert.deepEqual(vhosts(), [
      ['admin.example.com:80', ['admin.example.com']],
      ['other.example.com:80', ['other.example.com']],
      ['shop.example.com:80', ['shop.example.com', 'www.example.com']],
    ]);
    assert.deepEqual(vhosts(false), [
      ['admin.example.com:80', ['admin.example.com']],
      ['other.example.com:80', ['other.example.com']],
      ['shop.example.com:80', ['shop.example.com']],
      ['www.example.com:80', ['www.example.com']],
    ]);
    for (const routeCollapse of [true, false]) {
      const cfg = allRouterResources(at.proxy, at.snap, { routeCollapse });
      assert.deepEqual(checkConsistency(cfg), []);
      const walk = simulateRequest(cfg, { address: GW, port: 8080, host: 'www.example.com', path: '/reviews/1' });
      assert.deepEqual([walk.outcome, walk.route, walk.clusters?.map((c) => c.name)], ['routed', 'reviews', [`outbound|9080|v2|${REVIEWS}`]], `collapse ${String(routeCollapse)}`);
    }
  });

  it('given a pod no Gateway selects should get no listener', () => {
    const at = routerAt(model, routerNode({ metadata: { LABELS: { app: 'other' } } }));
    assert.equal(buildRouterResources(at.proxy, TYPE_URL.listener, at.snap, undefined, { sendUnhealthyEndpoints: false }).size, 0);
  });

  it('given a headless service (resolution NONE) should build its gateway cluster as EDS with the endpoints over EDS, and keep ORIGINAL_DST on sidecars (as istiod)', () => {
    const headless = `${ROUTER_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: headless, namespace: default }
spec:
  hosts: [headless.default.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 7071, name: tcp, protocol: TCP }]
  resolution: NONE
  workloadSelector: { labels: { app: headless } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: headless-1, namespace: default }
spec: { address: 10.50.0.9, labels: { app: headless } }
`;
    const name = 'outbound|7071||headless.default.svc.cluster.local';
    const m = sidecarModel(headless);
    const at = routerAt(m);
    const gw = allRouterResources(at.proxy, at.snap);
    const cluster = gw.clusters.find((c) => c['name'] === name);
    assert.deepEqual([cluster?.['type'], (cluster?.['edsClusterConfig'] as { serviceName?: string } | undefined)?.serviceName, cluster?.['lbPolicy']], ['EDS', name, 'LEAST_REQUEST']);
    const la = gw.endpoints.find((e) => e['clusterName'] === name) as any;
    assert.deepEqual(la?.endpoints.flatMap((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress)), [{ address: '10.50.0.9', portValue: 7071 }]);
    assert.deepEqual(checkConsistency(gw), []);
    const side = buildSidecarResources(proxyFromNode(sidecarNode()), TYPE_URL.cluster, at.snap, [name], { sendUnhealthyEndpoints: false }).get(name);
    assert.deepEqual([side?.['type'], side?.['lbPolicy']], ['ORIGINAL_DST', 'CLUSTER_PROVIDED']);
  });

  it('given a DestinationRule with a workloadSelector in the gateway namespace should shape the clusters of the router it picks only (as istiod)', () => {
    const m = sidecarModel(`${ROUTER_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-at-ingress, namespace: mesh-system }
spec:
  host: reviews.default.svc.cluster.local
  workloadSelector: { matchLabels: { app: ingress } }
  trafficPolicy: { connectionPool: { tcp: { maxConnections: 5 } } }
  subsets:
  - { name: canary, labels: { version: v3 } }
`);
    const picked = routerAt(m);
    const other = routerAt(m, routerNode({ id: 'router~10.0.9.8~egress-1.mesh-system~mesh-system.svc.cluster.local', ipAddresses: ['10.0.9.8'], podName: 'egress-1', metadata: { LABELS: { app: 'egress' }, NAMESPACE: 'mesh-system' } }));
    const clustersOf = (at: ReturnType<typeof routerAt>): Map<string, any> => new Map([...buildRouterResources(at.proxy, TYPE_URL.cluster, at.snap, undefined, { sendUnhealthyEndpoints: false })].map(([k, v]) => [k, v as any]));
    const a = clustersOf(picked);
    const b = clustersOf(other);
    assert.ok(a.has(`outbound|9080|canary|${REVIEWS}`), [...a.keys()].join(' '));
    assert.equal(a.get(`outbound|9080||${REVIEWS}`).circuitBreakers.thresholds[0].maxConnections.value, 5);
    assert.ok(!b.has(`outbound|9080|canary|${REVIEWS}`));
    assert.notEqual(b.get(`outbound|9080||${REVIEWS}`).circuitBreakers.thresholds[0].maxConnections?.value, 5);
  });

  it('given a registry with both generators should serve routers and sidecars each with their own', async () => {
    const registry = new GeneratorRegistry();
    new SidecarGenerator({ sendUnhealthyEndpoints: false }).register(registry);
    new RouterGenerator({ sendUnhealthyEndpoints: false }).register(registry);
    const state = registry.initProxy(routerNode());
    const res = await registry.generate(state, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, proxyRequestPush(model.snapshot));
    assert.deepEqual(res?.resources.map((r) => r.name), ['0.0.0.0_15443', '0.0.0.0_5432', '0.0.0.0_8080', '0.0.0.0_8443']);
    const sidecar = registry.initProxy(sidecarNode());
    const gatewayEdit = pushRequest('config', { full: true, configs: [parseConfigKey('Gateway/default/public')] });
    for (const t of [TYPE_URL.listener, TYPE_URL.route]) assert.equal(registry.needsPush(state, t, gatewayEdit), true, `router ${t}`);
    assert.equal(registry.needsPush(state, TYPE_URL.endpoint, gatewayEdit), false);
    assert.equal(registry.needsPush(sidecar, TYPE_URL.listener, gatewayEdit), false);
  });
});

function snapOf(push: PushRequest): NonNullable<PushRequest['snapshot']> {
  if (!push.snapshot) throw new Error('no snapshot');
  return push.snapshot;
}
