// The public surface of core/: shared runtime pieces with no imports from other folders of ours.
export * from './duration.js';
export * from './clock/index.js';
export * from './program.js';
export * from './model/push-request.js';
export * from './model/push-snapshot.js';
export * from './env/index.js';
// model, collections, rx (owned by the model/push-pipeline work)
export * from './model/config.js';
export * from './model/service.js';
export * from './model/proxy.js';
export * from './model/mesh-config.js';
export * from './model/push-context.js';
export * from './model/mesh-model.js';
export * from './model/endpoint-shards.js';
export * from './collections/persistent-map.js';
export * from './model/event-log.js';
export * from './collections/indexed-collection.js';
export * from './collections/config-store.js';
export * from './collections/service-entry-view.js';
export * from './rx/debounce.js';
export * from './rx/turn-slicer.js';
export * from './log/index.js';
export * from './version.js';
export * from './metrics/index.js';
export * from './model/model-metrics.js';
export * from './lifecycle/index.js';
export * from './ctrlz/index.js';
