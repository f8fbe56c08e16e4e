import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, pushRequest, withSnapshot, type MeshModel, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL, type WatchedResource } from '../../server/contracts.js';
import { configsFromYaml, configEvent } from '../testing/model-fixtures.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { sidecarModel, sidecarNode } from './testing/sidecar-mesh.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const DB = 'db.data.svc.cluster.local';

function rule(host: string, generation: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default, generation: ${generation} }
spec:
  host: ${host}
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v3, labels: { version: v3 } }]
`;
}

const VS_EDIT = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews, namespace: default, generation: 9 }
spec:
  hosts: [reviews]
  http: [{ route: [{ destination: { host: reviews, subset: v1 } }] }]
`;

function change(model: MeshModel, yaml: string, type: 'updated' | 'deleted' = 'updated'): PushRequest {
  const req = model.apply(configsFromYaml(yaml).map((c) => configEvent(c, type)));
  assert.ok(req, 'the change calls for a push');
  model.rebuild();
  return withSnapshot(req, model.snapshot);
}

const CDS: WatchedResource = { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true, delta: true };

describe('changedServiceHosts: CDS over delta and EDS follow ServiceEntry and DestinationRule changes service by service', () => {
  before(() => protoRoot());

  function setup(): { model: MeshModel; gen: SidecarGenerator; p: ReturnType<typeof proxyFromNode> } {
    const model = sidecarModel();
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache: new XdsCache({ maxSize: 10_000 }) });
    return { model, gen, p: proxyFromNode(sidecarNode()) };
  }

  it('given a DestinationRule moved to another host over delta should build only both hosts\' clusters and the proxy\'s own, and name the old subsets as removed', async () => {
    const { model, gen, p } = setup();
    const first = await gen.generate(p, CDS, proxyRequestPush(model.snapshot));
    assert.ok(first.resources.some((r) => r.name === `outbound|9080|v2|${REVIEWS}`));
    const r = await gen.generate(p, CDS, change(model, rule(DB, 5)));
    assert.equal(r.incremental, true);
    const outbound = r.resources.map((x) => x.name).filter((n) => n.startsWith('outbound|'));
    assert.deepEqual(outbound, [`outbound|5432|v1|${DB}`, `outbound|5432|v3|${DB}`, `outbound|5432||${DB}`, `outbound|9080||${REVIEWS}`]);
    assert.ok(r.resources.some((x) => x.name.startsWith('inbound|')), 'the proxy\'s own clusters are rebuilt');
    for (const n of [`outbound|9080|v1|${REVIEWS}`, `outbound|9080|v2|${REVIEWS}`]) assert.ok(r.removed?.includes(n), `${n} is named removed`);
  });

  it('given the same push without delta, or a push that also changes a VirtualService, or no earlier build should build every cluster', async () => {
    const { model, gen, p } = setup();
    await gen.generate(p, CDS, proxyRequestPush(model.snapshot));
    const push = change(model, rule(REVIEWS, 5));
    const sotw = await gen.generate(p, { ...CDS, delta: false }, push);
    assert.equal(sotw.incremental, undefined);
    assert.ok(sotw.resources.some((x) => x.name === `outbound|5432||${DB}`));
    const both = model.apply([...configsFromYaml(rule(REVIEWS, 6)), ...configsFromYaml(VS_EDIT)].map((c) => configEvent(c, 'updated')));
    assert.ok(both);
    model.rebuild();
    const mixed = await gen.generate(p, CDS, withSnapshot(both, model.snapshot));
    assert.equal(mixed.incremental, undefined);
    const fresh = proxyFromNode(sidecarNode({ id: 'sidecar~10.0.0.9~p9.default~default.svc.cluster.local', ipAddresses: ['10.0.0.9'] }));
    const unknown = await gen.generate(fresh, CDS, change(model, rule(REVIEWS, 7)));
    assert.equal(unknown.incremental, undefined, 'no earlier build of the proxy: everything');
  });

  it('given a DestinationRule change should send the assignments of its service alone, on either protocol', async () => {
    const { model, gen, p } = setup();
    const names = new Set([`outbound|9080||${REVIEWS}`, `outbound|9080|v1|${REVIEWS}`, `outbound|5432||${DB}`]);
    const eds: WatchedResource = { typeUrl: TYPE_URL.endpoint, names, wildcard: false };
    await gen.generate(p, CDS, proxyRequestPush(model.snapshot));
    const full = await gen.generate(p, eds, withSnapshot(pushRequest('global', { full: true }), model.snapshot));
    assert.equal(full.resources.length, 3);
    const r = await gen.generate(p, eds, change(model, rule(REVIEWS, 5)));
    assert.equal(r.incremental, true);
    assert.deepEqual(r.resources.map((x) => x.name), [`outbound|9080|v1|${REVIEWS}`, `outbound|9080||${REVIEWS}`]);
  });

  it('given a selector DestinationRule edit over delta should rebuild the host for the proxy it picks and nothing for one it does not', async () => {
    const { model, gen, p } = setup();
    const other = proxyFromNode(sidecarNode({ id: 'sidecar~10.0.0.8~ratings-1.default~default.svc.cluster.local', ipAddresses: ['10.0.0.8'], podName: 'ratings-1', metadata: { LABELS: { app: 'ratings' }, NAMESPACE: 'default' } }));
    const selectorRule = (subset: string, generation: number): string => `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews-for-productpage, namespace: default, generation: ${generation} }
spec:
  host: ${REVIEWS}
  workloadSelector: { matchLabels: { app: productpage } }
  subsets: [{ name: ${subset}, labels: { version: v1 } }]
`;
    const start = change(model, selectorRule('v8', 1));
    await gen.generate(p, CDS, start);
    await gen.generate(other, CDS, start);
    const push = change(model, selectorRule('v9', 2));
    const picked = await gen.generate(p, CDS, push);
    assert.equal(picked.incremental, true);
    assert.deepEqual(picked.resources.map((x) => x.name).filter((n) => n.startsWith('outbound|')), [`outbound|9080|v9|${REVIEWS}`, `outbound|9080||${REVIEWS}`]);
    assert.ok(picked.removed?.includes(`outbound|9080|v8|${REVIEWS}`));
    const unpicked = await gen.generate(other, CDS, push);
    assert.equal(unpicked.incremental, true);
    assert.deepEqual(unpicked.resources.map((x) => x.name).filter((n) => n.startsWith('outbound|')), []);
  });
});
