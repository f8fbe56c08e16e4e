import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { encode, lookupType, TYPE_URL } from '../protos/index.js';
import { ECHOED, encodeRequest, RECHECKED, startAdsFuzzSurface, type AdsFuzzInput, type AdsFuzzSurface } from '../testing/ads-fuzz-surface.js';
import { nodeObject } from '../testing/ads-stream.js';
import { echoNode, startEchoMeshd } from '../testing/echo-meshd.js';
import { ADS_METHODS } from './ads-service.js';

// NOTE: the seeded CI share of the xDS fuzz surface; `npm run fuzz -- --surface xds` is the big run.
describe('ADS (SotW and delta) under fuzzing (seeded share)', function () {
  this.timeout(180_000);
  let s: AdsFuzzSurface | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  const ack = (protocol: 'sotw' | 'delta'): AdsFuzzInput => ({
    protocol,
    node: nodeObject(echoNode('acker')),
    messages: [
      { typeUrl: TYPE_URL.cluster, names: [], unsubscribe: [], versionInfo: '', nonce: '' },
      { typeUrl: TYPE_URL.cluster, names: [], unsubscribe: [], versionInfo: { echo: true }, nonce: { echo: true } },
    ],
  });
  for (const protocol of ['sotw', 'delta'] as const) {
    it(`given a ${protocol} request echoing the nonce of an earlier request's type should send that response's nonce (all were '': no input ACKed)`, async () => {
      s = await startAdsFuzzSurface();
      assert.equal(await s.check(ack(protocol)), 'accepted');
      assert.equal(s.counters()[ECHOED], 1);
    });
  }

  it('given 200 seeded hostile request sequences should answer or refuse each with a clear status, log no error, and still serve a good client', async () => {
    s = await startAdsFuzzSurface();
    const surface = s;
    const reasons = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(surface.arbitrary, async (input) => {
        const r = await surface.check(input);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }),
      { seed: 19_25, numRuns: 200 },
    );
    await surface.healthy();
    assert.ok((reasons.get('accepted') ?? 0) > 0, 'some sequences were answered');
    assert.ok((surface.counters()[ECHOED] ?? 0) > 0, 'some requests echoed a nonce or version');
    assert.ok([...reasons.keys()].some((k) => k.startsWith('INVALID_ARGUMENT')), `some were refused: ${[...reasons.keys()].join(' | ')}`);
  });
});

