import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../protos/index.js';
import { protoRoot } from '../protos/root.js';
import { ADS_METHODS, ADS_SERVICE } from './ads-service.js';
import { TYPE_URL } from './contracts.js';
import { frameResponse, installFramedResponses } from './framed-send.js';
import { writeWithTimeout, type AdsCall } from './send.js';
import { encodeDiscoveryResponse } from './wire.js';

type SerializeMessage = (this: unknown, value: unknown) => Buffer;
const grpcInternals = createRequire(import.meta.url)('@grpc/grpc-js/build/src/server-interceptors.js') as {
  BaseServerInterceptingCall: { prototype: { serializeMessage: SerializeMessage } };
};

describe('framed ADS responses (framed-send.ts)', () => {
  before(() => protoRoot());

  it('given the grpc-js meshd pins should install on its server calls', () => {
    // NOTE: fails when a grpc-js upgrade moves serializeMessage: responses would silently take the copying path.
    assert.equal(installFramedResponses(), true);
    assert.equal(installFramedResponses(), true, 'a second call is a no-op that reports the same');
  });

  it('given an encoded response should lay it out behind a gRPC header without calling the service serializer', () => {
    installFramedResponses();
    const r = encodeDiscoveryResponse({ versionInfo: 'v1', typeUrl: TYPE_URL.cluster, nonce: 'n1', resources: [Buffer.from('abc')] });
    const call = { handler: { serialize: () => assert.fail('the copying path was taken') } };
    const frame = grpcInternals.BaseServerInterceptingCall.prototype.serializeMessage.call(call, r);
    assert.deepEqual(frame, Buffer.concat([Buffer.from([0, 0, 0, 0, r.length]), r.toBuffer()]));
    assert.deepEqual(frameResponse(r), frame);
  });

  it('given any other message should leave framing to grpc-js and the service serializer', () => {
    installFramedResponses();
    const call = { handler: { serialize: (v: unknown) => Buffer.from(String(v)) } };
    const frame = grpcInternals.BaseServerInterceptingCall.prototype.serializeMessage.call(call, 'hello');
    assert.deepEqual(frame, Buffer.concat([Buffer.from([0, 0, 0, 0, 5]), Buffer.from('hello')]));
  });

  it('given many streams taking large responses at once should deliver every response intact', async () => {
    installFramedResponses();
    const streams = 12;
    const perStream = 8;
    const sizeOf = (s: number, i: number): number => 90_000 + ((s * 7 + i * 13) % 9) * 20_000;
    const fillOf = (s: number, i: number): number => (s * perStream + i) % 251;
    const server = new grpc.Server();
    server.addService(ADS_SERVICE, {
      StreamAggregatedResources: (call: AdsCall) => {
        const s = Number(call.metadata.get('stream')[0]);
        void (async () => {
          for (let i = 0; i < perStream; i++) {
            const body = Buffer.alloc(sizeOf(s, i), fillOf(s, i));
            await writeWithTimeout(call, encodeDiscoveryResponse({ versionInfo: `${s}/${i}`, typeUrl: TYPE_URL.cluster, nonce: `n${i}`, resources: [body] }), 0);
          }
          call.end();
        })();
      },
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<Uint8Array, unknown>) => call.end(),
    });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const clients = Array.from({ length: streams }, () => new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()));
    const type = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
    try {
      const received = await Promise.all(
        clients.map(
          (client, s) =>
            new Promise<Buffer[]>((resolve, reject) => {
              const out: Buffer[] = [];
              const md = new grpc.Metadata();
              md.set('stream', String(s));
              const call = client.makeBidiStreamRequest(ADS_METHODS.stream, (b: Buffer) => b, (b: Buffer) => b, md);
              call.on('data', (b: Buffer) => out.push(b));
              call.on('error', reject);
              call.on('end', () => resolve(out));
            }),
        ),
      );
      received.forEach((got, s) => {
        assert.equal(got.length, perStream, `stream ${s}`);
        got.forEach((bytes, i) => {
          const m = type.decode(bytes) as unknown as { versionInfo: string; resources: { value: Uint8Array }[] };
          assert.equal(m.versionInfo, `${s}/${i}`);
          const value = Buffer.from(m.resources[0]!.value);
          assert.equal(value.length, sizeOf(s, i), `stream ${s} response ${i}: length`);
          assert.ok(value.every((b) => b === fillOf(s, i)), `stream ${s} response ${i}: every byte as written`);
        });
      });
    } finally {
      for (const c of clients) c.close();
      server.forceShutdown();
    }
  });
});
