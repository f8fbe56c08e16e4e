import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { loadEnv, pushRequest } from '../../core/index.js';
import { TYPE_URL } from './contracts.js';
import { adsServerOptions, transportOptionsFromEnv } from './server-options.js';
import { AdsClient, edsCluster, eventually, FakeGenerator, metricValue, startAdsHarness, type AdsHarness, type FakeProxy } from '../testing/index.js';

const NODE_ID = 'router~10.0.0.3~gw-1.mesh-system~mesh-system.svc.cluster.local';
const CDS = TYPE_URL.cluster;

describe('ADS limits over real gRPC', () => {
  let h: AdsHarness<FakeProxy> | undefined;
  const clients: AdsClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
    h = undefined;
  });

  it('given more new streams than PILOT_MAX_REQUESTS_PER_SECOND allows, should refuse the extra one with RESOURCE_EXHAUSTED', async () => {
    const gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    h = await startAdsHarness({ generator: gen, maxRequestsPerSecond: 0.001, admissionWaitMs: 0 });
    const a = new AdsClient({ address: h.address, node: { id: NODE_ID } });
    clients.push(a);
    a.subscribe(CDS);
    await a.nextResponse(CDS, 0);
    const b = new AdsClient({ address: h.address, node: { id: NODE_ID } });
    clients.push(b);
    b.subscribe(CDS);
    const s = await b.status;
    assert.equal(s.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(s.details, /PILOT_MAX_REQUESTS_PER_SECOND/);
    assert.equal(h.ads.connections().length, 1);
  });

  it('given a proxy that stops reading, should discard the push after PILOT_XDS_SEND_TIMEOUT, close the stream and count pilot_xds_write_timeout', async () => {
    const gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    h = await startAdsHarness({ generator: gen, sendTimeoutMs: 300 });
    // A small HTTP/2 receive window, so that flow control stops the server soon after the client stops.
    const c = new AdsClient({ address: h.address, node: { id: NODE_ID }, autoAck: true, channelOptions: { 'grpc-node.flow_control_window': 65535 } });
    clients.push(c);
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    c.stream.pause();
    // 1 MB responses, pushed one after another: the paused client buffers 16 messages, then HTTP/2 flow
    // control stops the server's writes.
    gen.set(CDS, 'big', { ...edsCluster('big'), altStatName: 'x'.repeat(1_000_000) });
    for (let i = 0; i < 60 && h.ads.connections().length > 0; i++) {
      h.ads.push(pushRequest('config', { full: true }));
      await h.ads.idle();
    }
    await eventually('the write timeout', async () => ((await metricValue(h!.metrics, 'pilot_xds_write_timeout')) === 1 ? true : undefined));
    await eventually('the connection to close', () => (h!.ads.connections().length === 0 ? true : undefined));
    const s = await c.status;
    assert.notEqual(s.code, grpc.status.OK);
  });
});

describe('adsServerOptions', () => {
  it('given the spec defaults, should map them to grpc-js options and leave out an endless connection age', () => {
    const o = adsServerOptions({ maxRecvMsgSize: 4194304, maxStreams: 100000, keepaliveIntervalMs: 30_000, keepaliveTimeoutMs: 10_000, maxConnectionAgeMs: 9.2e15 });
    assert.deepEqual(o, {
      'grpc.max_receive_message_length': 4194304,
      'grpc.max_send_message_length': -1,
      'grpc.max_concurrent_streams': 100000,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    });
  });

  it('given a connection age, should set it with a grace period', () => {
    const o = adsServerOptions({ maxRecvMsgSize: 1, maxStreams: 1, keepaliveIntervalMs: 1, keepaliveTimeoutMs: 1, maxConnectionAgeMs: 1_800_000 });
    assert.equal(o['grpc.max_connection_age_ms'], 1_800_000);
    assert.equal(o['grpc.max_connection_age_grace_ms'], 10_000);
  });

  it('given a negative limit, should name it', () => {
    assert.throws(() => adsServerOptions({ maxRecvMsgSize: -1, maxStreams: 1, keepaliveIntervalMs: 1, keepaliveTimeoutMs: 1, maxConnectionAgeMs: 0 }), /maxRecvMsgSize=-1/);
  });
});

describe('transportOptionsFromEnv', () => {
  it('given the defaults, should derive throttles (0) and no send timeout', () => {
    assert.deepEqual(transportOptionsFromEnv(loadEnv('pilot-discovery', {})), { pushThrottle: 0, maxRequestsPerSecond: 0, sendTimeoutMs: 0, deltaXds: false });
  });
  it('given set variables, should read them', () => {
    const env = loadEnv('pilot-discovery', { PILOT_PUSH_THROTTLE: '7', PILOT_MAX_REQUESTS_PER_SECOND: '2.5', PILOT_XDS_SEND_TIMEOUT: '5s', MESH_DELTA_XDS: 'true' });
    assert.deepEqual(transportOptionsFromEnv(env), { pushThrottle: 7, maxRequestsPerSecond: 2.5, sendTimeoutMs: 5000, deltaXds: true });
  });
  it('given a negative throttle, should name the variable', () => {
    assert.throws(() => transportOptionsFromEnv(loadEnv('pilot-discovery', { PILOT_PUSH_THROTTLE: '-1' })), /PILOT_PUSH_THROTTLE=-1/);
  });
});
