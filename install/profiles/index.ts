/** install/profiles: profiles, MeshOperator merging and validation, and the MeshOperator -> releases mapping. */
export { MeshOperatorError } from './mesh-operator-error.js';
export { applySets, parseSets, type SetOverride, type SetPathPart } from './set-overrides.js';
export { BASE_PROFILE, MESH_OPERATOR_API_VERSION, PROFILES_DIR, listProfiles, parseMeshOperator, readMeshOperatorFile, readProfile } from './profiles.js';
export { mergeSpecs, resolveMeshOperator, validateMeshOperatorSpec, type ResolveOptions, type ResolvedMeshOperator } from './resolve-mesh-operator.js';
export { COMPONENT_CHART, COMPONENT_DIR, COMPONENT_NAMES, COMPONENT_TITLE, componentReleases, type ComponentName, type ComponentRelease } from './component-values.js';
export { chartsDirOf, parseComponentNames, renderMeshOperator, type RenderedRelease, type RenderMeshOperatorOptions } from './render-mesh-operator.js';
