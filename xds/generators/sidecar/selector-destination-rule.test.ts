/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk decoded Envoy JSON */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import { SidecarGenerator, sidecarCdsNeedsPush } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const CLUSTER = `outbound|9080||${REVIEWS}`;

/** A DestinationRule for reviews that only sidecars labelled `app: productpage` in `default` get. */
function pickedRule(maxConnections: number, generation = 1): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-for-productpage, namespace: default, generation: ${generation} }
spec:
  host: reviews.default.svc.cluster.local
  workloadSelector: { matchLabels: { app: productpage } }
  trafficPolicy:
    connectionPool: { tcp: { maxConnections: ${maxConnections} } }
    loadBalancer: { simple: RANDOM }
  subsets:
  - { name: canary, labels: { version: v3 } }
`;
}

const MESH = `${SIDECAR_MESH}
---
${pickedRule(7)}`;

function proxyOf(ip: string, labels: Record<string, string>): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~p-${ip}.default~default.svc.cluster.local`, ipAddresses: [ip], podName: `p-${ip}`, namespace: 'default', metadata: { LABELS: labels, NAMESPACE: 'default' } }));
}

function countingCache(): { cache: XdsCache; reads: { hit: number; miss: number } } {
  const reads = { hit: 0, miss: 0 };
  return { cache: new XdsCache({ maxSize: 100_000, metrics: { read: (t) => void reads[t]++ } }), reads };
}

function generator(cache?: XdsCache): SidecarGenerator {
  return cache
    ? new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache })
    : new SidecarGenerator({ sendUnhealthyEndpoints: false });
}

async function cds(gen: SidecarGenerator, p: Proxy, push: PushRequest): Promise<Map<string, Uint8Array>> {
  const r = await gen.generate(p, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, push);
  return new Map(r.resources.map((x) => [x.name, x.body]));
}

/** What the simulator cares about of the reviews cluster: its policy and the rule its provenance names. */
function policyOf(bytes: Map<string, Uint8Array>): { maxConnections: unknown; lbPolicy: unknown; sources: string } {
  const c = decode(ENVOY.cluster, bytes.get(CLUSTER)!) as Record<string, any>;
  return {
    maxConnections: c.circuitBreakers?.thresholds?.[0]?.maxConnections?.value,
    lbPolicy: c.lbPolicy ?? 'ROUND_ROBIN', // NOTE: Envoy's default
    sources: JSON.stringify(c.metadata?.filterMetadata ?? {}),
  };
}

function change(model: MeshModel, yaml: string): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, 'updated')));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

