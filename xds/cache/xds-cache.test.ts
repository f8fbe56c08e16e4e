import assert from 'node:assert/strict';
import { createMetrics, parseConfigKey } from '../../core/index.js';
import { cacheMetricsFrom } from './cache-metrics.js';
import { XdsCache } from './xds-cache.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

describe('XdsCache', () => {
  it('given more entries than the bound should evict the least recently used and count it', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const c = new XdsCache({ maxSize: 2, metrics: cacheMetricsFrom(metrics) });
    c.set('a', bytes('a'), [], 1);
    c.set('b', bytes('b'), [], 1);
    assert.ok(c.get('a'), 'a is now the most recent');
    c.set('c', bytes('c'), [], 1);
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
      cache.set('eds', bytes('1'), ['ServiceEntry/qs/echo.qs.svc.cluster.local', 'kind:DestinationRule'], 1);
      cache.set('other', bytes('2'), ['ServiceEntry/qs/other.qs.svc.cluster.local'], 1);
      cache.clear(c.changed.map(parseConfigKey), 2);
      assert.deepEqual(cache.keys().sort(), c.left);
    });
  }

  const VS = ['kind:VirtualService', 'ServiceEntry/qs/echo'];
  const writes: { name: string; setup: (c: XdsCache) => void; token: number; stored: boolean }[] = [
    { name: 'given a write built before an invalidation of one of its dependencies should refuse it', setup: (c) => c.clear(['VirtualService/qs/echo'].map(parseConfigKey), 5), token: 4, stored: false },
    { name: 'given a write built from the invalidating snapshot should store it', setup: (c) => c.clear(['VirtualService/qs/echo'].map(parseConfigKey), 5), token: 5, stored: true },
    { name: 'given a write built before an invalidation of an unrelated config should store it', setup: (c) => c.clear(['AuthorizationPolicy/qs/deny'].map(parseConfigKey), 5), token: 4, stored: true },
    { name: 'given a write built before a clearAll should refuse it', setup: (c) => c.clearAll(5), token: 4, stored: false },
    { name: 'given a write built from an older snapshot than the entry held should keep the newer entry', setup: (c) => c.set('rds', bytes('new'), VS, 6), token: 4, stored: false },
    {
      name: 'given a write of a key whose entry an invalidation dropped, built before it, with other dependencies should refuse it',
      setup: (c) => {
        c.set('rds', bytes('held'), ['ServiceEntry/qs/other'], 3);
        c.clear(['ServiceEntry/qs/other'].map(parseConfigKey), 5);
      },
      token: 4,
      stored: false,
    },
  ];
  for (const w of writes) {
    it(w.name, () => {
      const c = new XdsCache({ maxSize: 10 });
      w.setup(c);
      const wrote = c.set('rds', bytes('built'), VS, w.token);
      assert.equal(wrote, w.stored);
      assert.equal(c.get('rds') !== undefined && Buffer.from(c.get('rds')!).toString() === 'built', w.stored);
    });
  }

  const reads: { name: string; setup: (c: XdsCache) => void; reader: number; hit: boolean }[] = [
    {
      name: 'given bytes built after a change of their input should not serve them to a reader of the snapshot before it',
      setup: (c) => {
        c.clear(['VirtualService/qs/echo'].map(parseConfigKey), 6);
        c.set('rds', bytes('built'), VS, 6);
      },
      reader: 5,
      hit: false,
    },
    {
      name: 'given bytes built from a newer snapshot whose inputs did not change since the reader\'s should serve them',
      setup: (c) => {
        c.clear(['VirtualService/qs/echo'].map(parseConfigKey), 3);
        c.clear(['AuthorizationPolicy/qs/deny'].map(parseConfigKey), 6);
        c.set('rds', bytes('built'), VS, 6);
      },
      reader: 5,
      hit: true,
    },
    { name: 'given bytes built from an older snapshot still held should serve them', setup: (c) => c.set('rds', bytes('built'), VS, 2), reader: 5, hit: true },
    {
      name: 'given bytes built after a clearAll newer than the reader\'s snapshot should not serve them',
      setup: (c) => {
        c.clearAll(6);
        c.set('rds', bytes('built'), VS, 6);
      },
      reader: 5,
      hit: false,
    },
  ];
  for (const r of reads) {
    it(r.name, () => {
      const c = new XdsCache({ maxSize: 10 });
      r.setup(c);
      assert.equal(c.get('rds', r.reader) !== undefined, r.hit);
      assert.ok(c.get('rds'), 'a reader that names no snapshot gets them');
    });
  }

  it('given more invalidated configs than it remembers should fold them into a floor and still refuse older writes', () => {
    const c = new XdsCache({ maxSize: 10, maxTokens: 2 });
    c.clear(['VirtualService/qs/a'].map(parseConfigKey), 3);
    c.clear(['VirtualService/qs/b', 'VirtualService/qs/c', 'VirtualService/qs/d'].map(parseConfigKey), 7);
    assert.equal(c.set('x', bytes('x'), ['VirtualService/qs/a'], 6), false, 'older than a forgotten invalidation');
    assert.equal(c.set('x', bytes('x'), ['VirtualService/qs/a'], 7), true);
  });

  it('given a bad bound should throw naming PILOT_XDS_CACHE_SIZE', () => {
    assert.throws(() => new XdsCache({ maxSize: 0 }), /PILOT_XDS_CACHE_SIZE=0/);
  });
});
