import assert from 'node:assert/strict';
import { createMetrics } from '../../core/index.js';
import { cacheMetricsFrom } from './cache-metrics.js';
import { XdsCache } from './xds-cache.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

describe('XdsCache', () => {
  it('given more entries than the bound should evict the least recently used and count it', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const c = new XdsCache({ maxSize: 2, metrics: cacheMetricsFrom(metrics) });
    c.set('a', bytes('a'), []);
    c.set('b', bytes('b'), []);
    assert.ok(c.get('a'), 'a is now the most recent');
    c.set('c', bytes('c'), []);
    assert.deepEqual(c.keys(), ['a', 'c']);
    assert.equal(c.get('b'), undefined);
    const text = await metrics.text();
    assert.match(text, /^xds_cache_evictions\{type="size"\} 1$/m);
    assert.match(text, /^xds_cache_reads\{type="hit"\} 1$/m);
    assert.match(text, /^xds_cache_reads\{type="miss"\} 1$/m);
    assert.match(text, /^xds_cache_size 2$/m);
    assert.match(text, /^xds_cache_dependent_config_size 0$/m);
  });

  const clears = [
    { name: 'given a changed config key should clear the entries naming it', changed: ['ServiceEntry/qs/echo.qs.svc.cluster.local'], left: ['other'] },
    { name: 'given a change of a kind entries depend on wholesale should clear them', changed: ['DestinationRule/qs/anything'], left: ['other'] },
    { name: 'given an unrelated change should keep everything', changed: ['VirtualService/qs/x'], left: ['eds', 'other'] },
  ];
  for (const c of clears) {
    it(c.name, () => {
      const cache = new XdsCache({ maxSize: 10 });
      cache.set('eds', bytes('1'), ['ServiceEntry/qs/echo.qs.svc.cluster.local', 'kind:DestinationRule']);
      cache.set('other', bytes('2'), ['ServiceEntry/qs/other.qs.svc.cluster.local']);
      cache.clear(c.changed);
      assert.deepEqual(cache.keys().sort(), c.left);
    });
  }

  it('given a bad bound should throw naming PILOT_XDS_CACHE_SIZE', () => {
    assert.throws(() => new XdsCache({ maxSize: 0 }), /PILOT_XDS_CACHE_SIZE=0/);
  });
});