describe('SidecarGenerator with DestinationRule workloadSelector and merged rules', function () {
  this.timeout(120_000);
  before(() => protoRoot());

  for (const cached of [false, true]) {
    it(`given a selector rule matching one of two sidecars in a namespace should give each its own traffic policy and subsets (cache ${cached ? 'on' : 'off'})`, async () => {
      const model = sidecarModel(MESH);
      const push = proxyRequestPush(model.snapshot);
      const gen = generator(cached ? countingCache().cache : undefined);
      // NOTE: the picked proxy first, so that with the cache on a shared entry would be its bytes.
      const picked = await cds(gen, proxyOf('10.0.0.1', { app: 'productpage' }), push);
      const other = await cds(gen, proxyOf('10.0.0.9', { app: 'ratings' }), push);
      assert.deepEqual({ ...policyOf(picked), sources: undefined }, { maxConnections: 7, lbPolicy: 'RANDOM', sources: undefined });
      assert.match(policyOf(picked).sources, /reviews-for-productpage/);
      assert.deepEqual({ ...policyOf(other), sources: undefined }, { maxConnections: 100, lbPolicy: 'LEAST_REQUEST', sources: undefined });
      assert.doesNotMatch(policyOf(other).sources, /reviews-for-productpage/);
      assert.ok(picked.has(`outbound|9080|canary|${REVIEWS}`), 'the selector rule subset');
      assert.ok(!picked.has(`outbound|9080|v1|${REVIEWS}`), 'not the catch-all rule subsets');
      assert.ok(other.has(`outbound|9080|v1|${REVIEWS}`) && !other.has(`outbound|9080|canary|${REVIEWS}`), 'the catch-all subsets only');
    });
  }

  it('given sidecars no selector rule picks should still share the outbound bytes through the scope memo, and picked ones share theirs', async () => {
    const model = sidecarModel(MESH);
    const push = proxyRequestPush(model.snapshot);
    const { cache, reads } = countingCache();
    const gen = generator(cache);
    const a = await cds(gen, proxyOf('10.0.0.9', { app: 'ratings' }), push);
    const outbound = [...a.keys()].filter((n) => n.startsWith('outbound|'));
    assert.deepEqual(reads, { hit: 0, miss: outbound.length });
    const b = await cds(gen, proxyOf('10.0.0.8', { app: 'details' }), push);
    assert.deepEqual(reads, { hit: 0, miss: outbound.length }, 'the second unpicked sidecar reads nothing: the scope memo serves it');
    for (const n of outbound) assert.equal(b.get(n), a.get(n), `${n}: the same bytes object`);
    const p1 = await cds(gen, proxyOf('10.0.0.1', { app: 'productpage' }), push);
    const pickedOutbound = [...p1.keys()].filter((n) => n.startsWith('outbound|'));
    const ofReviews = pickedOutbound.filter((n) => n.endsWith(`|${REVIEWS}`));
    // NOTE: a picked proxy has its own memo entry; clusters of other hosts are the same cache entries (hits). Its
    // inbound cluster (productpage's inbound|9080||) is one more entry.
    const inbound = [...p1.keys()].filter((n) => n.startsWith('inbound|')).length;
    assert.deepEqual(reads, { hit: pickedOutbound.length - ofReviews.length, miss: outbound.length + ofReviews.length + inbound });
    for (const n of pickedOutbound) if (!n.endsWith(`|${REVIEWS}`)) assert.equal(p1.get(n), a.get(n), `${n}: shared with the unpicked`);
    assert.notEqual(p1.get(CLUSTER), a.get(CLUSTER));
    const p2 = await cds(gen, proxyOf('10.0.0.2', { app: 'productpage', version: 'v2' }), push);
    assert.equal(reads.miss, outbound.length + ofReviews.length + inbound, 'the second picked sidecar builds nothing');
    for (const n of pickedOutbound) assert.equal(p2.get(n), p1.get(n), `${n}: the same bytes object among picked sidecars`);
  });

  it('given two rules for one host merged should serve the second rule\'s subset and refresh it from a warm cache when only the second rule changes', async () => {
    const second = (max: number, generation: number): string => `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-more, namespace: default, generation: ${generation} }
spec:
  host: reviews.default.svc.cluster.local
  subsets:
  - { name: v9, labels: { version: v9 }, trafficPolicy: { connectionPool: { tcp: { maxConnections: ${max} } } } }
`;
    const model = sidecarModel(`${SIDECAR_MESH}\n---\n${second(11, 1)}`);
    const gen = generator(countingCache().cache);
    const p = proxyOf('10.0.0.9', { app: 'ratings' });
    const v9 = `outbound|9080|v9|${REVIEWS}`;
    const maxOf = (bytes: Map<string, Uint8Array>): unknown => (decode(ENVOY.cluster, bytes.get(v9)!) as any).circuitBreakers?.thresholds?.[0]?.maxConnections?.value;
    const first = await cds(gen, p, proxyRequestPush(model.snapshot));
    assert.ok(first.has(`outbound|9080|v1|${REVIEWS}`) && first.has(v9), 'the subsets of both rules');
    assert.equal(maxOf(first), 11);
    const edit = change(model, second(12, 2));
    gen.invalidate(edit);
    assert.equal(maxOf(await cds(gen, proxyOf('10.0.0.8', { app: 'details' }), edit)), 12);
  });

  it('given an edit of the selector rule should push CDS to picked and unpicked sidecars and serve the picked ones the new policy from a warm cache', async () => {
    const model = sidecarModel(MESH);
    const { cache } = countingCache();
    const gen = generator(cache);
    const picked = proxyOf('10.0.0.1', { app: 'productpage' });
    const other = proxyOf('10.0.0.9', { app: 'ratings' });
    const first = proxyRequestPush(model.snapshot);
    const before = await cds(gen, other, first);
    await cds(gen, picked, first);
    const edit = change(model, pickedRule(9, 2));
    for (const p of [picked, other]) assert.equal(sidecarCdsNeedsPush(p, edit), true, p.id);
    gen.invalidate(edit);
    assert.equal(policyOf(await cds(gen, picked, edit)).maxConnections, 9);
    const after = await cds(gen, other, edit);
    assert.equal(policyOf(after).maxConnections, 100);
    assert.equal(after.get(CLUSTER), before.get(CLUSTER), 'the unpicked entry did not depend on the selector rule: the same bytes object');
  });
});
