/**
 * The effective MeshOperator of an install, as istioctl builds it: the base profile (`default`), the
 * chosen profile over it, the `-f` files left to right, then `--set` (maps merge, lists and scalars
 * replace); validated against the MeshOperator schema.
 */
import { validateConfig } from '../../crds/index.js';
import type { GoMap } from '../../templates/index.js';
import { mergeValues } from '../coalesce-values.js';
import { MeshOperatorError } from './mesh-operator-error.js';
import { BASE_PROFILE, MESH_OPERATOR_API_VERSION, PROFILES_DIR, readMeshOperatorFile, readProfile } from './profiles.js';
import { applySets } from './set-overrides.js';

/** Inputs of {@link resolveMeshOperator}. */
export interface ResolveOptions {
  /** MeshOperator files (`-f`), overlaid left to right. */
  readonly files?: readonly string[];
  /** Specs already read (e.g. from the cluster), overlaid after the files. */
  readonly overlays?: readonly GoMap[];
  /** `--set` arguments, applied last. */
  readonly sets?: readonly string[];
  /** `--revision`: wins over every other source. */
  readonly revision?: string;
  /** The profiles folder (default the shipped one). */
  readonly profilesDir?: string;
  /** `--force`: a schema error is passed here (to print as a warning) instead of failing. */
  readonly onInvalid?: (message: string) => void;
}

/** The result of {@link resolveMeshOperator}. */
export interface ResolvedMeshOperator {
  /** The profile chosen (`spec.profile`, default `default`). */
  readonly profile: string;
  /** The merged spec, validated. */
  readonly spec: GoMap;
}

/** Merges two MeshOperator specs: `b` over `a`, maps recursively, lists and scalars replaced. */
export function mergeSpecs(a: GoMap, b: GoMap): GoMap {
  return mergeValues(a, b);
}

/**
 * Validates a MeshOperator spec against the install.mesh.io MeshOperator schema and semantic checks.
 * @throws MeshOperatorError listing each error with its field (`spec.components.pilot.enabled: ...`)
 */
export function validateMeshOperatorSpec(spec: GoMap, origin: string): void {
  const result = validateConfig({ apiVersion: MESH_OPERATOR_API_VERSION, kind: 'MeshOperator', metadata: { name: 'installed-state' }, spec });
  if (result.ok) return;
  const lines = result.errors.map((e) => `${e.path === '' ? '' : `${e.path}: `}${e.message}`);
  throw new MeshOperatorError(`${origin}: invalid MeshOperator: ${lines.join('; ')}`);
}

const describeInputs = (o: ResolveOptions): string => {
  const parts: string[] = [];
  if (o.files && o.files.length > 0) parts.push(`-f ${o.files.join(',')}`);
  if (o.sets && o.sets.length > 0) parts.push(`--set ${o.sets.join(',')}`);
  return parts.length > 0 ? parts.join(' ') : 'profile';
};

/** Builds the effective MeshOperator spec from a profile, files and `--set`s (see the file comment). */
export function resolveMeshOperator(options: ResolveOptions = {}): ResolvedMeshOperator {
  const dir = options.profilesDir ?? PROFILES_DIR;
  let user: GoMap = {};
  for (const f of options.files ?? []) user = mergeSpecs(user, readMeshOperatorFile(f));
  for (const o of options.overlays ?? []) user = mergeSpecs(user, o);
  // NOTE: the profile may come from a --set; the sets are applied again on the merged tree so that list
  // indexes (components.ingressGateways[0]) address the profile's lists, as istioctl does.
  const probe = applySets(structuredClone(user), options.sets ?? []);
  const profile = probe['profile'] ?? BASE_PROFILE;
  if (typeof profile !== 'string' || profile === '') throw new MeshOperatorError(`${describeInputs(options)}: spec.profile must be a non-empty string`);
  let spec = readProfile(BASE_PROFILE, dir);
  if (profile !== BASE_PROFILE) spec = mergeSpecs(spec, readProfile(profile, dir));
  spec = mergeSpecs(spec, user);
  applySets(spec, options.sets ?? []);
  if (options.revision !== undefined && options.revision !== '') spec['revision'] = options.revision;
  spec['profile'] = profile;
  try {
    validateMeshOperatorSpec(spec, describeInputs(options));
  } catch (e) {
    if (!(e instanceof MeshOperatorError) || options.onInvalid === undefined) throw e;
    options.onInvalid(e.message);
  }
  return { profile, spec };
}
