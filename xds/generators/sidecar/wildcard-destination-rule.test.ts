/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk decoded Envoy JSON */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, withSnapshot, type MeshModel, type PushRequest, type PushSnapshot } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import { changedServiceHosts } from './changed-services.js';
import { SidecarGenerator, sidecarCdsNeedsPush } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const PRODUCTPAGE = 'productpage.default.svc.cluster.local';
const DB = 'db.data.svc.cluster.local';
const CLUSTERS = {
  reviews: `outbound|9080||${REVIEWS}`,
  productpage: `outbound|9080||${PRODUCTPAGE}`,
  db: `outbound|5432||${DB}`,
  api: 'outbound|443||api.example.com',
} as const;

/** A mesh-wide rule in the root namespace for every `*.cluster.local` host: mesh mTLS, RANDOM, a connection limit. */
function meshWide(maxConnections: number, generation = 1): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: mesh-wide, namespace: mesh-system, generation: ${generation} }
spec:
  host: "*.cluster.local"
  trafficPolicy:
    connectionPool: { tcp: { maxConnections: ${maxConnections} } }
    loadBalancer: { simple: RANDOM }
    tls: { mode: MESH_MUTUAL }
`;
}

/** A namespace rule of `data` for its own hosts: plaintext, LEAST_REQUEST. */
const DATA_OVERRIDE = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: data-plain, namespace: data }
spec:
  host: "*.data.svc.cluster.local"
  trafficPolicy:
    loadBalancer: { simple: LEAST_REQUEST }
    tls: { mode: DISABLE }
`;

const proxy = proxyFromNode(sidecarNode());
/** istiod's cluster defaults without a rule: LEAST_REQUEST, the maximal connection limit. */
const DEFAULTS = { maxConnections: 4294967295, lbPolicy: 'LEAST_REQUEST' } as const;

function generator(cache?: XdsCache): SidecarGenerator {
  return cache
    ? new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, cache })
    : new SidecarGenerator({ sendUnhealthyEndpoints: false });
}

async function cds(gen: SidecarGenerator, push: PushRequest): Promise<Map<string, Uint8Array>> {
  const r = await gen.generate(proxy, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, push);
  return new Map(r.resources.map((x) => [x.name, x.body]));
}

/** What a rule decides of a cluster: connection limit, LB policy, TLS (socket, auto matches or none) and provenance. */
function shapeOf(bytes: Map<string, Uint8Array>, name: string): { maxConnections: unknown; lbPolicy: unknown; tls: string; fromMeshWide: boolean } {
  const c = decode(ENVOY.cluster, bytes.get(name)!) as Record<string, any>;
  return {
    maxConnections: c.circuitBreakers?.thresholds?.[0]?.maxConnections?.value,
    lbPolicy: c.lbPolicy ?? 'ROUND_ROBIN', // NOTE: Envoy's default
    tls: c.transportSocket?.name === 'envoy.transport_sockets.tls' ? 'socket' : c.transportSocketMatches ? 'auto' : 'none',
    fromMeshWide: JSON.stringify(c.metadata?.filterMetadata ?? {}).includes('mesh-wide'),
  };
}

function change(model: MeshModel, yaml: string, type: 'updated' | 'deleted' = 'updated'): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, type)));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

describe('SidecarGenerator with DestinationRules for wildcard hosts', function () {
  this.timeout(120_000);
  before(() => protoRoot());

  it('given a mesh-wide "*.cluster.local" rule in the root namespace should shape every in-mesh cluster but those a namespace rule covers', async () => {
    const model = sidecarModel(`${SIDECAR_MESH}\n---\n${meshWide(7)}`);
    const got = await cds(generator(), proxyRequestPush(model.snapshot));
    const meshRule = { maxConnections: 7, lbPolicy: 'RANDOM', tls: 'socket', fromMeshWide: true };
    assert.deepEqual(shapeOf(got, CLUSTERS.productpage), meshRule);
    assert.deepEqual(shapeOf(got, CLUSTERS.db), meshRule);
    // NOTE: reviews has its own rule in its namespace (exact host, service namespace before root).
    assert.deepEqual(shapeOf(got, CLUSTERS.reviews), { ...shapeOf(got, CLUSTERS.reviews), maxConnections: 100, fromMeshWide: false });
    assert.notEqual(shapeOf(got, CLUSTERS.reviews).lbPolicy, 'RANDOM');
    assert.deepEqual(shapeOf(got, CLUSTERS.api), { ...DEFAULTS, tls: 'none', fromMeshWide: false }, 'not under *.cluster.local');
  });

  it('given a wildcard rule of the service namespace should override the mesh-wide rule for that namespace\'s hosts only', async () => {
    const model = sidecarModel(`${SIDECAR_MESH}\n---\n${meshWide(7)}\n---\n${DATA_OVERRIDE}`);
    const got = await cds(generator(), proxyRequestPush(model.snapshot));
    assert.deepEqual(shapeOf(got, CLUSTERS.db), { ...DEFAULTS, tls: 'none', fromMeshWide: false });
    assert.deepEqual(shapeOf(got, CLUSTERS.productpage), { maxConnections: 7, lbPolicy: 'RANDOM', tls: 'socket', fromMeshWide: true });
  });

  it('given a mesh-wide rule added, edited and deleted should push CDS, name every host it shapes and serve fresh clusters from a warm cache', async () => {
    const model = sidecarModel();
    const gen = generator(new XdsCache({ maxSize: 100_000 }));
    let prev: PushSnapshot = model.snapshot;
    const before = await cds(gen, proxyRequestPush(prev));
    assert.equal(shapeOf(before, CLUSTERS.db).tls, 'auto', 'auto mTLS before any rule');
    const step = async (push: PushRequest): Promise<{ hosts: string[]; got: Map<string, Uint8Array> }> => {
      assert.equal(sidecarCdsNeedsPush(proxy, push), true);
      const hosts = [...(changedServiceHosts(push, push.snapshot!, prev, proxy, new Set()) ?? ['(all)'])].sort();
      gen.invalidate(push);
      const got = await cds(gen, push);
      prev = push.snapshot!;
      return { hosts, got };
    };
    const shaped = [DB, PRODUCTPAGE];

    const added = await step(change(model, meshWide(7)));
    assert.deepEqual(added.hosts, shaped, 'the hosts the new rule shapes, not reviews (own rule) nor api.example.com');
    for (const c of [CLUSTERS.db, CLUSTERS.productpage]) assert.deepEqual(shapeOf(added.got, c), { maxConnections: 7, lbPolicy: 'RANDOM', tls: 'socket', fromMeshWide: true }, c);
    assert.equal(added.got.get(CLUSTERS.reviews), before.get(CLUSTERS.reviews), 'reviews: the same cached bytes');

    const edited = await step(change(model, meshWide(9, 2)));
    assert.deepEqual(edited.hosts, shaped);
    for (const c of [CLUSTERS.db, CLUSTERS.productpage]) assert.equal(shapeOf(edited.got, c).maxConnections, 9, `${c}: the edit, not the cached bytes of the first version`);

    const deleted = await step(change(model, meshWide(9, 2), 'deleted'));
    assert.deepEqual(deleted.hosts, shaped, 'the hosts the deleted rule shaped (found in the earlier snapshot)');
    assert.deepEqual(shapeOf(deleted.got, CLUSTERS.db), shapeOf(before, CLUSTERS.db));
    assert.deepEqual(shapeOf(deleted.got, CLUSTERS.productpage), shapeOf(before, CLUSTERS.productpage));
  });
});
