import assert from 'node:assert/strict';
import { encode, lookupType } from '../../../xds/index.js';
import { nodeObject } from '../../../xds/testing/index.js';
import { TYPES } from './bench-client.js';
import { DeltaSubscriptions, SotwSubscriptions, type NamedBody } from './subscriptions.js';

const NODE = { id: 'sidecar~10.0.0.1~a.ns~ns.svc.cluster.local', cluster: 'a.ns', metadata: {}, locality: {} };
const cla = (name: string): Uint8Array => encode('envoy.config.endpoint.v3.ClusterLoadAssignment', { clusterName: name });
const anyOf = (name: string): { typeUrl: string; value: Uint8Array } => ({ typeUrl: TYPES.eds, value: cla(name) });

/** A stand-in for the client's reference lookup: resource `x` refers to `x-ref`. */
const REFS = (_type: string, r: NamedBody): readonly string[] => [`${r.name}-ref`];

function deltaRequest(b: Buffer): Record<string, unknown> {
  const t = lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  return t.toObject(t.decode(b), { defaults: false }) as Record<string, unknown>;
}

describe('bench:xds subscriptions', () => {
  it('given delta subscriptions should send the node once, subscribe and unsubscribe the difference, and nothing when unchanged', () => {
    const s = new DeltaSubscriptions(NODE, REFS);
    const first = deltaRequest(s.subscribe(TYPES.eds, ['a', 'b']));
    assert.deepEqual(first['resourceNamesSubscribe'], ['a', 'b']);
    assert.ok(first['node'], 'the first request carries the node');
    const change = deltaRequest(s.follow(TYPES.eds, ['c', 'b'])!);
    assert.deepEqual([change['resourceNamesSubscribe'], change['resourceNamesUnsubscribe'], change['node']], [['c'], ['a'], undefined]);
    assert.equal(s.follow(TYPES.eds, ['b', 'c']), undefined);
  });

  it('given delta responses should hold what was added, drop what was removed, and ACK with the nonce only', () => {
    const s = new DeltaSubscriptions(NODE, REFS);
    s.subscribe(TYPES.eds, ['a', 'b']);
    const response = (nonce: string, names: string[], removed: string[]): Buffer =>
      Buffer.from(encode('envoy.service.discovery.v3.DeltaDiscoveryResponse', { typeUrl: TYPES.eds, nonce, resources: names.map((n) => ({ name: n, version: '1', resource: anyOf(n) })), removedResources: removed }));
    const r1 = s.receive(response('n1', ['a', 'b'], []));
    assert.deepEqual(r1.heldNames(), ['a', 'b']);
    const r2 = s.receive(response('n2', ['c'], ['a']));
    assert.deepEqual([r2.changed.map((x) => x.name), r2.heldNames()], [['c'], ['b', 'c']]);
    assert.deepEqual(r2.references(), ['b-ref', 'c-ref'], 'the references of what is held, the removed one\'s gone');
    assert.deepEqual(deltaRequest(s.ack(TYPES.eds)), { typeUrl: TYPES.eds, responseNonce: 'n2' });
  });

  it('given SotW references that change and change back should ask again each time they differ from what was asked', () => {
    const s = new SotwSubscriptions(NODE, REFS);
    s.subscribe(TYPES.eds, ['a', 'b']);
    const first = ['b', 'a'];
    assert.equal(s.follow(TYPES.eds, first), undefined, 'the same names in another order');
    assert.equal(s.follow(TYPES.eds, first), undefined);
    const t = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
    const asked = (b: Buffer | undefined): unknown => (b ? (t.toObject(t.decode(b)) as { resourceNames: string[] }).resourceNames : undefined);
    assert.deepEqual(asked(s.follow(TYPES.eds, ['c', 'a'])), ['a', 'c']);
    assert.deepEqual(asked(s.follow(TYPES.eds, first)), ['a', 'b'], 'back to the first list, which is no longer what is asked');
  });

  it('given SotW responses should hold exactly the last response and ACK with its version, nonce and the names', () => {
    const s = new SotwSubscriptions(NODE, REFS);
    s.subscribe(TYPES.eds, ['b', 'a']);
    const r = s.receive(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { typeUrl: TYPES.eds, versionInfo: 'v7', nonce: 'n7', resources: [anyOf('a')] })));
    assert.deepEqual(r.heldNames(), ['a']);
    const t = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
    const ack = t.toObject(t.decode(s.ack(TYPES.eds)), { defaults: false });
    assert.deepEqual(ack, { typeUrl: TYPES.eds, versionInfo: 'v7', responseNonce: 'n7', resourceNames: ['b', 'a'] });
  });

  it('given SotW requests built in parts should send the bytes of the whole request encoded at once, the node on the first only', () => {
    const s = new SotwSubscriptions(NODE, REFS);
    const names = ['outbound|80||b.ns.svc.cluster.local', 'outbound|80||a.ns.svc.cluster.local'];
    const whole = (msg: Record<string, unknown>): Buffer => Buffer.from(encode('envoy.service.discovery.v3.DiscoveryRequest', msg));
    const first = s.subscribe(TYPES.eds, names);
    assert.deepEqual(first, whole({ versionInfo: '', node: nodeObject(NODE), resourceNames: names, typeUrl: TYPES.eds, responseNonce: '' }));
    s.receive(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { typeUrl: TYPES.eds, versionInfo: 'v1', nonce: 'n1', resources: [anyOf('a')] })));
    assert.deepEqual(s.ack(TYPES.eds), whole({ versionInfo: 'v1', resourceNames: names, typeUrl: TYPES.eds, responseNonce: 'n1' }));
    s.receive(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { typeUrl: TYPES.eds, versionInfo: 'v2', nonce: 'n2', resources: [anyOf('a')] })));
    assert.deepEqual(s.ack(TYPES.eds), whole({ versionInfo: 'v2', resourceNames: names, typeUrl: TYPES.eds, responseNonce: 'n2' }), 'a second ACK with the names part reused');
    assert.deepEqual(s.subscribe(TYPES.cds, []), whole({ versionInfo: '', resourceNames: [], typeUrl: TYPES.cds, responseNonce: '' }));
  });
});
