/** The identity of one config object, used at every seam instead of a parsed string. */

/** Identifies one config object: `kind/namespace/name` (namespace empty for cluster-scoped). */
export interface ConfigKey {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** The string form of a ConfigKey, used as a map key: `kind/namespace/name`. */
export function configKeyString(k: ConfigKey): string {
  return `${k.kind}/${k.namespace}/${k.name}`;
}

