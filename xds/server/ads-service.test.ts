import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../protos/index.js';
import { protoRoot } from '../protos/root.js';
import { ADS_METHODS, ADS_SERVICE, serializeResponse } from './ads-service.js';
import { TYPE_URL } from './contracts.js';
import { encodeDiscoveryResponse } from './wire.js';

describe('ADS_SERVICE response serialization over a real gRPC stream', () => {
  before(() => protoRoot());

  it('given responses laid out one after another in the scratch buffer should give each one whole until the next', () => {
    // NOTE: the path grpc-js takes where framed-send.ts could not be installed: it copies each view at once.
    const sizes = [10, 70_000, 5, 200_000, 1];
    sizes.forEach((n, i) => {
      const r = encodeDiscoveryResponse({ versionInfo: `v${i}`, typeUrl: TYPE_URL.cluster, nonce: `n${i}`, resources: [Buffer.alloc(n, 97 + i)] });
      assert.deepEqual(serializeResponse(r), r.toBuffer(), `response ${i} (${n} bytes)`);
    });
  });

  it('given responses of growing and shrinking sizes written back to back without waiting should deliver each one intact', async () => {
    // NOTE: writes not awaited queue in the call's Writable and are serialized later, one after another,
    // through the one scratch buffer (serializeResponse) or, once framed-send.ts is installed (any test that
    // registered an AdsServer in this process), each into its own frame: each must still arrive as written.
    const sizes = [10, 70_000, 5, 200_000, 1, 131_072, 64 * 1024, 3];
    const bodies = sizes.map((n, i) => Buffer.alloc(n, 97 + i));
    const server = new grpc.Server();
    server.addService(ADS_SERVICE, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<Uint8Array, unknown>) => {
        bodies.forEach((b, i) => call.write(encodeDiscoveryResponse({ versionInfo: `v${i}`, typeUrl: TYPE_URL.cluster, nonce: `n${i}`, resources: [b] })));
        call.end();
      },
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<Uint8Array, unknown>) => call.end(),
    });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const got: Buffer[] = await new Promise((resolve, reject) => {
        const out: Buffer[] = [];
        const call = client.makeBidiStreamRequest(ADS_METHODS.stream, (b: Buffer) => b, (b: Buffer) => b);
        call.on('data', (b: Buffer) => out.push(b));
        call.on('error', reject);
        call.on('end', () => resolve(out));
        call.end();
      });
      assert.equal(got.length, bodies.length);
      const type = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
      got.forEach((bytes, i) => {
        const m = type.decode(bytes) as unknown as { versionInfo: string; nonce: string; resources: { value: Uint8Array }[] };
        assert.equal(m.versionInfo, `v${i}`);
        assert.equal(m.nonce, `n${i}`);
        assert.ok(Buffer.from(m.resources[0]!.value).equals(bodies[i]!), `response ${i} (${sizes[i]} bytes) arrives as written`);
      });
    } finally {
      client.close();
      server.forceShutdown();
    }
  });
});
