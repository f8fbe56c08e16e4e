/**
 * The labels the installer puts on every object it applies, as Istio's installer does (renamed): they tie an
 * object to the MeshOperator that owns it, its component and its revision, so that a later install prunes
 * what the manifest no longer holds and `uninstall` finds what to delete.
 */

/** The MeshOperator (name) an object was installed for. */
export const OWNING_RESOURCE_LABEL = 'install.operator.mesh.io/owning-resource';
/** The namespace of that MeshOperator. */
export const OWNING_RESOURCE_NAMESPACE_LABEL = 'install.operator.mesh.io/owning-resource-namespace';
/** The component (`Base`, `Pilot`, ...) an object belongs to. */
export const COMPONENT_LABEL = 'operator.mesh.io/component';
/** `Reconcile`: the installer manages the object. */
export const MANAGED_LABEL = 'operator.mesh.io/managed';
/** The control-plane revision (`default` for the unnamed one). */
export const REVISION_LABEL = 'mesh.io/rev';
/** The revision tag a tag webhook stands for. */
export const TAG_LABEL = 'mesh.io/tag';
/** The owner name when the MeshOperator has none (meshctl install without `-f`), as Istio's `installed-state`. */
export const DEFAULT_OWNER = 'installed-state';

/** Who owns an installation: the MeshOperator's name and namespace and the revision. */
export interface InstallOwner {
  readonly name: string;
  readonly namespace: string;
  /** '' or `default` for the default revision. */
  readonly revision: string;
}

/** The revision label's value for `revision` ('' is `default`). */
export function revisionLabelValue(revision: string): string {
  return revision === '' ? 'default' : revision;
}

/** The labels an object of `component` gets. */
export function installLabels(owner: InstallOwner, component: string): Record<string, string> {
  return {
    [OWNING_RESOURCE_LABEL]: owner.name,
    [OWNING_RESOURCE_NAMESPACE_LABEL]: owner.namespace,
    [COMPONENT_LABEL]: component,
    [MANAGED_LABEL]: 'Reconcile',
    [REVISION_LABEL]: revisionLabelValue(owner.revision),
  };
}

/** The label selector of every object `owner` installed (any component). */
export function ownerSelector(owner: InstallOwner): string {
  return `${OWNING_RESOURCE_LABEL}=${owner.name},${OWNING_RESOURCE_NAMESPACE_LABEL}=${owner.namespace},${REVISION_LABEL}=${revisionLabelValue(owner.revision)}`;
}
