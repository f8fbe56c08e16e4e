// operator/: the MeshOperator reconciler (render, server-side apply, prune, status) behind `operator server`,
// and the operator's own manifest (`meshctl operator init|dump|remove`).
export {
  MeshOperatorReconciler,
  MESH_OPERATOR_RESOURCE,
  MESH_OPERATOR_RECONCILER_NAME,
  OPERATOR_FIELD_MANAGER,
  OPERATOR_FINALIZER,
  OPERATOR_LEASE_NAME,
  type MeshOperatorReconcilerOptions,
} from './mesh-operator-reconciler.js';
export { desiredObjects, DesiredStateError, MESH_OPERATOR_CRD_NAME, type DesiredObjectsInput, type DesiredState } from './desired-objects.js';
export {
  buildStatus,
  overallStatus,
  statusDiffers,
  statusPatch,
  RECONCILED_CONDITION_TYPE,
  type ComponentStatus,
  type InstallStatus,
  type MeshOperatorStatus,
  type OperatorCondition,
  type ReconcileOutcome,
} from './mesh-operator-status.js';
export { DEFAULT_OPERATOR_NAMESPACE, parseWatchNamespaces, operatorNamespaceOf } from './operator-settings.js';
export { operatorImage, operatorManifest, operatorName, OPERATOR_COMPONENT, type OperatorManifestOptions } from './operator-manifest.js';
