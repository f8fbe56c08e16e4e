import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encode } from '../../../xds/index.js';
import { TYPES } from './bench-client.js';
import { edsNamesOfCluster, leadingName, readDeltaDiscoveryResponse, readDiscoveryResponse } from './response-wire.js';

const cla = (name: string): Uint8Array => encode('envoy.config.endpoint.v3.ClusterLoadAssignment', { clusterName: name, endpoints: [{ lbEndpoints: [] }] });
const same = (a: Uint8Array | undefined, b: Uint8Array): boolean => a !== undefined && Buffer.compare(a, b) === 0;

describe('bench:xds response wire', () => {
  it('given a DiscoveryResponse should read its version, type, nonce and each resource body as protobufjs encoded them', () => {
    const bodies = [cla('a'), cla('outbound|80||b.ns.svc.cluster.local')];
    const bytes = encode('envoy.service.discovery.v3.DiscoveryResponse', {
      versionInfo: 'v7',
      typeUrl: TYPES.eds,
      nonce: 'n7',
      canary: true,
      resources: bodies.map((value) => ({ typeUrl: TYPES.eds, value })),
      controlPlane: { identifier: 'meshd' },
    });
    const r = readDiscoveryResponse(bytes);
    assert.deepEqual([r.versionInfo, r.typeUrl, r.nonce, r.bodies.length], ['v7', TYPES.eds, 'n7', 2]);
    assert.ok(r.bodies.every((b, i) => same(b, bodies[i]!)));
    assert.deepEqual(r.bodies.map(leadingName), ['a', 'outbound|80||b.ns.svc.cluster.local']);
  });

  it('given resources in one run of fields should give their bytes, which differ only where the resources do', () => {
    const response = (names: string[], nonce: string): Uint8Array =>
      encode('envoy.service.discovery.v3.DiscoveryResponse', { versionInfo: nonce, typeUrl: TYPES.eds, nonce, resources: names.map((n) => ({ typeUrl: TYPES.eds, value: cla(n) })) });
    const a = readDiscoveryResponse(response(['a', 'b'], 'n1')).resourceBytes!;
    const sameResources = readDiscoveryResponse(response(['a', 'b'], 'n2-longer')).resourceBytes!;
    const other = readDiscoveryResponse(response(['a', 'c'], 'n1')).resourceBytes!;
    assert.ok(a.equals(sameResources), 'another version and nonce changed the resources\' bytes');
    assert.ok(!a.equals(other));
    const any = (n: string): Uint8Array => encode('google.protobuf.Any', { typeUrl: TYPES.eds, value: cla(n) });
    const field = (n: number, body: Uint8Array): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, body.length]), body]);
    assert.ok(a.equals(Buffer.concat([field(2, any('a')), field(2, any('b'))])), 'not exactly the two resource fields');
    assert.equal(readDiscoveryResponse(response([], 'n1')).resourceBytes!.length, 0, 'no resources: no bytes');
    const interrupted = Buffer.concat([field(2, any('a')), field(5, Buffer.from('n1')), field(2, any('b'))]);
    assert.equal(readDiscoveryResponse(interrupted).resourceBytes, undefined, 'a nonce between two resources: no single run');
  });

  it('given a DeltaDiscoveryResponse should read resources by name, a resource without a body, and removals', () => {
    const bytes = encode('envoy.service.discovery.v3.DeltaDiscoveryResponse', {
      systemVersionInfo: 's1',
      typeUrl: TYPES.eds,
      nonce: 'n2',
      resources: [{ name: 'a', version: '3', resource: { typeUrl: TYPES.eds, value: cla('a') } }, { name: 'gone', version: '' }],
      removedResources: ['x', 'y'],
    });
    const r = readDeltaDiscoveryResponse(bytes);
    assert.deepEqual([r.typeUrl, r.nonce, r.removedResources], [TYPES.eds, 'n2', ['x', 'y']]);
    assert.deepEqual(r.resources.map((x) => x.name), ['a', 'gone']);
    assert.ok(same(r.resources[0]!.body, cla('a')));
    assert.equal(r.resources[1]!.body, undefined, 'no resource field: a name that does not exist');
  });

  const clusters: { name: string; cluster: Record<string, unknown>; want: readonly string[] }[] = [
    { name: 'given an EDS cluster with a service name should ask for that name', cluster: { name: 'c', type: 'EDS', edsClusterConfig: { serviceName: 'svc-eds', edsConfig: { ads: {} } } }, want: ['svc-eds'] },
    { name: 'given an EDS cluster without a service name should ask for the cluster name', cluster: { name: 'c', type: 'EDS', edsClusterConfig: { edsConfig: { ads: {} } } }, want: ['c'] },
    { name: 'given a cluster with an empty EDS config should ask for the cluster name', cluster: { name: 'c', type: 'EDS', edsClusterConfig: {} }, want: ['c'] },
    { name: 'given a STATIC cluster should ask for nothing', cluster: { name: 'c', type: 'STATIC', connectTimeout: { seconds: 1 } }, want: [] },
  ];
  for (const c of clusters) it(c.name, () => assert.deepEqual(edsNamesOfCluster(encode(TYPES.cds, c.cluster), () => 'c'), c.want));

  it('given truncated bytes should throw a RangeError, not read past the message', () => {
    const bytes = encode('envoy.service.discovery.v3.DiscoveryResponse', { typeUrl: TYPES.eds, resources: [{ typeUrl: TYPES.eds, value: cla('a') }] });
    assert.throws(() => readDiscoveryResponse(bytes.subarray(0, bytes.length - 3)), RangeError);
  });

  it('given random responses should read what protobufjs wrote', () => {
    const name = fc.string({ maxLength: 40 });
    fc.assert(
      fc.property(fc.array(name, { maxLength: 8 }), name, name, fc.array(name, { maxLength: 4 }), (names, nonce, version, removed) => {
        const sotw = readDiscoveryResponse(encode('envoy.service.discovery.v3.DiscoveryResponse', { versionInfo: version, typeUrl: TYPES.eds, nonce, resources: names.map((n) => ({ typeUrl: TYPES.eds, value: cla(n) })) }));
        assert.deepEqual([sotw.versionInfo, sotw.nonce, sotw.bodies.map(leadingName)], [version, nonce, names]);
        const delta = readDeltaDiscoveryResponse(
          encode('envoy.service.discovery.v3.DeltaDiscoveryResponse', { typeUrl: TYPES.eds, nonce, resources: names.map((n) => ({ name: n, resource: { typeUrl: TYPES.eds, value: cla(n) } })), removedResources: removed }),
        );
        assert.deepEqual([delta.nonce, delta.resources.map((x) => x.name), delta.resources.map((x) => leadingName(x.body!)), delta.removedResources], [nonce, names, names, removed]);
      }),
      { numRuns: 200, seed: 13 },
    );
  });
});
