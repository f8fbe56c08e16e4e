/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { createMetrics, proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type Metrics, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { TYPE_URL, type WatchedResource } from '../../server/contracts.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import { normalizeClusters } from './cluster-builder.js';
import { checkConsistency } from './consistency-checker.js';
import { conflictRecorderFrom } from './conflict-recorder.js';
import { buildSidecarResources, SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

/** The value of an unlabelled gauge in the registry's exposition text. */
async function gauge(metrics: Metrics, name: string): Promise<string | undefined> {
  return new RegExp(`^${name} (\\d+)$`, 'm').exec(await metrics.text())?.[1];
}

// A DNS ServiceEntry with two labelled endpoints, one without endpoints (the host resolves), and subsets:
// `v1` selects one endpoint, `v3` none; on the hostless one `labelled` selects none (the host has no labels)
// and `any` (no labels) keeps the host. A VirtualService routes `/v3` of ext to the dropped subset.
const DNS_SUBSETS = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ext, namespace: default }
spec:
  hosts: [ext.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: DNS
  endpoints:
  - { address: a.ext.example.com, labels: { version: v1 } }
  - { address: b.ext.example.com, labels: { version: v2 } }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: ext, namespace: default }
spec:
  host: ext.example.com
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v3, labels: { version: v3 } }
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: ext, namespace: default }
spec:
  hosts: [ext.example.com]
  http:
  - name: to-v3
    match: [{ uri: { prefix: /v3 } }]
    route: [{ destination: { host: ext.example.com, subset: v3 } }]
  - name: to-v1
    route: [{ destination: { host: ext.example.com, subset: v1 } }]
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: bare, namespace: default }
spec:
  hosts: [bare.example.com]
  location: MESH_EXTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }]
  resolution: DNS
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: bare, namespace: default }
spec:
  host: bare.example.com
  subsets:
  - { name: labelled, labels: { version: v1 } }
  - { name: any }
`;

// Two ServiceEntries on one VIP and HTTP port: the later host loses the VIP domains to the earlier one.
const SHARED_VIP = `${SIDECAR_MESH}
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: first, namespace: default }
spec:
  hosts: [a-first.example.com]
  addresses: [10.96.0.50]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.51 }]
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: second, namespace: default }
spec:
  hosts: [b-second.example.com]
  addresses: [10.96.0.50]
  location: MESH_EXTERNAL
  ports: [{ number: 80, name: http, protocol: HTTP }]
  resolution: STATIC
  endpoints: [{ address: 127.0.0.52 }]
`;

type Obj = Record<string, any>;
const socketAddresses = (c: Obj | undefined): string[] =>
  ((c?.['loadAssignment']?.endpoints ?? []) as Obj[]).flatMap((l) => (l['lbEndpoints'] as Obj[]).map((e) => `${e['endpoint'].address.socketAddress.address}:${e['endpoint'].address.socketAddress.portValue}`));

function proxyOf(ns: string, ip: string): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~p-${ip}.${ns}~${ns}.svc.cluster.local`, ipAddresses: [ip], podName: `p-${ip}`, namespace: ns, metadata: { LABELS: { app: 'x' }, NAMESPACE: ns } }));
}

/** A push from a newer snapshot with the same content (nothing invalidated: cached bytes are served). */
function newerPush(push: PushRequest): PushRequest {
  return { ...push, snapshot: { ...push.snapshot!, token: push.snapshot!.token + 1 } } as PushRequest;
}

/** The model after deleting the documents of `yaml`, as a push from its snapshot. */
function deleting(model: MeshModel, yaml: string): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, 'deleted')));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

const ALL = (typeUrl: string): WatchedResource => ({ typeUrl, names: new Set(), wildcard: true });

