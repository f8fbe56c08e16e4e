import assert from 'node:assert/strict';
import { encode, lookupType } from '../protos/index.js';
import { TYPE_URL } from './contracts.js';
import { encodeDeltaDiscoveryResponse, encodeDiscoveryResponse } from './wire.js';
import { edsCluster } from '../testing/index.js';

interface AnyMsg {
  type_url: string;
  value: Uint8Array;
}

describe('wire encoding of discovery responses', () => {
  const c1 = encode(TYPE_URL.cluster, edsCluster('c1'));
  const big = encode(TYPE_URL.cluster, { ...edsCluster('big'), altStatName: 'y'.repeat(70_000) });

  it('given encoded clusters, should write a DiscoveryResponse protobufjs decodes to the same fields', () => {
    const buf = encodeDiscoveryResponse({ versionInfo: 'v1', typeUrl: TYPE_URL.cluster, nonce: 'n1', resources: [c1, big], controlPlane: 'meshd-0' }).toBuffer();
    const m = lookupType('envoy.service.discovery.v3.DiscoveryResponse').decode(buf) as unknown as {
      versionInfo: string; typeUrl: string; nonce: string; resources: AnyMsg[]; controlPlane: { identifier: string };
    };
    assert.equal(m.versionInfo, 'v1');
    assert.equal(m.typeUrl, TYPE_URL.cluster);
    assert.equal(m.nonce, 'n1');
    assert.equal(m.controlPlane.identifier, 'meshd-0');
    assert.equal(m.resources.length, 2);
    assert.equal(m.resources[0]!.type_url, TYPE_URL.cluster);
    assert.deepEqual(Buffer.from(m.resources[0]!.value), Buffer.from(c1));
    assert.deepEqual(Buffer.from(m.resources[1]!.value), Buffer.from(big));
  });

  it('given no resources and no nonce, should still carry the type URL', () => {
    const buf = encodeDiscoveryResponse({ versionInfo: '', typeUrl: TYPE_URL.route, nonce: '', resources: [] }).toBuffer();
    const m = lookupType('envoy.service.discovery.v3.DiscoveryResponse').decode(buf) as unknown as { typeUrl: string; resources: unknown[] };
    assert.equal(m.typeUrl, TYPE_URL.route);
    assert.equal(m.resources.length, 0);
  });

  it('given resources and removals, should write a DeltaDiscoveryResponse protobufjs decodes to the same fields', () => {
    const buf = encodeDeltaDiscoveryResponse({
      systemVersionInfo: 's1',
      typeUrl: TYPE_URL.cluster,
      nonce: 'n2',
      resources: [{ name: 'c1', version: 'abc', body: c1 }, { name: 'big', version: '', body: big }],
      removedResources: ['gone', 'also-gone'],
    }).toBuffer();
    const m = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse').decode(buf) as unknown as {
      systemVersionInfo: string; typeUrl: string; nonce: string; removedResources: string[];
      resources: { name: string; version: string; resource: AnyMsg }[];
    };
    assert.equal(m.systemVersionInfo, 's1');
    assert.equal(m.nonce, 'n2');
    assert.deepEqual(m.removedResources, ['gone', 'also-gone']);
    assert.deepEqual(m.resources.map((r) => [r.name, r.version, r.resource.type_url]), [
      ['c1', 'abc', TYPE_URL.cluster],
      ['big', '', TYPE_URL.cluster],
    ]);
    assert.deepEqual(Buffer.from(m.resources[1]!.resource.value), Buffer.from(big));
  });
});
