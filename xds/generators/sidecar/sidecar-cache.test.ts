import assert from 'node:assert/strict';
import { createMetrics, proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { configsFromYaml, configEvent } from '../testing/model-fixtures.js';
import { conflictRecorderFrom } from './conflict-recorder.js';
import { SidecarGenerator, type SidecarGeneratorOptions } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { edsNamesOf, rdsNamesOf, sidecarModel, sidecarNode, SIDECAR_MESH, LEGACY_SNIFFED_SERVICE } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';

/** A cache counting hits and misses. */
function countingCache(): { cache: XdsCache; reads: { hit: number; miss: number } } {
  const reads = { hit: 0, miss: 0 };
  return { cache: new XdsCache({ maxSize: 100_000, metrics: { read: (t) => void reads[t]++ } }), reads };
}

function cachedGenerator(cache: XdsCache, over: Partial<SidecarGeneratorOptions> = {}): SidecarGenerator {
  return new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache, ...over });
}

type Bytes = Map<string, Uint8Array>;

async function cds(gen: SidecarGenerator, p: Proxy, push: PushRequest): Promise<Bytes> {
  const r = await gen.generate(p, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, push);
  return new Map(r.resources.map((x) => [x.name, x.body]));
}

/** Every resource of every type a proxy gets, following references as Envoy does, as bytes per `type name`. */
async function everything(gen: SidecarGenerator, p: Proxy, push: PushRequest): Promise<Bytes> {
  const out: Bytes = new Map();
  const get = async (typeUrl: string, names: readonly string[], wildcard: boolean): Promise<Record<string, unknown>[]> => {
    const r = await gen.generate(p, { typeUrl, names: new Set(names), wildcard }, push);
    for (const x of r.resources) out.set(`${typeUrl} ${x.name}`, x.body);
    const typeName = { [TYPE_URL.listener]: ENVOY.listener, [TYPE_URL.cluster]: ENVOY.cluster }[typeUrl];
    return typeName ? r.resources.map((x) => decode(typeName, x.body)) : [];
  };
  const listeners = await get(TYPE_URL.listener, [], true);
  const clusters = await get(TYPE_URL.cluster, [], true);
  await get(TYPE_URL.route, rdsNamesOf(listeners), false);
  await get(TYPE_URL.endpoint, edsNamesOf(clusters), false);
  return out;
}

function proxyOf(ns: string, ip: string, labels: Record<string, string>, locality?: string): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~p-${ip}.${ns}~${ns}.svc.cluster.local`, ipAddresses: [ip], podName: `p-${ip}`, namespace: ns, metadata: { LABELS: labels, NAMESPACE: ns }, ...(locality ? { locality: toLocality(locality) } : {}) }));
}

function toLocality(s: string): { region: string; zone: string; subZone: string } {
  const [region = '', zone = '', subZone = ''] = s.split('/');
  return { region, zone, subZone };
}

/** Applies YAML documents (or deletes them) to the model, rebuilds, and returns the push with its snapshot. */
function change(model: MeshModel, yaml: string, type: 'added' | 'updated' | 'deleted' = 'updated'): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, type)));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

const REVIEWS_DR_EDIT = `
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default, generation: 3 }
spec:
  host: reviews.default.svc.cluster.local
  trafficPolicy:
    connectionPool: { tcp: { maxConnections: 7 } }
    tls: { mode: MESH_MUTUAL }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v2, labels: { version: v2 } }
`;

/** A DestinationRule giving productpage (routed by VirtualService pp, and by default routes) a consistent hash. */
const PRODUCTPAGE_HASH_DR = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: productpage, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }
`;

/** A DestinationRule hashing db's TCP connections on the source IP. */
const DB_SOURCE_IP_DR = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: db-hash, namespace: data }
spec:
  host: db.data.svc.cluster.local
  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }
`;

/** A VirtualService sending db's TCP connections to subset primary. */
const DB_PRIMARY_VS = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db-primary, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  tcp: [{ route: [{ destination: { host: db.data.svc.cluster.local, subset: primary } }] }]
`;

/** A mesh with namespace-local DestinationRules, a Sidecar with egress scope, source-label routes and locality failover. */
const VARIED = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-local, namespace: data }
spec:
  host: reviews.default.svc.cluster.local
  trafficPolicy: { loadBalancer: { simple: RANDOM }, tls: { mode: DISABLE } }
  subsets:
  - { name: v3, labels: { version: v3 } }
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: default, namespace: scoped }
spec:
  egress: [{ hosts: ["./*", "default/reviews.default.svc.cluster.local"] }]
  outboundTrafficPolicy: { mode: REGISTRY_ONLY }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: pp, namespace: default }
