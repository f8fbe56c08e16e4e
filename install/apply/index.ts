// install/apply: the apply engine (server-side apply, readiness, prune) shared by meshctl and the operator.
export { ApplyError, apiReasonOf, apiStatusOf, type ApplyClient, type ApplyRequestOptions } from './apply-client.js';
export * from './install-labels.js';
export { manifestObjects, objectRef, type ComponentManifest, type ManifestObject } from './manifest-object.js';
export { readiness, type Readiness } from './readiness.js';
export { collectionPath, objectPathOf, INSTALLED_KINDS, ResourceMapper, type ResourceInfo } from './resource-mapper.js';
export { ManifestApplier, MESHCTL_FIELD_MANAGER, type ApplyProgress, type LiveObject, type ManifestApplierOptions, type PlannedChange } from './manifest-applier.js';