describe('DNS clusters without endpoints (pilot_dns_cluster_without_endpoints, istiod buildCluster)', () => {
  it('given DNS subsets should keep the endpoints their labels select and drop a cluster whose subset selects none (istiod buildSubsetCluster)', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(DNS_SUBSETS));
    const clusters = buildSidecarResources(proxy, TYPE_URL.cluster, snap, undefined, { sendUnhealthyEndpoints: false });
    const got = Object.fromEntries([...clusters].filter(([n]) => /example\.com$/.test(n) && /ext|bare/.test(n)).map(([n, c]) => [n, socketAddresses(c)]));
    assert.deepEqual(got, {
      'outbound|80||ext.example.com': ['a.ext.example.com:80', 'b.ext.example.com:80'],
      'outbound|80|v1|ext.example.com': ['a.ext.example.com:80'],
      // NOTE: outbound|80|v3|ext.example.com selects no endpoint; outbound|8080|labelled|bare.example.com neither
      // (the host endpoint of a DNS ServiceEntry without endpoints has no labels); both are dropped.
      'outbound|8080||bare.example.com': ['bare.example.com:8080'],
      'outbound|8080|any|bare.example.com': ['bare.example.com:8080'],
    });
  });

  it('given the two dropped clusters should count each once across proxies, and clear on a snapshot without them', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const model = sidecarModel(DNS_SUBSETS);
    const { snap } = sidecarAt(model);
    for (const p of [proxyOf('default', '10.0.0.1'), proxyOf('default', '10.0.0.2'), proxyOf('data', '10.0.0.3')]) buildSidecarResources(p, TYPE_URL.cluster, snap, undefined, { sendUnhealthyEndpoints: false, conflicts });
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '2');
    assert.equal(await gauge(metrics, 'pilot_duplicate_dataplane_clusters'), '0');
    const later = sidecarAt(sidecarModel(SIDECAR_MESH));
    buildSidecarResources(later.proxy, TYPE_URL.cluster, { ...later.snap, token: snap.token + 1 }, undefined, { sendUnhealthyEndpoints: false, conflicts });
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '0');
  });

  it('given the cached generator should drop and count them on every build, a newer snapshot served from the cache too', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const cache = new XdsCache({ maxSize: 10_000 });
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache, conflicts });
    const model = sidecarModel(DNS_SUBSETS);
    const push = proxyRequestPush(model.snapshot);
    const names = async (p: Proxy, at: PushRequest): Promise<string[]> => (await gen.generate(p, ALL(TYPE_URL.cluster), at)).resources.map((r) => r.name).filter((n) => n.startsWith('outbound|'));
    const first = await names(proxyOf('default', '10.0.0.1'), push);
    assert.ok(first.includes('outbound|80|v1|ext.example.com') && !first.includes('outbound|80|v3|ext.example.com') && !first.includes('outbound|8080|labelled|bare.example.com'));
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '2');
    const newer = newerPush(push);
    conflicts.observe(newer.snapshot!.token, ['pilot_dns_cluster_without_endpoints']);
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '0', 'a newer snapshot starts from zero');
    assert.deepEqual(await names(proxyOf('default', '10.0.0.2'), newer), first);
    assert.equal(await gauge(metrics, 'pilot_dns_cluster_without_endpoints'), '2');
  });

  it('given a route to the dropped subset should leave it dangling as istiod does: the simulator says no-cluster and the checker names it', () => {
    const { proxy, snap } = sidecarAt(sidecarModel(DNS_SUBSETS));
    const cfg = allSidecarResources(proxy, snap);
    const v3 = simulateRequest(cfg, { protocol: 'http', address: '1.2.3.4', port: 80, host: 'ext.example.com', path: '/v3', method: 'GET' });
    assert.deepEqual([v3.outcome, v3.clusters?.map((c) => c.name)], ['no-cluster', ['outbound|80|v3|ext.example.com']]);
    const v1 = simulateRequest(cfg, { protocol: 'http', address: '1.2.3.4', port: 80, host: 'ext.example.com', path: '/', method: 'GET' });
    assert.deepEqual([v1.outcome, v1.clusters?.map((c) => [c.name, c.endpoints])], ['routed', [['outbound|80|v1|ext.example.com', ['a.ext.example.com:80']]]]);
    assert.deepEqual(checkConsistency(cfg), ['route configuration 80 virtual host ext.example.com:80 route to-v3: cluster "outbound|80|v3|ext.example.com" is not in CDS']);
  });
});

