import { KINDS, KIND_NAMES, type KindName } from '../kinds.js';
import type { KindDefinition } from '../schema/kind-definition.js';

/** Thrown by {@link kindOf} for an apiVersion/kind that mesh does not serve. */
export class UnknownKindError extends Error {
  /** `apiVersion` or `kind`: the field that is wrong. */
  readonly field: 'apiVersion' | 'kind';
  constructor(field: 'apiVersion' | 'kind', message: string) {
    super(message);
    this.name = 'UnknownKindError';
    this.field = field;
  }
}

/** The result of {@link kindOf}: the kind's name and definition, and the parsed group/version. */
export interface ResolvedKind {
  readonly name: KindName;
  readonly definition: (typeof KINDS)[KindName];
  readonly group: string;
  readonly version: string;
}

const GROUPS = new Set(KIND_NAMES.map((k) => KINDS[k].group));

/**
 * Resolves `apiVersion` (`group/version`) and `kind` to a mesh.io kind.
 * @throws UnknownKindError naming the group, version or kind that is not served, and what is.
 */
export function kindOf(apiVersion: string, kind: string): ResolvedKind {
  const slash = apiVersion.indexOf('/');
  if (slash <= 0 || slash !== apiVersion.lastIndexOf('/') || slash === apiVersion.length - 1) {
    throw new UnknownKindError('apiVersion', `apiVersion "${apiVersion}" is not of the form <group>/<version>`);
  }
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (!GROUPS.has(group)) {
    throw new UnknownKindError(
      'apiVersion',
      `apiVersion "${apiVersion}": group "${group}" is not a mesh API group (known: ${[...GROUPS].join(', ')})`,
    );
  }
  const name = KIND_NAMES.find((k) => KINDS[k].kind === kind);
  if (name === undefined || KINDS[name].group !== group) {
    const inGroup = KIND_NAMES.filter((k) => KINDS[k].group === group).join(', ');
    throw new UnknownKindError('kind', `unknown kind "${kind}" in group ${group} (known: ${inGroup})`);
  }
  const definition: KindDefinition = KINDS[name];
  if (!definition.versions.includes(version)) {
    throw new UnknownKindError(
      'apiVersion',
      `${kind} is not served in version "${version}" of ${group} (served: ${definition.versions.join(', ')})`,
    );
  }
  return { name, definition: KINDS[name], group, version };
}
