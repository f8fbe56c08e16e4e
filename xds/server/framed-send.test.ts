import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../protos/index.js';
import { protoRoot } from '../protos/root.js';
import { ADS_METHODS, ADS_SERVICE } from './ads-service.js';
import { TYPE_URL } from './contracts.js';
import { frameParts, frameResponse, installFramedResponses } from './framed-send.js';
import { ResourceSections } from './resource-sections.js';
import { writeWithTimeout, type AdsCall } from './send.js';
import { encodeDiscoveryResponse, ResourceSection, type EncodedResponse } from './wire.js';

type SerializeMessage = (this: unknown, value: unknown) => Buffer;
type SendMessage = (this: unknown, message: unknown, callback: () => void) => void;
const grpcInternals = createRequire(import.meta.url)('@grpc/grpc-js/build/src/server-interceptors.js') as {
  BaseServerInterceptingCall: { prototype: { serializeMessage: SerializeMessage; sendMessage: SendMessage } };
};

/**
 * What grpc-js's BaseServerInterceptingCall.sendMessage reads of its call, over a stream that keeps what is written
 * (grpc-js's own sendMessage runs on it: a stand-in for the HTTP/2 stream and the call's state only).
 */
function fakeCall(opts: { cancelled?: boolean; maxSendMessageSize?: number } = {}) {
  const written: Buffer[] = [];
  const statuses: { code: number; details: string }[] = [];
  const stream = new Writable({
    writev(chunks, cb) {
      for (const c of chunks) written.push(Buffer.from(c.chunk as Buffer));
      cb();
    },
    write(chunk: Buffer, _enc, cb) {
      written.push(Buffer.from(chunk));
      cb();
    },
  });
  // NOTE: grpc-js's own methods (its sendMessage and serializeMessage, as installed) over these fields.
  const call = Object.assign(Object.create(grpcInternals.BaseServerInterceptingCall.prototype) as object, {
    stream,
    handler: { path: '/test', serialize: () => assert.fail('the service serializer was called') },
    maxSendMessageSize: opts.maxSendMessageSize ?? -1,
    callEventTracker: null,
    checkCancelled: () => opts.cancelled === true,
    maybeSendMetadata: () => undefined,
    sendStatus: (s: { code: number; details: string }) => statuses.push(s),
  });
  return { call, written, statuses };
}

/** A response carrying a shared section of `n` bodies of 20 KB (laid out by `sections`). */
function sectionedResponse(sections: ResourceSections, bodies: readonly Uint8Array[], nonce: string): EncodedResponse {
  const section = sections.section(TYPE_URL.cluster, bodies);
  assert.ok(section, 'the bodies make a shared section');
  return encodeDiscoveryResponse({ versionInfo: 'v1', typeUrl: TYPE_URL.cluster, nonce, resources: section });
}
const bodiesOf = (n: number, fill: number): Uint8Array[] => Array.from({ length: n }, (_, i) => Buffer.alloc(20_000, (fill + i) % 256));

/**
 * Serves `streams` real ADS streams (each told its index in the metadata `stream`) with `respond`, which writes its
 * responses, then ends them; returns the messages each client received, in order.
 */
