/**
 * webhooks: sidecar injection (config, policy, templates, patches) and validation of mesh.io resources,
 * shared by meshd's :15017 webhooks and `meshctl orch-inject`. Imports core, crds and templates only.
 */
export * from './injection-config.js';
export { BUILTIN_TEMPLATES, BUILTIN_TEMPLATE_NAMES } from './builtin-templates.js';
export * from './inject-policy.js';
export { overlay, isObject, type JsonObject } from './pod-overlay.js';
export { PROXY_CONTAINER, INIT_CONTAINER, APP_PROBERS_ENV, PROMETHEUS_ANNOTATIONS_ENV, stableJson } from './pod-post-process.js';
export * from './sidecar-injector.js';
export { createPatch, applyPatch, JsonPatchError, type JsonPatchOperation } from './json-patch.js';
export * from './admission-review.js';
export * from './webhook-handler.js';
export * from './workload-inject.js';
export * from './webhook-configurations.js';
