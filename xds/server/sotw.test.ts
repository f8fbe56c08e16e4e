import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { Subject } from 'rxjs';
import { pushRequest, type PushRequest } from '../../core/index.js';
import type { AdsEvent } from './stream-host.js';
import { TYPE_URL } from './contracts.js';
import {
  AdsClient,
  edsCluster,
  eventually,
  FakeGenerator,
  loadAssignment,
  metricValue,
  simpleListener,
  simpleRoute,
  startAdsHarness,
  type AdsHarness,
  type FakeProxy,
} from '../testing/index.js';

const NODE_ID = 'sidecar~10.0.0.1~pod-a.default~default.svc.cluster.local';
const CDS = TYPE_URL.cluster;
const EDS = TYPE_URL.endpoint;
const LDS = TYPE_URL.listener;
const RDS = TYPE_URL.route;

describe('ADS state of the world over real gRPC', () => {
  let gen: FakeGenerator;
  let h: AdsHarness<FakeProxy>;
  const clients: AdsClient[] = [];
  const connect = (opts: { autoAck?: boolean; id?: string } = {}): AdsClient => {
    const c = new AdsClient({ address: h.address, node: { id: opts.id ?? NODE_ID }, autoAck: opts.autoAck ?? false });
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    gen.set(CDS, 'c2', edsCluster('c2'));
    gen.set(EDS, 'c1', loadAssignment('c1', '10.1.0.1', 8080));
    gen.set(EDS, 'c2', loadAssignment('c2', '10.1.0.2', 8080));
    gen.set(LDS, 'l1', simpleListener('l1', 8080));
    gen.set(RDS, 'r1', simpleRoute('r1', 'a.example', 'c1'));
    h = await startAdsHarness({ generator: gen });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });

  it('given a wildcard CDS request, should answer with every cluster, the full type URL, a version and a nonce', async () => {
    const c = connect();
    c.subscribe(CDS);
    const r = await c.nextResponse(CDS, 0);
    assert.equal(r.typeUrl, CDS);
    assert.deepEqual(r.resources.map((x) => x.name).sort(), ['c1', 'c2']);
    assert.ok(r.resources.every((x) => x.typeUrl === CDS));
    assert.notEqual(r.versionInfo, '');
    assert.notEqual(r.nonce, '');
    const info = h.ads.connections();
    assert.equal(info.length, 1);
    assert.equal(info[0]!.nodeId, NODE_ID);
    assert.equal(info[0]!.types[0]!.wildcard, true);
    assert.equal(info[0]!.types[0]!.nonceSent, r.nonce);
  });

  it('given an ACK, should record the acked version and nonce and send nothing more', async () => {
    const c = connect();
    c.subscribe(CDS);
    const r = await c.nextResponse(CDS, 0);
    c.ack(CDS);
    const t = await eventually('the ACK', () => h.ads.connections()[0]?.types.find((x) => x.nonceAcked === r.nonce));
    assert.equal(t.versionAcked, r.versionInfo);
    await h.ads.idle();
    assert.equal(c.responses.length, 1);
    assert.equal(await metricValue(h.metrics, 'pilot_total_xds_rejects'), 0);
  });

  it('given a NACK, should count the reject, show the error, and clear the reject gauge on the next ACK', async () => {
    const c = connect();
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    c.nack(CDS, 'cluster c1: bad lb policy');
    await eventually('the NACK', () => h.ads.connections()[0]?.types[0]?.lastNack);
    const nack = h.ads.connections()[0]!.types[0]!.lastNack!;
    assert.equal(nack.message, 'cluster c1: bad lb policy');
    assert.equal(await metricValue(h.metrics, 'pilot_total_xds_rejects', { type: 'cds' }), 1);
    assert.equal(await metricValue(h.metrics, 'pilot_xds_cds_reject'), 1);
    h.ads.push(pushRequest('config', { full: true }));
    await c.nextResponse(CDS, 1);
    c.ack(CDS);
    await eventually('the reject gauge to clear', async () => ((await metricValue(h.metrics, 'pilot_xds_cds_reject')) === 0 ? true : undefined));
  });

  it('given a full push, should resend every watched type in the order CDS, EDS, LDS, RDS', async () => {
    const c = connect({ autoAck: true });
    c.subscribe(LDS);
    c.subscribe(RDS, ['r1']);
    c.subscribe(CDS);
    c.subscribe(EDS, ['c1', 'c2']);
    await c.waitFor('four responses', () => (c.responses.length === 4 ? true : undefined));
    h.ads.push(pushRequest('config', { full: true }));
    await c.waitFor('four pushed responses', () => (c.responses.length === 8 ? true : undefined));
    assert.deepEqual(c.responses.slice(4).map((r) => r.typeUrl), [CDS, EDS, LDS, RDS]);
    assert.ok(await metricValue(h.metrics, 'pilot_xds_pushes', { type: 'eds' }) >= 2);
    assert.ok(await metricValue(h.metrics, 'pilot_proxy_convergence_time') >= 1);
  });

  it('given an endpoint-only push, should push EDS only', async () => {
    const c = connect({ autoAck: true });
    c.subscribe(CDS);
    c.subscribe(EDS, ['c1']);
    await c.waitFor('two responses', () => (c.responses.length === 2 ? true : undefined));
    gen.set(EDS, 'c1', loadAssignment('c1', '10.1.0.9', 8080));
    h.ads.push(pushRequest('endpoint', { full: false, configs: [{ kind: 'ServiceEntry', namespace: 'default', name: 'c1' }] }));
    const r = await c.nextResponse(EDS, 2);
    await h.ads.idle();
    assert.equal(c.responses.length, 3);
    assert.deepEqual(r.resources.map((x) => x.name), ['c1']);
  });

  it('given a generator that says a type needs no push, should skip that type', async () => {
    const c = connect({ autoAck: true });
    c.subscribe(CDS);
    c.subscribe(LDS);
    await c.waitFor('two responses', () => (c.responses.length === 2 ? true : undefined));
    gen.needs = (typeUrl) => typeUrl !== CDS;
    h.ads.push(pushRequest('config', { full: true }));
    await c.nextResponse(LDS, 2);
    await h.ads.idle();
    assert.deepEqual(c.responses.slice(2).map((r) => r.typeUrl), [LDS]);
  });

  it('given a request with an expired nonce, should ignore it and count pilot_xds_expired_nonce', async () => {
    const c = connect();
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    c.request({ typeUrl: CDS, responseNonce: 'not-the-latest', versionInfo: 'x' });
    await eventually('expired nonce count', async () => ((await metricValue(h.metrics, 'pilot_xds_expired_nonce', { type: 'cds' })) === 1 ? true : undefined));
    assert.equal(c.responses.length, 1);
    assert.equal(h.ads.connections()[0]!.types[0]!.nonceAcked, '');
  });

  it('given named EDS subscriptions, should send only those names, answer a new name, and not answer an unsubscribe', async () => {
    const c = connect({ autoAck: true });
    c.subscribe(EDS, ['c1']);
    const first = await c.nextResponse(EDS, 0);
    assert.deepEqual(first.resources.map((x) => x.name), ['c1']);
    assert.equal(h.ads.connections()[0]!.types[0]!.wildcard, false);
    c.subscribe(EDS, ['c1', 'c2']);
    const second = await c.nextResponse(EDS, 1);
    assert.deepEqual(second.resources.map((x) => x.name).sort(), ['c1', 'c2']);
    c.unsubscribe(EDS, ['c1']);
    await eventually('the unsubscribe', () => (h.ads.connections()[0]!.types[0]!.names.join() === 'c2' ? true : undefined));
    h.ads.push(pushRequest('endpoint', { full: false }));
    const pushed = await c.nextResponse(EDS, 2);
    assert.deepEqual(pushed.resources.map((x) => x.name), ['c2']);
  });

  it('given a removed cluster, should leave it out of the next CDS response', async () => {
    const c = connect({ autoAck: true });
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    gen.delete(CDS, 'c2');
    h.ads.push(pushRequest('service', { full: true }));
    const r = await c.nextResponse(CDS, 1);
    assert.deepEqual(r.resources.map((x) => x.name), ['c1']);
  });

  it('given an attached PushRequest stream, should push each request and emit connected, request (not for a plain ACK), ack, push and nack events', async () => {
    const events: AdsEvent['kind'][] = [];
    const sub = h.ads.events.subscribe((e) => events.push(e.kind));
    const pushes = new Subject<PushRequest>();
    const attached = h.ads.attach(pushes);
    try {
      const c = connect();
      c.subscribe(CDS);
      const first = await c.nextResponse(CDS, 0);
      c.ack(CDS);
      await eventually('the ACK', () => (h.ads.connections()[0]?.types[0]?.nonceAcked === first.nonce ? true : undefined));
      pushes.next(pushRequest('config', { full: true }));
      await c.nextResponse(CDS, 1);
      c.nack(CDS, 'bad');
      await eventually('connected, request, ack, push and nack events', () => (events.join() === 'connected,request,ack,push,request,nack' ? true : undefined));
    } finally {
      attached.unsubscribe();
      sub.unsubscribe();
    }
  });

  it('given a type the generator does not serve, should answer the request with an empty response', async () => {
    gen.unserved.add(TYPE_URL.secret);
    const c = connect();
    c.subscribe(TYPE_URL.secret, ['default']);
    const r = await c.nextResponse(TYPE_URL.secret, 0);
    assert.equal(r.resources.length, 0);
  });

  it('given connect and disconnect, should move pilot_xds and call closeProxy', async () => {
    const c = connect();
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    assert.equal(await metricValue(h.metrics, 'pilot_xds'), 1);
    c.close();
    await eventually('the connection to go', () => (h.ads.connections().length === 0 ? true : undefined));
    assert.equal(await metricValue(h.metrics, 'pilot_xds'), 0);
    assert.equal(gen.proxies[0]!.closed, true);
  });

  it('given a generator failure, should close the stream with INTERNAL and count an internal error', async () => {
    gen.failType = CDS;
    const c = connect();
    c.subscribe(CDS);
    const s = await c.status;
    assert.equal(s.code, grpc.status.INTERNAL);
    assert.match(s.details, /generating type.googleapis.com\/envoy.config.cluster.v3.Cluster failed: fake failure/);
    assert.equal(await metricValue(h.metrics, 'pilot_total_xds_internal_errors'), 1);
  });

  it('given a proxy the generator refuses, should close the stream with FAILED_PRECONDITION', async () => {
    gen.refuse = () => 'unknown namespace';
    const c = connect();
    c.subscribe(CDS);
    const s = await c.status;
    assert.equal(s.code, grpc.status.FAILED_PRECONDITION);
    assert.match(s.details, /refused: unknown namespace/);
  });

  const badNodes = [
    { name: 'an empty node id', id: '', message: /node id is empty/ },
    { name: 'too few parts', id: 'sidecar~10.0.0.1~pod.ns', message: /has 3 parts/ },
    { name: 'an unknown proxy type', id: 'waypoint~10.0.0.1~pod.ns~ns.svc.cluster.local', message: /proxy type "waypoint" is not one of sidecar, router/ },
    { name: 'a bad IP', id: 'sidecar~10.0.0.300~pod.ns~ns.svc.cluster.local', message: /"10.0.0.300" is not an IP address/ },
    { name: 'no namespace in the pod part', id: 'sidecar~10.0.0.1~pod~ns.svc.cluster.local', message: /"pod" is not <pod>.<namespace>/ },
  ];
  for (const b of badNodes) {
    it(`given a node with ${b.name}, should close the stream with INVALID_ARGUMENT saying what is wrong`, async () => {
      const c = connect({ id: b.id });
      c.subscribe(CDS);
      const s = await c.status;
      assert.equal(s.code, grpc.status.INVALID_ARGUMENT);
      assert.match(s.details, b.message);
      assert.equal(h.ads.connections().length, 0);
    });
  }

  it('given malformed request bytes, should close the stream with INVALID_ARGUMENT', async () => {
    const c = connect();
    c.stream.sendRaw(Uint8Array.from([0x0a, 0xff, 0xff, 0xff]));
    const s = await c.status;
    assert.equal(s.code, grpc.status.INVALID_ARGUMENT);
    assert.match(s.details, /malformed DiscoveryRequest/);
  });
});