spec:
  hosts: [productpage]
  http:
  - match: [{ sourceLabels: { app: reviews } }]
    route: [{ destination: { host: reviews, subset: v1 } }]
  - match: [{ sourceNamespace: data }]
    fault: { abort: { httpStatus: 418, percentage: { value: 100 } } }
    route: [{ destination: { host: productpage } }]
  - route: [{ destination: { host: productpage } }]
---
${LEGACY_SNIFFED_SERVICE}
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: legacy, namespace: default }
spec:
  hosts: [legacy]
  http: [{ match: [{ sourceNamespace: data }], route: [{ destination: { host: reviews } }] }, { route: [{ destination: { host: legacy } }] }]
`;

/** A Sidecar whose only egress listener has a port: its scope keeps port 9080 of each service (sidecar-scope.ts scopePorts). */
const OTHER_PORT_SIDECAR = `apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: trim, namespace: other }
spec:
  egress:
  - port: { number: 9080, protocol: HTTP, name: http }
    hosts: ["*/*"]
`;

describe('SidecarGenerator with the XdsCache', function () {
  this.timeout(120_000);
  before(() => protoRoot());

  it('given two sidecars in the same namespace should build each outbound cluster once, serve the second from the scope memo, and a sidecar of the next snapshot from the cache', async () => {
    const model = sidecarModel();
    const push = proxyRequestPush(model.snapshot);
    const { cache, reads } = countingCache();
    const gen = cachedGenerator(cache);
    const a = await cds(gen, proxyOf('default', '10.0.0.1', { app: 'productpage' }), push);
    const outbound = [...a.keys()].filter((n) => n.startsWith('outbound|'));
    assert.ok(outbound.length >= 5, `outbound clusters: ${outbound.join(', ')}`);
    // NOTE: and its inbound cluster (inbound|9080||), cached too (sidecar-inbound-cache.test.ts).
    assert.deepEqual(reads, { hit: 0, miss: outbound.length + 1 });
    const b = await cds(gen, proxyOf('default', '10.0.0.9', { app: 'other' }), push);
    // NOTE: the same Sidecar scope and snapshot: the outbound list and its bytes come from the scope memo.
    assert.deepEqual(reads, { hit: 0, miss: outbound.length + 1 });
    for (const n of outbound) assert.equal(b.get(n), a.get(n), `${n}: the same bytes object`);
    const next = change(model, SIDECAR_MESH.split('---').find((d) => d.includes('name: db, namespace: data') && d.includes('WorkloadEntry'))!.replace('127.0.0.31', '127.0.0.39'));
    gen.invalidate(next);
    const c = await cds(gen, proxyOf('default', '10.0.0.8', { app: 'third' }), next);
    const dbClusters = outbound.filter((n) => n.endsWith('|db.data.svc.cluster.local'));
    assert.deepEqual(reads, { hit: outbound.length - dbClusters.length, miss: outbound.length + 1 + dbClusters.length }, 'a new snapshot reads the cache; the changed service is rebuilt');
    for (const n of outbound) if (!dbClusters.includes(n)) assert.equal(c.get(n), a.get(n), `${n}: the same bytes object from the cache`);
  });

  it('given the cache flags off should read and write nothing (PILOT_ENABLE_XDS_CACHE, PILOT_ENABLE_CDS_CACHE, PILOT_ENABLE_RDS_CACHE)', async () => {
    const model = sidecarModel();
    const push = proxyRequestPush(model.snapshot);
    const p = proxyOf('default', '10.0.0.1', { app: 'productpage' });
    const cases: { over: Partial<SidecarGeneratorOptions>; prefixes: string[] }[] = [
      { over: { enableCache: false }, prefixes: [] },
      { over: { enableCdsCache: false }, prefixes: ['seds|', 'slds-', 'slds|', 'srds|', 'svh|9'] },
      { over: { enableRdsCache: false }, prefixes: ['scds-', 'scds|', 'seds|', 'slds-', 'slds|'] },
    ];
    for (const c of cases) {
      const { cache } = countingCache();
      await everything(cachedGenerator(cache, c.over), p, push);
      const seen = [...new Set(cache.keys().map((k) => `${k.slice(0, 5)}`))].sort();
      assert.deepEqual(seen, c.prefixes, JSON.stringify(c.over));
    }
  });

  it('given two sidecars in one namespace should build the outbound listeners once and serve the second from the cache, and build again after a VirtualService edit', async () => {
    const model = sidecarModel();
    const { cache, reads } = countingCache();
    const gen = cachedGenerator(cache);
    const lds = async (p: Proxy, push: PushRequest): Promise<Bytes> => {
      const r = await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, push);
      return new Map(r.resources.map((x) => [x.name, x.body]));
    };
    const push = proxyRequestPush(model.snapshot);
    const a = await lds(proxyOf('default', '10.0.0.1', { app: 'productpage' }), push);
    const missed = reads.miss;
    const b = await lds(proxyOf('default', '10.0.0.9', { app: 'other' }), push);
    // NOTE: the second sidecar is another workload (no service of its own): its virtualInbound is another entry.
    assert.equal(reads.miss, missed + 1, 'one miss for the second sidecar: its virtualInbound');
    assert.equal(b.get('0.0.0.0_9080'), a.get('0.0.0.0_9080'), 'the same bytes object from the cache');
    assert.notEqual(b.get('virtualInbound'), a.get('virtualInbound'), 'virtualInbound differs per workload');
    const edit = change(
      model,
      `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  tcp: [{ route: [{ destination: { host: reviews.default.svc.cluster.local, port: { number: 9080 } } }] }]