// NOTE: the 68 findings "RST_STREAM code 2" of the 2026-11-25 run (clusters of up to 8, one connection): the harness
// cancelled each answered stream, and the server's HTTP/2 layer (nghttp2's rapid-reset defence) closes a
// connection that resets streams faster than a burst of 1,000 then 33 a second, taking every stream on it along.
describe('ADS fuzz harness and the server connection (RST_STREAM code 2 findings)', function () {
  this.timeout(120_000);
  let s: AdsFuzzSurface | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const answered: AdsFuzzInput = {
    protocol: 'sotw',
    node: nodeObject(echoNode('good')),
    messages: [{ typeUrl: TYPE_URL.cluster, names: [], unsubscribe: [], versionInfo: '', nonce: '' }],
  };
  const runLanes = async (lanes: number, next: () => boolean, one: () => Promise<void>): Promise<void> => {
    await Promise.all(Array.from({ length: lanes }, async () => {
      while (next()) await one();
    }));
  };
  /** Opens `n` ADS streams on `client`, 8 at a time, each cancelled once answered; resolves with the statuses other than CANCELLED. */
  const cancelStorm = async (client: grpc.Client, n: number): Promise<string[]> => {
    const request = Buffer.from(encode('envoy.service.discovery.v3.DiscoveryRequest', { typeUrl: TYPE_URL.listener, node: nodeObject(echoNode('storm')) }));
    const bad: string[] = [];
    let opened = 0;
    await runLanes(8, () => opened++ < n, () => new Promise<void>((resolve) => {
      const call = client.makeBidiStreamRequest(ADS_METHODS.stream, (b: Buffer) => b, (b: Buffer) => b);
      call.on('data', () => call.cancel());
      call.on('error', () => undefined);
      call.on('status', (st: grpc.StatusObject) => {
        if (st.code !== grpc.status.CANCELLED) bad.push(`${grpc.status[st.code]}: ${st.details}`);
        resolve();
      });
      call.write(request);
    }));
    return bad;
  };

  it('given a client that cancels 1,200 answered streams on one connection should see the server close it with code 2 under the streams in flight (the cause)', async () => {
    const meshd = await startEchoMeshd();
    const client = new grpc.Client(meshd.address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
    try {
      const bad = await cancelStorm(client, 1200);
      assert.ok(bad.length > 0 && bad.every((b) => /^INTERNAL: .*Session closed with error code 2/.test(b)), `the connection closed with code 2: ${bad.slice(0, 2).join(' | ')}`);
    } finally {
      client.close();
      await meshd.close();
    }
  });

  it('given 1,200 answered inputs, 8 in flight on the shared connection, should count each accepted (the harness half-closes answered streams; it cancelled them)', async () => {
    s = await startAdsFuzzSurface();
    const surface = s;
    const outcomes = new Map<string, number>();
    let n = 0;
    await runLanes(8, () => n++ < 1200, async () => {
      const o = await surface.check(answered).catch((e: Error) => e.message);
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    });
    assert.deepEqual([...outcomes], [['accepted', 1200]]);
    assert.equal(surface.counters()[RECHECKED], 0);
  });

  it('given the shared connection closed under inputs in flight (another client of it resets too fast) should re-check them alone and count them accepted, not as findings', async () => {
    s = await startAdsFuzzSurface();
    const surface = s;
    const outcomes = new Map<string, number>();
    let storming = true;
    const storm = cancelStorm(surface.client, 1300).finally(() => (storming = false));
    await runLanes(8, () => storming, async () => {
      const o = await surface.check(answered).catch((e: Error) => e.message);
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    });
    const stormBad = await storm;
    assert.ok(stormBad.some((b) => /Session closed with error code 2/.test(b)), `the storm closed the connection: ${stormBad.slice(0, 2).join(' | ')}`);
    assert.deepEqual([...outcomes.keys()], ['accepted']);
    const rechecked = surface.counters()[RECHECKED] ?? 0;
    assert.ok(rechecked > 0, 'some inputs were in flight when it closed, and were re-checked');
  });
});

describe('ADS fuzz harness request encoding', () => {
  const cases = [
    { name: 'a SotW request with names', type: 'envoy.service.discovery.v3.DiscoveryRequest', field: 'resourceNames', m: { typeUrl: TYPE_URL.cluster, versionInfo: 'v', responseNonce: 'n', node: nodeObject(echoNode('x')) }, names: ['a', '', 'é✓😀', 'x'.repeat(200), 'y'.repeat(20_000)] },
    { name: 'a delta request with names and unsubscribes', type: 'envoy.service.discovery.v3.DeltaDiscoveryRequest', field: 'resourceNamesSubscribe', m: { typeUrl: TYPE_URL.endpoint, resourceNamesUnsubscribe: ['u'], initialResourceVersions: { a: '1' }, errorDetail: { code: 3, message: 'm' } }, names: Array.from({ length: 3000 }, (_, i) => `n-${i}`) },
    { name: 'a name that is no well-formed UTF-16', type: 'envoy.service.discovery.v3.DiscoveryRequest', field: 'resourceNames', m: { typeUrl: TYPE_URL.cluster }, names: ['ok', '\ud800'], sameBytes: true },
    { name: 'no names', type: 'envoy.service.discovery.v3.DeltaDiscoveryRequest', field: 'resourceNamesSubscribe', m: { typeUrl: TYPE_URL.listener }, names: [] },
  ];
  for (const c of cases) {
    it(`given ${c.name} should encode the same request as protobufjs does`, () => {
      const type = lookupType(c.type);
      const want = type.encode(type.fromObject({ ...c.m, [c.field]: c.names })).finish();
      const got = encodeRequest(type, c.m, c.field, c.names);
      // NOTE: a lone surrogate is no UTF-8 (the server refuses it): such requests must be protobufjs's bytes as they are.
      if ('sameBytes' in c) assert.deepEqual(got, Buffer.from(want));
      else assert.deepEqual(type.toObject(type.decode(got)), type.toObject(type.decode(want)));
    });
  }
});