describe('duplicate domains (pilot_vservice_dup_domain, istiod BuildSidecarOutboundVirtualHosts)', () => {
  it('given two services on one VIP and port should keep the VIP on the first virtual host and count the second once across proxies', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const { snap } = sidecarAt(sidecarModel(SHARED_VIP));
    let routes = new Map<string, Record<string, unknown>>();
    for (const p of [proxyOf('default', '10.0.0.1'), proxyOf('data', '10.0.0.3')]) routes = buildSidecarResources(p, TYPE_URL.route, snap, ['80'], { sendUnhealthyEndpoints: false, conflicts });
    const vhosts = (routes.get('80')!['virtualHosts'] as Obj[]).map((v) => [v['name'], (v['domains'] as string[]).filter((d) => d.startsWith('10.96.0.50'))]);
    assert.deepEqual(vhosts.slice(0, 2), [['a-first.example.com:80', ['10.96.0.50']], ['b-second.example.com:80', []]]);
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '1');
  });

  it('given the cached generator should count it on a route configuration cache hit and a virtual host cache hit, and clear once the second service goes', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const conflicts = conflictRecorderFrom(metrics);
    const reads = { hit: 0, miss: 0 };
    const cache = new XdsCache({ maxSize: 10_000, metrics: { read: (t) => void reads[t]++ } });
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache, conflicts });
    const model = sidecarModel(SHARED_VIP);
    const push = proxyRequestPush(model.snapshot);
    const rds = async (p: Proxy, at: PushRequest): Promise<Obj> => decode(ENVOY.route, (await gen.generate(p, { typeUrl: TYPE_URL.route, names: new Set(['80']), wildcard: false }, at)).resources[0]!.body) as Obj;
    const built = await rds(proxyOf('default', '10.0.0.1'), push);
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '1');
    const newer = newerPush(push);
    conflicts.observe(newer.snapshot!.token, ['pilot_vservice_dup_domain']);
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '0', 'a newer snapshot starts from zero');
    const hitsBefore = reads.hit;
    assert.deepEqual(await rds(proxyOf('default', '10.0.0.2'), newer), built, 'the same route configuration');
    assert.ok(reads.hit > hitsBefore, 'served from the cache');
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '1', 'the cached route configuration still reports its conflict');
    // NOTE: another namespace has its own route configuration key, assembled from the virtual host cache.
    await rds(proxyOf('data', '10.0.0.3'), newer);
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '1');
    const deleted = deleting(model, SHARED_VIP.split('---').find((d) => d.includes('name: second'))!);
    // NOTE: past the made-up newer token above (the model numbers its snapshots itself).
    const fixed = { ...deleted, snapshot: { ...deleted.snapshot!, token: Math.max(deleted.snapshot!.token, newer.snapshot!.token + 1) } } as PushRequest;
    gen.invalidate(fixed);
    const after = await rds(proxyOf('default', '10.0.0.1'), fixed);
    assert.deepEqual((after['virtualHosts'] as Obj[]).map((v) => v['name']).filter((n: string) => n.includes('example.com')), ['a-first.example.com:80']);
    assert.equal(await gauge(metrics, 'pilot_vservice_dup_domain'), '0');
  });
});

describe('duplicate clusters (pilot_duplicate_dataplane_clusters, istiod normalizeClusters)', () => {
  it('given clusters sorted by name with a repeated name should keep the first of each name and report the others', () => {
    const dropped: string[] = [];
    const got = normalizeClusters([{ name: 'a', n: 1 }, { name: 'b', n: 2 }, { name: 'b', n: 3 }, { name: 'b', n: 4 }, { name: 'c', n: 5 }], (n) => dropped.push(n));
    assert.deepEqual(got.map((c) => c.n), [1, 2, 5]);
    assert.deepEqual(dropped, ['b', 'b']);
  });
});
