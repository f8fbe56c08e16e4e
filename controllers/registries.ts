/**
 * `--registries`: which service registries feed the model. ServiceEntry/WorkloadEntry are always on
 * (they are configs, folded by core's ServiceEntryView); `Mock` adds nothing else. The Orchestrator
 * registry is served with config from the CRDs (orch-registry/); beside `--configDir` files it is not
 * built yet, so the file sources refuse it.
 */

/** The registry names `--registries` accepts. */
export const REGISTRY_NAMES = ['Orchestrator', 'Mock'] as const;
export type RegistryName = (typeof REGISTRY_NAMES)[number];

/** A `--registries` value that cannot be served. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

/**
 * Checks the `--registries` list and returns the registries in use. Empty or `Mock`: services come
 * from ServiceEntry + WorkloadEntry only.
 * @throws RegistryError for unknown names, and `not implemented yet` for Orchestrator beside files.
 */
export function selectRegistries(names: readonly string[]): RegistryName[] {
  const out: RegistryName[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    if (!(REGISTRY_NAMES as readonly string[]).includes(name)) {
      throw new RegistryError(`--registries ${names.join(',')}: unknown registry "${name}" (use ${REGISTRY_NAMES.join(' or ')})`);
    }
    if (name === 'Orchestrator') throw new RegistryError('not implemented yet: the Orchestrator registry beside --configDir files');
    if (!out.includes(name as RegistryName)) out.push(name as RegistryName);
  }
  return out;
}
