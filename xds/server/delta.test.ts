import assert from 'node:assert/strict';
import { pushRequest } from '../../core/index.js';
import { TYPE_URL } from './contracts.js';
import {
  DeltaAdsClient,
  edsCluster,
  eventually,
  FakeGenerator,
  loadAssignment,
  metricValue,
  resourceName,
  startAdsHarness,
  type AdsHarness,
  type FakeProxy,
} from '../testing/index.js';

const NODE_ID = 'sidecar~10.0.0.2~pod-b.default~default.svc.cluster.local';
const CDS = TYPE_URL.cluster;
const EDS = TYPE_URL.endpoint;

for (const deltaXds of [false, true]) {
  describe(`ADS delta over real gRPC (MESH_DELTA_XDS=${deltaXds})`, () => {
    let gen: FakeGenerator;
    let h: AdsHarness<FakeProxy>;
    const clients: DeltaAdsClient[] = [];
    const connect = (autoAck = true): DeltaAdsClient => {
      const c = new DeltaAdsClient({ address: h.address, node: { id: NODE_ID }, autoAck });
      clients.push(c);
      return c;
    };

    beforeEach(async () => {
      gen = new FakeGenerator();
      gen.set(CDS, 'c1', edsCluster('c1'));
      gen.set(CDS, 'c2', edsCluster('c2'));
      gen.set(EDS, 'c1', loadAssignment('c1', '10.1.0.1', 8080));
      gen.set(EDS, 'c2', loadAssignment('c2', '10.1.0.2', 8080));
      h = await startAdsHarness({ generator: gen, deltaXds });
    });
    afterEach(async () => {
      for (const c of clients.splice(0)) c.close();
      await h.close();
    });

    it('given a wildcard CDS subscription, should send every cluster with a name, a version and the full type URL', async () => {
      const c = connect();
      c.subscribe(CDS);
      const r = await c.nextResponse(CDS, 0);
      assert.deepEqual(r.resources.map((x) => x.name).sort(), ['c1', 'c2']);
      for (const x of r.resources) {
        assert.equal(x.typeUrl, CDS);
        assert.notEqual(x.version, '');
        assert.equal(resourceName(CDS, x.body), x.name);
      }
      assert.equal(h.ads.connections()[0]!.protocol, 'delta');
    });

    it('given named subscriptions, should send only new names and answer a name that does not exist with removed_resources', async () => {
      const c = connect();
      c.subscribe(EDS, ['c1', 'ghost']);
      const first = await c.nextResponse(EDS, 0);
      assert.deepEqual(first.resources.map((x) => x.name), ['c1']);
      assert.deepEqual(first.removedResources, ['ghost']);
      c.subscribe(EDS, ['c2', 'nope']);
      const second = await c.nextResponse(EDS, 1);
      assert.deepEqual(second.resources.map((x) => x.name), ['c2']);
      assert.deepEqual(second.removedResources, ['nope']);
      const asked = gen.calls.filter((x) => x.typeUrl === EDS).map((x) => [...x.names].sort());
      assert.deepEqual(asked, [['c1', 'ghost'], ['c2', 'nope']], 'each answer generates the newly subscribed names only');
    });

    it('given an unsubscribe, should not answer it and leave the name out of later pushes', async () => {
      const c = connect();
      c.subscribe(EDS, ['c1', 'c2']);
      await c.nextResponse(EDS, 0);
      c.unsubscribe(EDS, ['c1']);
      await eventually('the unsubscribe', () => (h.ads.connections()[0]!.types[0]!.names.join() === 'c2' ? true : undefined));
      gen.set(EDS, 'c1', loadAssignment('c1', '10.9.0.1', 8080));
      gen.set(EDS, 'c2', loadAssignment('c2', '10.9.0.2', 8080));
      h.ads.push(pushRequest('endpoint', { full: false }));
      const pushed = await c.nextResponse(EDS, 1);
      assert.deepEqual(pushed.resources.map((x) => x.name), ['c2']);
      assert.equal(c.responses.length, 2);
    });

    it('given a removed cluster, should name it in removed_resources on the next push', async () => {
      const c = connect();
      c.subscribe(CDS);
      await c.nextResponse(CDS, 0);
      gen.delete(CDS, 'c2');
      h.ads.push(pushRequest('service', { full: true }));
      const r = await c.nextResponse(CDS, 1);
      assert.deepEqual(r.removedResources, ['c2']);
      assert.deepEqual([...c.held(CDS).keys()], ['c1']);
    });

    it(`given a push that changes one of two clusters, should send ${deltaXds ? 'only the changed one' : 'both (no real deltas)'}`, async () => {
      const c = connect();
      c.subscribe(CDS);
      await c.nextResponse(CDS, 0);
      gen.set(CDS, 'c1', { ...edsCluster('c1'), connectTimeout: { seconds: 5 } });
      h.ads.push(pushRequest('config', { full: true }));
      const r = await c.nextResponse(CDS, 1);
      assert.deepEqual(r.resources.map((x) => x.name).sort(), deltaXds ? ['c1'] : ['c1', 'c2']);
    });

    it('given a NACK, should count the reject and record the error', async () => {
      const c = connect(false);
      c.subscribe(CDS);
      await c.nextResponse(CDS, 0);
      c.nack(CDS, 'no such filter');
      await eventually('the NACK', () => h.ads.connections()[0]?.types[0]?.lastNack);
      assert.equal(h.ads.connections()[0]!.types[0]!.lastNack!.message, 'no such filter');
      assert.equal(await metricValue(h.metrics, 'pilot_total_xds_rejects', { type: 'cds' }), 1);
      c.ack(CDS);
      await eventually('the ACK', () => (h.ads.connections()[0]!.types[0]!.nonceAcked !== '' ? true : undefined));
    });

    it('given an ACK with a stale nonce, should count pilot_xds_expired_nonce', async () => {
      const c = connect(false);
      c.subscribe(CDS);
      await c.nextResponse(CDS, 0);
      c.request({ typeUrl: CDS, responseNonce: 'stale' });
      await eventually('expired nonce', async () => ((await metricValue(h.metrics, 'pilot_xds_expired_nonce', { type: 'cds' })) === 1 ? true : undefined));
    });
  });
}

describe('ADS delta reconnect with MESH_DELTA_XDS=true', () => {
  it('given initial_resource_versions the client already holds, should send only what differs', async () => {
    const gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    gen.set(CDS, 'c2', edsCluster('c2'));
    const h = await startAdsHarness({ generator: gen, deltaXds: true });
    const a = new DeltaAdsClient({ address: h.address, node: { id: NODE_ID }, autoAck: true });
    const b = new DeltaAdsClient({ address: h.address, node: { id: NODE_ID }, autoAck: true });
    try {
      a.subscribe(CDS);
      const first = await a.nextResponse(CDS, 0);
      const versions = Object.fromEntries(first.resources.map((x) => [x.name, x.version]));
      a.close();
      gen.set(CDS, 'c2', { ...edsCluster('c2'), connectTimeout: { seconds: 7 } });
      gen.delete(CDS, 'c1');
      gen.set(CDS, 'c3', edsCluster('c3'));
      b.subscribe(CDS, [], { ...versions, gone: 'v0' });
      const r = await b.nextResponse(CDS, 0);
      assert.deepEqual(r.resources.map((x) => x.name).sort(), ['c2', 'c3']);
      assert.deepEqual([...r.removedResources].sort(), ['c1', 'gone']);
    } finally {
      b.close();
      await h.close();
    }
  });
});
