// The public surface of controllers/.
export * from './orch/index.js';
// file config source, mesh config and networks, registries (model/push-pipeline work)
export * from './file-config-source.js';
export * from './rejected-configs.js';
export * from './mesh-config-source.js';
export * from './registries.js';
export * from './discovery-sources.js';
export * from './source-set.js';
// orchestrator registry and CRD config source (issue 4)
export * from './crd-config-source.js';
export * from './orch-registry/index.js';
