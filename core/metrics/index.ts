// Metrics: the spec's catalogue (METRICS) and per-program prom-client registries (createMetrics).
export * from './metric-declaration.js';
export * from './metric-catalogue.js';
export * from './create-metrics.js';
