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
});
