/**
 * What one MeshOperator resource asks for: its spec merged over its profile (install/profiles, as
 * `meshctl install -f` does), validated, rendered by component, and labelled for the resource as owner.
 */
import { COMPONENT_TITLE, manifestObjects, MeshOperatorError, renderMeshOperator, resolveMeshOperator, validateMeshOperatorSpec, type InstallOwner, type ManifestObject } from '../install/index.js';
import type { GoMap } from '../templates/index.js';

/** The MeshOperator CRD, which `meshctl operator init` installs and `operator remove` removes. */
export const MESH_OPERATOR_CRD_NAME = 'meshoperators.install.mesh.io';

/** Why a MeshOperator could not be turned into objects; `kind` picks the metric that counts it. */
export class DesiredStateError extends Error {
  override readonly name = 'DesiredStateError';
  constructor(
    /** `validation`: the spec breaks the schema; `merge`: profile or overlay failed; `render`: a chart failed. */
    readonly kind: 'validation' | 'merge' | 'render',
    message: string,
    /** For `render`: the component (`Pilot`, ...) whose chart failed, when known. */
    readonly component = '',
  ) {
    super(message);
  }
}

/** The objects of one MeshOperator. */
export interface DesiredState {
  /** The effective spec (profile + resource). */
  readonly spec: GoMap;
  readonly owner: InstallOwner;
  /** Labelled objects in install order (without the MeshOperator CRD: see {@link desiredObjects}). */
  readonly objects: readonly ManifestObject[];
  /** The components rendered (`Base`, `Pilot`, ...), in install order. */
  readonly components: readonly string[];
  /** Schema problems passed over because of `force` (one message). */
  readonly problems: string;
}

/** Inputs of {@link desiredObjects}. */
export interface DesiredObjectsInput {
  readonly name: string;
  readonly namespace: string;
  /** The resource's `spec` (`{}` when absent). */
  readonly spec: GoMap;
  /** `--force`: proceed past schema errors (they are still reported in `problems`). */
  readonly force: boolean;
  /** The profiles and charts folders (defaults: the shipped ones). */
  readonly profilesDir?: string;
  readonly chartsDir?: string;
}

/**
 * Resolves, validates and renders one MeshOperator.
 * @throws DesiredStateError naming the resource and, for schema errors, each field
 */
export function desiredObjects(input: DesiredObjectsInput): DesiredState {
  const origin = `MeshOperator ${input.namespace}/${input.name}`;
  let spec: GoMap;
  try {
    // NOTE: validation is done below, to name the resource instead of the profile in the message.
    spec = resolveMeshOperator({ overlays: [input.spec], onInvalid: () => {}, ...(input.profilesDir ? { profilesDir: input.profilesDir } : {}) }).spec;
  } catch (e) {
    if (e instanceof MeshOperatorError) throw new DesiredStateError('merge', `${origin}: ${e.message}`);
    throw e;
  }
  let problems = '';
  try {
    validateMeshOperatorSpec(spec, origin);
  } catch (e) {
    if (!(e instanceof MeshOperatorError)) throw e;
    if (!input.force) throw new DesiredStateError('validation', e.message);
    problems = e.message;
  }
  const revision = typeof spec['revision'] === 'string' ? spec['revision'] : '';
  const owner: InstallOwner = { name: input.name, namespace: input.namespace, revision };
  let releases;
  try {
    releases = renderMeshOperator(spec, input.chartsDir ? { chartsDir: input.chartsDir } : {});
  } catch (e) {
    if (e instanceof MeshOperatorError || e instanceof Error) throw new DesiredStateError('render', `${origin}: rendering: ${e.message}`);
    throw e;
  }
  let objects: ManifestObject[];
  try {
    objects = manifestObjects(releases.map((r) => ({ component: COMPONENT_TITLE[r.component], text: r.rendered.text })), owner);
  } catch (e) {
    throw new DesiredStateError('render', `${origin}: ${(e as Error).message}`);
  }
  // NOTE: the MeshOperator CRD is the operator's own (operator init/remove): owning it from a resource would
  // relabel it and delete it, with every MeshOperator, when that resource is deleted.
  objects = objects.filter((o) => !(o.kind === 'CustomResourceDefinition' && o.name === MESH_OPERATOR_CRD_NAME));
  const components = [...new Set(releases.map((r) => COMPONENT_TITLE[r.component]))];
  return { spec, owner, objects, components, problems };
}