async function receiveOverAds(streams: number, respond: (call: AdsCall, s: number) => Promise<void>): Promise<Buffer[][]> {
  const server = new grpc.Server();
  server.addService(ADS_SERVICE, {
    StreamAggregatedResources: (call: AdsCall) => {
      const s = Number(call.metadata.get('stream')[0]);
      void respond(call, s).then(
        () => call.end(),
        (e: unknown) => call.destroy(e as Error),
      );
    },
    DeltaAggregatedResources: (call: grpc.ServerDuplexStream<Uint8Array, unknown>) => call.end(),
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const clients = Array.from({ length: streams }, () => new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()));
  try {
    return await Promise.all(
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
  } finally {
    for (const c of clients) c.close();
    server.forceShutdown();
  }
}

/** A DiscoveryResponse as the tests read it back. */
interface Received {
  versionInfo: string;
  resources: { value: Uint8Array }[];
}

/**
 * Checks that each stream got `perStream` responses, versioned `<stream>/<index>` in order, and hands each to `check`
 * decoded.
 */
function checkEachResponse(received: Buffer[][], perStream: number, check: (m: Received, s: number, i: number) => void): void {
  const type = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  received.forEach((got, s) => {
    assert.equal(got.length, perStream, `stream ${s}`);
    got.forEach((bytes, i) => {
      const m = type.decode(bytes) as unknown as Received;
      assert.equal(m.versionInfo, `${s}/${i}`);
      check(m, s, i);
    });
  });
}

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
    const received = await receiveOverAds(streams, async (call, s) => {
      for (let i = 0; i < perStream; i++) {
        const body = Buffer.alloc(sizeOf(s, i), fillOf(s, i));
        await writeWithTimeout(call, encodeDiscoveryResponse({ versionInfo: `${s}/${i}`, typeUrl: TYPE_URL.cluster, nonce: `n${i}`, resources: [body] }), 0);
      }
    });
    checkEachResponse(received, perStream, (m, s, i) => {
      const value = Buffer.from(m.resources[0]!.value);
      assert.equal(value.length, sizeOf(s, i), `stream ${s} response ${i}: length`);
      assert.ok(value.every((b) => b === fillOf(s, i)), `stream ${s} response ${i}: every byte as written`);
    });
  });
  it('given a response with a shared section should frame it in parts that send the section itself, the same bytes as whole', () => {
    const sections = new ResourceSections();
    const r = sectionedResponse(sections, bodiesOf(3, 1), 'n1');
    const parts = frameParts(r);
    assert.equal(parts.length, 3, 'header and version, the section, the tail');
    assert.ok(r.pieces.includes(parts[1]!), 'the section is sent as it is, not copied');
    assert.ok(Buffer.concat(parts).equals(frameResponse(r)), 'the bytes of the whole frame');
  });

  it('given grpc-js sending a response with a shared section should write its parts in order after the metadata, then call back', async () => {
    installFramedResponses();
    const sections = new ResourceSections();
    const r = sectionedResponse(sections, bodiesOf(3, 2), 'n1');
    const { call, written, statuses } = fakeCall();
    let called = 0;
    grpcInternals.BaseServerInterceptingCall.prototype.sendMessage.call(call, r, () => called++);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written.length, 3, 'the head, the section, the tail');
    // NOTE: Buffer#equals, not deepEqual: a failing deepEqual of 60 KB buffers builds a diff too large to print.
    assert.ok(Buffer.concat(written).equals(frameResponse(r)), 'the bytes of the whole frame');
    assert.equal(called, 1);
    assert.deepEqual(statuses, []);
  });

  it('given a cancelled call should send none of the parts and not call back', async () => {
    installFramedResponses();
    const sections = new ResourceSections();
    const bodies = bodiesOf(3, 3);
    const r = sectionedResponse(sections, bodies, 'n1');
    const { call, written } = fakeCall({ cancelled: true });
    let called = 0;
    grpcInternals.BaseServerInterceptingCall.prototype.sendMessage.call(call, r, () => called++);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(written, []);
    assert.equal(called, 0);
  });

  it('given a response over the size limit of its call should send it whole to grpc-js, which refuses it', async () => {
    installFramedResponses();
    const sections = new ResourceSections();
    const r = sectionedResponse(sections, bodiesOf(3, 4), 'n1');
    const { call, written, statuses } = fakeCall({ maxSendMessageSize: r.length - 1 });
    grpcInternals.BaseServerInterceptingCall.prototype.sendMessage.call(call, r, () => assert.fail('called back'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(written, []);
    assert.equal(statuses.length, 1);
    assert.equal(statuses[0]!.code, grpc.status.RESOURCE_EXHAUSTED);
  });

  it('given many streams sent shared sections and frames of their own at once should deliver every byte, then free the sections', async () => {
    installFramedResponses();
    const streams = 12;
    const perStream = 8;
    let now = 0;
    const sections = new ResourceSections({ now: () => now });
    const shared = [0, 1, 2].map((k) => bodiesOf(4 + k, 10 * k));
    const sectionBytes: Buffer[] = [];
    // NOTE: even responses carry one of three shared sections, odd ones a frame of their own.
    const bodiesFor = (s: number, i: number): readonly Uint8Array[] => (i % 2 === 0 ? shared[(s + i) % 3]! : [Buffer.alloc(90_000 + s * 1000, (s * perStream + i) % 251)]);
    const received = await receiveOverAds(streams, async (call, s) => {
      for (let i = 0; i < perStream; i++) {
        const bodies = bodiesFor(s, i);
        const resources = i % 2 === 0 ? sections.section(TYPE_URL.cluster, bodies)! : bodies;
        if (resources instanceof ResourceSection) sectionBytes.push(resources.bytes);
        await writeWithTimeout(call, encodeDiscoveryResponse({ versionInfo: `${s}/${i}`, typeUrl: TYPE_URL.cluster, nonce: `n${i}`, resources }), 0);
      }
    });
    checkEachResponse(received, perStream, (m, s, i) => {
      const want = bodiesFor(s, i);
      assert.equal(m.resources.length, want.length, `stream ${s} response ${i}: resources`);
      m.resources.forEach((r, k) => assert.ok(Buffer.from(r.value).equals(want[k]!), `stream ${s} response ${i} resource ${k}: every byte as written`));
    });
    assert.equal(new Set(sectionBytes).size, 3, 'the even responses shared three sections');
    now += 60_000;
    sections.sweep();
    for (const b of sectionBytes) assert.equal(b.length, 0, 'written, then dropped: its memory is freed');
  });
});
