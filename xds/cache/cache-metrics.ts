/** Maps the cache's metric hooks to the program's metric handles. */
import type { Metrics } from '../../core/index.js';
import type { XdsCacheMetrics } from './xds-cache.js';

/** XdsCacheMetrics recording xds_cache_reads{type}, xds_cache_evictions{type}, xds_cache_size, xds_cache_dependent_config_size. */
export function cacheMetricsFrom(metrics: Metrics): XdsCacheMetrics {
  const reads = metrics.counter('xds_cache_reads');
  const evictions = metrics.counter('xds_cache_evictions');
  const size = metrics.gauge('xds_cache_size');
  const deps = metrics.gauge('xds_cache_dependent_config_size');
  return {
    read: (type) => reads.inc({ type }),
    eviction: (type) => evictions.inc({ type }),
    size: (n) => size.set(n),
    dependentConfigs: (n) => deps.set(n),
  };
}