`,
      'added',
    );
    gen.invalidate(edit);
    const c = await lds(proxyOf('default', '10.0.0.1', { app: 'productpage' }), edit);
    assert.notEqual(Buffer.from(c.get('10.96.0.30_5432')!).toString('base64'), Buffer.from(a.get('10.96.0.30_5432')!).toString('base64'), 'the tcp route edit shows');
  });

  it('given a listener conflict served from the cache should still count it for a newer snapshot (pilot_conflict_outbound_listener_tcp_over_current_tcp)', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const gauge = async (): Promise<string | undefined> => /^pilot_conflict_outbound_listener_tcp_over_current_tcp (\d+)$/m.exec(await metrics.text())?.[1];
    const clash = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db2, namespace: data }
spec:
  hosts: [db2.data.svc.cluster.local]
  addresses: [10.96.0.30]
  location: MESH_INTERNAL
  ports: [{ number: 5432, name: tcp, protocol: TCP }]
  resolution: STATIC
`;
    const model = sidecarModel(clash);
    const gen = cachedGenerator(countingCache().cache, { conflicts });
    const p = proxyOf('default', '10.0.0.1', { app: 'productpage' });
    const push = proxyRequestPush(model.snapshot);
    await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, push);
    assert.equal(await gauge(), '1');
    // NOTE: a newer snapshot that touches nothing the listeners read: the entry stays and is served; the conflict still counts.
    const newer = { ...push, snapshot: { ...push.snapshot!, token: push.snapshot!.token + 1 } } as PushRequest;
    conflicts.observe(newer.snapshot!.token);
    assert.equal(await gauge(), '0', 'a newer snapshot starts from zero');
    await gen.generate(p, { typeUrl: TYPE_URL.listener, names: new Set(), wildcard: true }, newer);
    assert.equal(await gauge(), '1');
  });

  it('given a VirtualService edit should rebuild that service\'s virtual hosts only, assemble the route configurations from the cached rest, and serve the uncached bytes', async () => {
    const model = sidecarModel();
    const { cache } = countingCache();
    const gen = cachedGenerator(cache);
    const proxies = [proxyOf('default', '10.0.0.1', { app: 'productpage' }), proxyOf('data', '10.0.0.3', { app: 'db' })];
    const push = proxyRequestPush(model.snapshot);
    for (const p of proxies) await everything(gen, p, push);
    const hosts = (): Map<string, Uint8Array> => new Map(cache.keys().filter((k) => k.startsWith('svh|')).map((k) => [k, cache.get(k)!]));
    const before = hosts();
    const ofReviews = [...before.keys()].filter((k) => k.includes('|VirtualService/default/reviews|'));
    assert.equal(ofReviews.length, 2, `the reviews virtual host as seen from each namespace: ${[...before.keys()].join(' ')}`);
    const edit = change(model, SIDECAR_MESH.split('---').find((d) => d.includes('kind: VirtualService') && d.includes('name: reviews'))!.replace('timeout: 2s', 'timeout: 3s').replace('generation: 4', 'generation: 5'));
    gen.invalidate(edit);
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    for (const p of proxies) {
      const got = await everything(gen, p, edit);
      const want = await everything(plain, p, edit);
      assert.deepEqual([...got.keys()], [...want.keys()]);
      for (const [k, body] of want) assert.ok(Buffer.from(got.get(k)!).equals(Buffer.from(body)), `${p.id}: ${k}`);
      assert.match(Buffer.from(got.get(`${TYPE_URL.route} 9080`)!).toString('latin1'), /VirtualService\/default\/reviews@5/, 'the edit shows');
    }
    const after = hosts();
    for (const [k, bytes] of before) {
      if (ofReviews.includes(k)) assert.notEqual(after.get(k), bytes, `${k} was rebuilt`);
      else assert.equal(after.get(k), bytes, `${k} was reused, not rebuilt`);
    }
    assert.ok(before.size > ofReviews.length, 'other virtual hosts were cached');
  });

  it('given a Sidecar ingress default endpoint on the proxy\'s own address should serve each proxy its own inbound cluster while sharing the plain ones', async () => {
    const model = sidecarModel(`${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: pp-ingress, namespace: default }
spec:
  workloadSelector: { labels: { app: productpage } }
  ingress:
  - { port: { number: 7000, protocol: HTTP, name: http-own }, defaultEndpoint: "0.0.0.0:7000" }
  - { port: { number: 7001, protocol: HTTP, name: http-plain } }
`);
    const push = proxyRequestPush(model.snapshot);
    const gen = cachedGenerator(countingCache().cache);
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const [a, b] = [proxyOf('default', '10.0.0.1', { app: 'productpage' }), proxyOf('default', '10.0.0.2', { app: 'productpage' })];
    const [ca, cb] = [await cds(gen, a, push), await cds(gen, b, push)];
    for (const [p, got] of [[a, ca], [b, cb]] as const) {
      for (const [n, body] of await cds(plain, p, push)) assert.ok(Buffer.from(got.get(n)!).equals(Buffer.from(body)), `${p.id}: ${n}`);
    }
    assert.notDeepEqual(ca.get('inbound|7000||'), cb.get('inbound|7000||'), 'the default endpoint names each proxy\'s own address');
    assert.equal(ca.get('inbound|7001||'), cb.get('inbound|7001||'), 'the plain inbound cluster is one shared body');
  });

  it('given a DestinationRule change should clear exactly the clusters and endpoints of its host, and the next push should serve the new bytes', async () => {
    const model = sidecarModel();
    const push = proxyRequestPush(model.snapshot);
    const { cache } = countingCache();
    const gen = cachedGenerator(cache);
    const p = proxyOf('default', '10.0.0.1', { app: 'productpage' });
    await everything(gen, p, push);
    const before = new Set(cache.keys());
    const edit = change(model, REVIEWS_DR_EDIT);
    gen.invalidate(edit);
    const after = new Set(cache.keys());
    const dropped = [...before].filter((k) => !after.has(k)).sort();
    const reviewsKeys = [...before].filter((k) => k.includes(`|${REVIEWS}|`) && !k.startsWith('srds|') && !k.startsWith('svh|')).sort();
    assert.ok(reviewsKeys.length >= 6, 'reviews has clusters and endpoints cached');
    assert.ok([...before].some((k) => k.startsWith('srds|')) && [...before].some((k) => k.startsWith('svh|')), 'routes and virtual hosts are cached');
    assert.deepEqual(dropped.filter((k) => !k.startsWith('srds|') && !k.startsWith('svh|')), reviewsKeys, 'reviews clusters and endpoints');
    // NOTE: routes to reviews carry its consistent hash (route-hash.ts): the virtual hosts that read its rule go too, no other.
    const droppedHosts = dropped.filter((k) => k.startsWith('svh|'));
    assert.ok(droppedHosts.some((k) => k.startsWith(`svh|9080|default/${REVIEWS}|`)), `reviews' virtual host is rebuilt: ${droppedHosts.join(' ')}`);
    assert.ok(droppedHosts.length < [...before].filter((k) => k.startsWith('svh|')).length, 'virtual hosts that read no reviews rule stay');
    const served = await cds(gen, p, edit);
    const plain = await cds(new SidecarGenerator({ sendUnhealthyEndpoints: false }), p, edit);
    assert.deepEqual([...served.keys()], [...plain.keys()]);
    for (const [n, body] of plain) assert.deepEqual(served.get(n), body, n);
    const c = decode(ENVOY.cluster, served.get(`outbound|9080||${REVIEWS}`)!) as { circuitBreakers: { thresholds: { maxConnections: { value: number } }[] } };
    assert.equal(c.circuitBreakers.thresholds[0]!.maxConnections.value, 7);
  });

  it('given a mesh with varied configs should serve cached bytes equal to uncached bytes for every resource of every proxy', async () => {
    const model = sidecarModel(VARIED);
    const proxies = [
      proxyOf('default', '10.0.0.1', { app: 'productpage' }),
      proxyOf('default', '10.0.0.2', { app: 'reviews', version: 'v9' }, 'r1/z1'),
      proxyOf('data', '10.0.0.3', { app: 'db' }),
      proxyOf('scoped', '10.0.0.4', { app: 'x' }, 'r1/z2'),
      proxyOf('default', '10.0.0.5', { app: 'reviews' }, 'r2/z1'),
      // NOTE: sees productpage with the same domains as the data proxy, through another namespace's rules.
      proxyOf('other', '10.0.0.6', { app: 'y' }),
    ];
    const { cache, reads } = countingCache();
    const cached = cachedGenerator(cache);
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const compare = async (push: PushRequest, label: string): Promise<void> => {
      // NOTE: twice over all proxies: the first round fills the cache across proxies, the second reads it.
      for (const round of [1, 2]) {
        for (const p of proxies) {
          const want = await everything(plain, p, push);
          const got = await everything(cached, p, push);
          assert.deepEqual([...got.keys()], [...want.keys()], `${label} round ${round} ${p.id}: names`);
          for (const [k, body] of want) assert.ok(Buffer.from(got.get(k)!).equals(Buffer.from(body)), `${label} round ${round} ${p.id}: ${k}`);
        }
      }
    };
    await compare(proxyRequestPush(model.snapshot), 'initial');
    assert.ok([...(await everything(cached, proxies[0]!, proxyRequestPush(model.snapshot))).keys()].includes(`${TYPE_URL.route} legacy.default.svc.cluster.local:7000`), 'a sniffed port route configuration is compared');
    // NOTE: proxies of one scope share through the scope memo; proxies of other scopes read the cache.
    assert.ok(reads.hit > 0, `the cache is used across scopes (${JSON.stringify(reads)})`);
    for (const [label, yaml, type] of [
      ['DestinationRule edit', REVIEWS_DR_EDIT, 'updated'],
      ['local DestinationRule removed', VARIED.split('---').find((d) => d.includes('reviews-local'))!, 'deleted'],
      ['Sidecar removed', VARIED.split('---').find((d) => d.includes('kind: Sidecar'))!, 'deleted'],
      ['consistent hash DestinationRule added for productpage', PRODUCTPAGE_HASH_DR, 'added'],
      ['consistent hash edited', PRODUCTPAGE_HASH_DR.replace('httpHeaderName: x-user', 'httpCookie: { name: sticky, ttl: 60s }'), 'updated'],
      ['a rule without a hash shadowing it in namespace data', PRODUCTPAGE_HASH_DR.replace('namespace: default', 'namespace: data').replace('{ consistentHash: { httpHeaderName: x-user } }', '{ simple: RANDOM }'), 'added'],
      [
        'a selector rule with a hash picking the reviews workloads',
        `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: productpage-for-reviews, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  workloadSelector: { matchLabels: { app: reviews } }
  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }
`,
        'added',
      ],
      ['VirtualService pp removed (productpage takes the default route)', VARIED.split('---').find((d) => d.includes('name: pp'))!, 'deleted'],
      ['consistent hash rule removed', PRODUCTPAGE_HASH_DR, 'deleted'],
      ['a source-IP hash for db (tcp_proxy)', DB_SOURCE_IP_DR, 'added'],
      ['a rule without a hash shadowing it in namespace other', DB_SOURCE_IP_DR.replace('namespace: data', 'namespace: other').replace('{ consistentHash: { useSourceIp: true } }', '{ simple: RANDOM }'), 'added'],
      ['a tcp route to subset primary of db', DB_PRIMARY_VS, 'added'],
      ['the source-IP rule gains subset primary with a simple load balancer (no hash there, as istiod)', `${DB_SOURCE_IP_DR}  subsets: [{ name: primary, labels: { app: db }, trafficPolicy: { loadBalancer: { simple: RANDOM } } }]\n`, 'updated'],
      ['the tcp route to subset primary removed', DB_PRIMARY_VS, 'deleted'],
      ['the source-IP hash turned off', DB_SOURCE_IP_DR.replace('useSourceIp: true', 'httpHeaderName: x-user'), 'updated'],
      [
        'tcp route by source labels added',
        `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: db-by-source, namespace: data }
spec:
  hosts: [db.data.svc.cluster.local]
  tcp:
  - match: [{ sourceLabels: { app: reviews } }]
    route: [{ destination: { host: reviews.default.svc.cluster.local, port: { number: 9080 } } }]
  - route: [{ destination: { host: db.data.svc.cluster.local } }]
`,
        'added',
      ],
      ['sniffed service VirtualService edited', VARIED.split('---').find((d) => d.includes('name: legacy') && d.includes('VirtualService'))!.replace('sourceNamespace: data', 'sourceNamespace: scoped'), 'updated'],
      [
        'TCP service added on a new port',
        `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: cache, namespace: data }
spec:
  hosts: [cache.data.svc.cluster.local]
  addresses: [10.96.0.40]
  location: MESH_INTERNAL
  ports: [{ number: 6379, name: tcp, protocol: TCP }]
  resolution: STATIC
`,
        'added',
      ],
      ['a Sidecar of namespace other trimming every service to port 9080', OTHER_PORT_SIDECAR, 'added'],
      ['the same Sidecar with a catch-all for namespace data (its services on every port again)', `${OTHER_PORT_SIDECAR}  - hosts: ["data/*"]\n`, 'updated'],
    ] as const) {
      const push = change(model, yaml, type);
      cached.invalidate(push);
      await compare(push, label);
    }
  });

  it('given the Redis filter on, the Mongo filter and auto SNI off should serve cached bytes equal to uncached bytes with those options, unlike the defaults', async () => {
    const model = sidecarModel(`${VARIED}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: protocols, namespace: data }
spec:
  hosts: [protocols.data.svc.cluster.local]
  addresses: [10.96.0.45]
  location: MESH_INTERNAL
  ports: [{ number: 6379, name: redis, protocol: REDIS }, { number: 27017, name: mongo, protocol: MONGO }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.45 }]
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: protocols, namespace: data }
spec:
  host: protocols.data.svc.cluster.local
  trafficPolicy: { tls: { mode: SIMPLE } }
`);
    const push = proxyRequestPush(model.snapshot);
    const proxies = [proxyOf('default', '10.0.0.1', { app: 'productpage' }), proxyOf('default', '10.0.0.9', { app: 'other' }), proxyOf('data', '10.0.0.3', { app: 'db' })];
    const over = { redisFilter: true, mongoFilter: false, autoSni: false };
    const cached = cachedGenerator(countingCache().cache, over);
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false, ...over });
    const defaults = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const changed = new Set<string>();
    for (const round of [1, 2]) {
      for (const p of proxies) {
        const want = await everything(plain, p, push);
        const got = await everything(cached, p, push);
        const base = await everything(defaults, p, push);
        assert.deepEqual([...got.keys()], [...want.keys()], `round ${round} ${p.id}: names`);
        for (const [k, body] of want) {
          assert.ok(Buffer.from(got.get(k)!).equals(Buffer.from(body)), `round ${round} ${p.id}: ${k}`);
          if (!base.has(k) || !Buffer.from(base.get(k)!).equals(Buffer.from(body))) changed.add(k.slice(k.lastIndexOf(' ') + 1));
        }
      }
    }
    const PROTO = 'protocols.data.svc.cluster.local';
    assert.deepEqual([...changed].sort(), [`10.96.0.45_27017`, `10.96.0.45_6379`, `outbound|27017||${PROTO}`, `outbound|6379||${PROTO}`], 'the options change these resources only');
  });

  it('given DestinationRules edited, removed and added, none hashing on the source IP, should leave every proxy\'s listeners byte-identical and change the routes whose hash they set', async () => {
    const model = sidecarModel(VARIED);
    const plain = new SidecarGenerator({ sendUnhealthyEndpoints: false });
    const proxies = [proxyOf('default', '10.0.0.1', { app: 'productpage' }), proxyOf('default', '10.0.0.2', { app: 'reviews', version: 'v9' }, 'r1/z1'), proxyOf('data', '10.0.0.3', { app: 'db' }), proxyOf('scoped', '10.0.0.4', { app: 'x' })];
    const listenersAndRoutes = async (push: PushRequest): Promise<Map<string, string>> => {
      const out = new Map<string, string>();
      for (const p of proxies) {
        for (const [k, body] of await everything(plain, p, push)) if (k.startsWith(TYPE_URL.listener) || k.startsWith(TYPE_URL.route)) out.set(`${p.id} ${k}`, Buffer.from(body).toString('base64'));
      }
      return out;
    };
    const before = await listenersAndRoutes(proxyRequestPush(model.snapshot));
    const edits: [string, 'added' | 'updated' | 'deleted'][] = [
      [REVIEWS_DR_EDIT, 'updated'],
      [VARIED.split('---').find((d) => d.includes('reviews-local'))!, 'deleted'],
      [
        `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: productpage, namespace: default }
spec:
  host: productpage.default.svc.cluster.local
  trafficPolicy: { tls: { mode: SIMPLE }, loadBalancer: { consistentHash: { httpHeaderName: x-user } } }
  subsets: [{ name: v1, labels: { version: v1 } }]`,
        'added',
      ],
    ];
    let push = proxyRequestPush(model.snapshot);
    for (const [yaml, type] of edits) push = change(model, yaml, type);
    assert.ok([...push.configsUpdated].every((k) => k.kind === 'DestinationRule'));
    const after = await listenersAndRoutes(push);
    assert.ok(before.size > 10);
    assert.deepEqual([...after.keys()], [...before.keys()]);
    for (const [k, v] of before) if (k.includes(TYPE_URL.listener)) assert.equal(after.get(k), v, k);
    const routesChanged = [...before].filter(([k, v]) => k.includes(TYPE_URL.route) && after.get(k) !== v).map(([k]) => k);
    assert.ok(routesChanged.some((k) => k.startsWith(`${proxies[0]!.id} `) && k.endsWith(' 9080')), `productpage's new hash shows on route configuration 9080: ${routesChanged.join(', ')}`);
  });

  it('given a build from an older snapshot finishing after a DestinationRule change should not cache it, and later pushes should serve the new config', async () => {
    const model = sidecarModel();
    const old = proxyRequestPush(model.snapshot);
    const { cache } = countingCache();
    const gen = cachedGenerator(cache);
    const p = proxyOf('default', '10.0.0.1', { app: 'productpage' });
    const edit = change(model, REVIEWS_DR_EDIT);
    gen.invalidate(edit);
    // NOTE: the old push's build runs after the invalidation (as a slow push racing a config change would).
    await cds(gen, p, old);
    assert.deepEqual(cache.keys().filter((k) => k.includes(`|${REVIEWS}|`)), [], 'bytes of the old DestinationRule are refused');
    const served = await cds(gen, proxyOf('default', '10.0.0.9', {}), edit);
    const plain = await cds(new SidecarGenerator({ sendUnhealthyEndpoints: false }), p, edit);
    for (const [n, body] of plain) if (n.startsWith('outbound|')) assert.deepEqual(served.get(n), body, n);
  });

  it('given an endpoint-only push should clear the endpoints and clusters of that service only', async () => {
    const model = sidecarModel();
    const { cache } = countingCache();
    const gen = cachedGenerator(cache);
    await everything(gen, proxyOf('default', '10.0.0.1', { app: 'productpage' }), proxyRequestPush(model.snapshot));
    const before = new Set(cache.keys());
    const edit = change(model, SIDECAR_MESH.split('---').find((d) => d.includes('name: reviews-v2'))!.replace('weight: 3', 'weight: 4'));
    assert.equal(edit.full, false, 'an endpoint-only push');
    gen.invalidate(edit);
    const dropped = [...before].filter((k) => !cache.keys().includes(k));
    assert.ok(dropped.length > 0);
    // NOTE: routes, virtual hosts and outbound listeners depend on their services' keys, which endpoint pushes name too.
    assert.deepEqual(dropped.filter((k) => !k.includes(`|${REVIEWS}|`) && !k.startsWith('srds|') && !k.startsWith('slds|') && !k.startsWith(`svh|9080|default/${REVIEWS}|`)), [], `only reviews: ${dropped.join(' ')}`);
  });
});
