import assert from 'node:assert/strict';
import { encode } from '../../../xds/index.js';
import { ReferenceCache, TYPES } from './bench-client.js';

const route = (cluster: string): Buffer =>
  Buffer.from(encode('envoy.config.route.v3.RouteConfiguration', { name: '8080', virtualHosts: [{ name: 'vh', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster } }] }] }));

describe('bench:xds reference cache', () => {
  it('given two variants of one route configuration in turn should decode each once and find the clusters each names', () => {
    const cache = new ReferenceCache();
    const a = cache.refs(TYPES.rds, '8080', route('outbound|8080||a'));
    const b = cache.refs(TYPES.rds, '8080', route('outbound|8080||b'));
    assert.deepEqual([a, b], [['outbound|8080||a'], ['outbound|8080||b']]);
    assert.equal(cache.refs(TYPES.rds, '8080', route('outbound|8080||a')), a, 'the first variant is still known');
    assert.equal(cache.refs(TYPES.rds, '8080', route('outbound|8080||b')), b);
  });

  it('given the same bytes under one key again (another copy) should give what was computed the first time, without computing', () => {
    const cache = new ReferenceCache();
    let computed = 0;
    const compute = (names: string[]) => (): string[] => (computed++, names);
    const first = cache.memo('sidecar|cds', Buffer.from('clusters-1'), compute(['x']));
    assert.equal(cache.memo('sidecar|cds', Buffer.from('clusters-1'), compute(['wrong'])), first);
    assert.deepEqual(cache.memo('sidecar|cds', Buffer.from('clusters-2'), compute(['y'])), ['y']);
    assert.deepEqual(cache.memo('grpc|cds', Buffer.from('clusters-1'), compute(['z'])), ['z'], 'another key is another table');
    assert.equal(computed, 3);
  });
});
