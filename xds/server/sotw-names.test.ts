import assert from 'node:assert/strict';
import { encode } from '../protos/index.js';
import { protoRoot } from '../protos/root.js';
import { TYPE_URL } from './contracts.js';
import { decodeDiscoveryRequestLazily } from './request-wire.js';
import { SharedTable } from './shared-table.js';
import { knownRuns, namesStep, sentWithin, type NamesState } from './sotw-names.js';
import type { DiscoveryRequest } from './wire.js';

const request = (typeUrl: string, resourceNames: readonly string[]): DiscoveryRequest =>
  decodeDiscoveryRequestLazily(encode('envoy.service.discovery.v3.DiscoveryRequest', { typeUrl, resourceNames, versionInfo: 'v1', responseNonce: 'n1' }));
const state = (typeUrl: string, names: readonly string[], wildcard = false): NamesState => ({ typeUrl, names: SharedTable.EMPTY.withNames(names), wildcard });

describe('SotW request names steps (sotw-names.ts)', () => {
  before(() => protoRoot());

  const cases: { name: string; from: NamesState; names: string[]; same: boolean; after: string[]; wildcard: boolean; added: string[] }[] = [
    { name: 'an ACK naming the same names in another order', from: state(TYPE_URL.endpoint, ['a', 'b']), names: ['b', 'a'], same: true, after: ['a', 'b'], wildcard: false, added: [] },
    { name: 'a request adding a name (twice)', from: state(TYPE_URL.endpoint, ['a', 'b']), names: ['a', 'c', 'b', 'c'], same: false, after: ['a', 'b', 'c'], wildcard: false, added: ['c'] },
    { name: 'a request dropping a name', from: state(TYPE_URL.endpoint, ['a', 'b']), names: ['b'], same: false, after: ['b'], wildcard: false, added: [] },
    { name: 'an empty request of a wildcard type', from: state(TYPE_URL.cluster, []), names: [], same: false, after: [], wildcard: true, added: [] },
    { name: 'an empty request of a wildcard type already wildcard', from: state(TYPE_URL.cluster, [], true), names: [], same: true, after: [], wildcard: true, added: [] },
    { name: 'a request with * and a name', from: state(TYPE_URL.listener, []), names: ['*', 'x'], same: false, after: ['x'], wildcard: true, added: ['x'] },
  ];
  for (const c of cases) {
    it(`given ${c.name} should tell whether it changes the watch, and to what`, () => {
      const step = namesStep(c.from, request(c.from.typeUrl, c.names));
      assert.equal(step.same, c.same);
      assert.deepEqual([...step.names.sorted()], c.after);
      assert.equal(step.wildcard, c.wildcard);
      assert.deepEqual([...step.added].sort(), c.added);
    });
  }

  it('given two streams in the same state sending the same request should give both the same step, worked out once', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `outbound|80||s${i}.ns.svc.cluster.local`);
    const from = state(TYPE_URL.endpoint, names);
    const more = [...names, 'outbound|80||new.ns.svc.cluster.local'];
    const req = request(TYPE_URL.endpoint, more);
    const first = namesStep({ ...from }, req);
    const second = namesStep({ ...from }, request(TYPE_URL.endpoint, more));
    assert.equal(second, first, 'the second stream reuses the first one\'s step');
    assert.ok(first.key?.equals(req.resourceNamesKey!), 'the step keeps the request names bytes');
    assert.notEqual(first.key!.buffer, req.resourceNamesKey!.buffer, 'a copy of its own, not a view of the request');
    assert.deepEqual(first.added, ['outbound|80||new.ns.svc.cluster.local']);
    assert.equal(first.names.size, 1001);
  });

  it('given a step worked out from a state should offer its names bytes to the next stream in that state, which decodes them as that run', () => {
    const names = Array.from({ length: 200 }, (_, i) => `outbound|80||k${i}.ns.svc.cluster.local`);
    const from = state(TYPE_URL.endpoint, names);
    assert.deepEqual(knownRuns(from), [], 'nothing known from a new state');
    const more = [...names, 'outbound|80||new.ns.svc.cluster.local'];
    const step = namesStep(from, request(TYPE_URL.endpoint, more));
    assert.deepEqual(knownRuns(from), [step.key], 'the step\'s bytes');
    assert.deepEqual(knownRuns({ ...from, typeUrl: TYPE_URL.cluster }), [], 'not for another type');
    const bytes = encode('envoy.service.discovery.v3.DiscoveryRequest', { typeUrl: TYPE_URL.endpoint, resourceNames: more, responseNonce: 'n2' });
    const again = decodeDiscoveryRequestLazily(bytes, knownRuns(from));
    assert.equal(again.resourceNamesKey, step.key, 'found whole, as the known run');
    assert.equal(namesStep({ ...from }, again), step);
  });

  it('given the same table and bytes in another type or wildcard state should work the step out again', () => {
    const from = state(TYPE_URL.endpoint, ['a']);
    const onEds = namesStep(from, request(TYPE_URL.endpoint, []));
    const onCds = namesStep({ ...from, typeUrl: TYPE_URL.cluster }, request(TYPE_URL.cluster, []));
    assert.equal(onEds.wildcard, false);
    assert.equal(onCds.wildcard, true, 'an empty CDS request is a wildcard one');
    const fromWildcard = namesStep({ ...from, wildcard: true }, request(TYPE_URL.endpoint, ['a']));
    assert.equal(namesStep(from, request(TYPE_URL.endpoint, ['a'])).same, true);
    assert.equal(fromWildcard.same, false, 'dropping the wildcard changes the watch');
  });

  it('given sent names and the names now watched should keep only the watched ones, once per pair of tables', () => {
    const sent = SharedTable.EMPTY.withNames(['a', 'b', 'c']);
    const watched = SharedTable.EMPTY.withNames(['a', 'c', 'd']);
    const within = sentWithin(sent, watched);
    assert.deepEqual([...within.sorted()], ['a', 'c']);
    assert.equal(sentWithin(sent, watched), within);
    assert.deepEqual([...sentWithin(sent, SharedTable.EMPTY.withNames(['b'])).sorted()], ['b']);
  });
});
