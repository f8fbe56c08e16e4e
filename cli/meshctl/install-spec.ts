/**
 * What install, upgrade, uninstall and verify-install read from their flags: the MeshOperator (`-f` files
 * overlaid left to right, `--set`, `--revision`), validated against the MeshOperator schema, and the
 * objects it renders to, labelled for their owner.
 *
 * NOTE: profiles come with the profiles work (branch `profiles`); until it lands only the `default`
 * profile renders (generateManifests fails loudly for others).
 */
import { readFileSync } from 'node:fs';
import { validateConfig } from '../../crds/index.js';
import { DEFAULT_OWNER, manifestObjects, mergeValues, type InstallOwner, type ManifestObject } from '../../install/index.js';
import { unmarshalYAML, type GoMap } from '../../templates/index.js';
import { CliError, type FlagValues } from '../framework/index.js';
import { applySets, generateManifests } from './manifest-generate-command.js';

/** The namespace the control plane is installed into. */
export const MESH_NAMESPACE = 'mesh-system';

/** Istio's component names for the charts meshctl renders. */
const COMPONENT_NAMES = { base: 'Base', meshd: 'Pilot' } as const;

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A MeshOperator as the flags give it. */
export interface InstallSpec {
  /** metadata.name of the first `-f` file that has one, else {@link DEFAULT_OWNER}. */
  readonly name: string;
  readonly spec: GoMap;
  readonly owner: InstallOwner;
  /** Where the spec came from, for messages. */
  readonly origin: string;
}

/** Reads MeshOperator `files` (overlaid left to right), `--set` and `--revision` into a MeshOperator spec. */
export function readInstallSpec(flags: FlagValues, files: readonly string[]): InstallSpec {
  let spec: GoMap = {};
  let name = '';
  for (const file of files) {
    let doc: unknown;
    try {
      doc = unmarshalYAML(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CliError(`-f ${file}: ${(e as Error).message}`);
    }
    if (doc === null) continue;
    if (!isMap(doc)) throw new CliError(`-f ${file}: expected a MeshOperator object`);
    if (doc['kind'] !== undefined && doc['kind'] !== 'MeshOperator') throw new CliError(`-f ${file}: kind ${String(doc['kind'])} is not MeshOperator`);
    const meta = doc['metadata'];
    if (name === '' && isMap(meta) && typeof meta['name'] === 'string') name = meta['name'];
    const s = doc['spec'] ?? {};
    if (!isMap(s)) throw new CliError(`-f ${file}: spec is not a map`);
    spec = mergeValues(spec, s);
  }
  if (flags.has('set')) applySets(spec, flags.strings('set'));
  const revision = flags.has('revision') ? flags.string('revision') : '';
  if (revision !== '') spec['revision'] = revision;
  const rev = typeof spec['revision'] === 'string' ? spec['revision'] : '';
  const owner = { name: name || DEFAULT_OWNER, namespace: MESH_NAMESPACE, revision: rev };
  return { name: owner.name, spec, owner, origin: files.length > 0 ? `-f ${files.join(',')}` : '--set' };
}

/**
 * Validates the MeshOperator against its schema; returns the problems as lines (empty when valid).
 */
export function validateInstallSpec(s: InstallSpec): string[] {
  const res = validateConfig({ apiVersion: 'install.mesh.io/v1alpha1', kind: 'MeshOperator', metadata: { name: s.name, namespace: MESH_NAMESPACE }, spec: s.spec });
  return res.ok ? [] : res.errors.map((e) => `${s.origin}: MeshOperator ${e.path}: ${e.message}`);
}

/** Renders the spec's components (base, then meshd) into labelled objects. */
export function renderInstallObjects(s: InstallSpec): ManifestObject[] {
  const rendered = generateManifests(s.spec, ['base', 'meshd'], s.origin);
  return manifestObjects([...rendered].map(([c, text]) => ({ component: COMPONENT_NAMES[c], text })), s.owner);
}
