/**
 * What install, upgrade, uninstall and verify-install read from their flags: the effective MeshOperator
 * (the profile, `-f` files overlaid left to right, `--set`, `--revision`: install/profiles'
 * resolveMeshOperator, validated against the MeshOperator schema), and the objects its enabled components
 * render to, labelled for their owner.
 */
import { readFileSync } from 'node:fs';
import { COMPONENT_TITLE, DEFAULT_OWNER, MeshOperatorError, manifestObjects, renderMeshOperator, resolveMeshOperator, type InstallOwner, type ManifestObject } from '../../install/index.js';
import { unmarshalYAML, type GoMap } from '../../templates/index.js';
import { CliError, type FlagValues } from '../framework/index.js';

/** The namespace the control plane is installed into. */
export const MESH_NAMESPACE = 'mesh-system';

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A MeshOperator as the flags give it. */
export interface InstallSpec {
  /** metadata.name of the first `-f` file that has one, else {@link DEFAULT_OWNER}. */
  readonly name: string;
  readonly spec: GoMap;
  readonly owner: InstallOwner;
  /** Where the spec came from, for messages. */
  readonly origin: string;
  /** Schema problems, one per line (empty when valid); `--force` proceeds past them. */
  readonly problems: readonly string[];
}

/** metadata.name of the first file that has one. */
function ownerNameOf(files: readonly string[]): string {
  for (const file of files) {
    let doc: unknown;
    try {
      doc = unmarshalYAML(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CliError(`-f ${file}: ${(e as Error).message}`);
    }
    const meta = isMap(doc) ? doc['metadata'] : undefined;
    if (isMap(meta) && typeof meta['name'] === 'string' && meta['name'] !== '') return meta['name'];
  }
  return DEFAULT_OWNER;
}

/** Reads the effective MeshOperator from `files`, `--set` and `--revision`. @throws CliError naming the input */
export function readInstallSpec(flags: FlagValues, files: readonly string[]): InstallSpec {
  const problems: string[] = [];
  let resolved;
  try {
    resolved = resolveMeshOperator({
      files,
      sets: flags.has('set') ? flags.strings('set') : [],
      ...(flags.has('revision') && flags.string('revision') !== '' ? { revision: flags.string('revision') } : {}),
      onInvalid: (message) => problems.push(message),
    });
  } catch (e) {
    if (e instanceof MeshOperatorError) throw new CliError(e.message);
    throw e;
  }
  const spec = resolved.spec;
  const rev = typeof spec['revision'] === 'string' ? spec['revision'] : '';
  const name = ownerNameOf(files);
  const owner = { name, namespace: MESH_NAMESPACE, revision: rev };
  return { name, spec, owner, origin: files.length > 0 ? `-f ${files.join(',')}` : '--set', problems };
}

/** The schema problems of the MeshOperator, as lines (empty when valid). */
export function validateInstallSpec(s: InstallSpec): readonly string[] {
  return s.problems;
}

/** Renders the spec's enabled components (base, meshd, gateways) into labelled objects, in install order. */
export function renderInstallObjects(s: InstallSpec): ManifestObject[] {
  let releases;
  try {
    releases = renderMeshOperator(s.spec);
  } catch (e) {
    if (e instanceof MeshOperatorError) throw new CliError(`${s.origin}: ${e.message}`);
    throw e;
  }
  return manifestObjects(releases.map((r) => ({ component: COMPONENT_TITLE[r.component], text: r.rendered.text })), s.owner);
}
