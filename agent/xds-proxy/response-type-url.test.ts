import assert from 'node:assert/strict';
import { encode } from '../xds-protos.js';
import { responseTypeUrl } from './xds-proxy.js';

describe('responseTypeUrl', () => {
  it('given an encoded DiscoveryResponse with resources before its type URL, should find the type URL without decoding them; garbage gives undefined', () => {
    const typeUrl = 'type.googleapis.com/mesh.networking.nds.v1.NameTable';
    const b = Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { versionInfo: '7', resources: [{ '@type': typeUrl, table: { 'a.example.com': { ips: ['240.0.0.1'] } } }], typeUrl, nonce: 'n-1' }));
    assert.equal(responseTypeUrl(b), typeUrl);
    assert.equal(responseTypeUrl(Buffer.from([0xff, 0xff, 0xff])), undefined);
    assert.equal(responseTypeUrl(Buffer.alloc(0)), undefined);
  });
});
