/**
 * The installation profiles in manifests/profiles/ (`<name>.yaml`, each a MeshOperator overlay) and
 * MeshOperator files: reading them with errors that name the file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { unmarshalYAML, type GoMap } from '../../templates/index.js';
import { MeshOperatorError } from './mesh-operator-error.js';

// NOTE: code runs compiled from dist/install/profiles/; the profiles live in the source tree.
/** The folder of the shipped profiles. */
export const PROFILES_DIR = fileURLToPath(new URL('../../../manifests/profiles/', import.meta.url));

/** The profile every other profile is merged over (Istio's base profile). */
export const BASE_PROFILE = 'default';

/** The MeshOperator's apiVersion. */
export const MESH_OPERATOR_API_VERSION = 'install.mesh.io/v1alpha1';

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The profile names in `dir` (default {@link PROFILES_DIR}), sorted. */
export function listProfiles(dir: string = PROFILES_DIR): string[] {
  if (!existsSync(dir)) throw new MeshOperatorError(`profiles directory ${dir} does not exist`);
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
}

/**
 * Parses MeshOperator YAML text and returns its `spec` (`{}` for an empty document).
 * @throws MeshOperatorError naming `origin` when it is not YAML, not a MeshOperator, or its spec is no map
 */
export function parseMeshOperator(text: string, origin: string): GoMap {
  let doc: unknown;
  try {
    doc = unmarshalYAML(text);
  } catch (e) {
    throw new MeshOperatorError(`${origin}: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isMap(doc)) throw new MeshOperatorError(`${origin}: expected a MeshOperator object`);
  if (doc['kind'] !== undefined && doc['kind'] !== 'MeshOperator') throw new MeshOperatorError(`${origin}: kind ${String(doc['kind'])} is not MeshOperator`);
  if (doc['apiVersion'] !== undefined && doc['apiVersion'] !== MESH_OPERATOR_API_VERSION) {
    throw new MeshOperatorError(`${origin}: apiVersion ${String(doc['apiVersion'])} is not ${MESH_OPERATOR_API_VERSION}`);
  }
  const spec = doc['spec'] ?? {};
  if (!isMap(spec)) throw new MeshOperatorError(`${origin}: spec is not a map`);
  return spec;
}

/** Reads a MeshOperator file and returns its `spec`. */
export function readMeshOperatorFile(file: string): GoMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new MeshOperatorError(`-f ${file}: ${(e as Error).message}`);
  }
  return parseMeshOperator(text, `-f ${file}`);
}

/**
 * The spec of profile `name` alone (not merged over the base profile). A name ending in `.yaml` or
 * holding a `/` is read as a file, as istioctl does.
 */
export function readProfile(name: string, dir: string = PROFILES_DIR): GoMap {
  if (name.endsWith('.yaml') || name.includes('/')) return readMeshOperatorFile(name);
  const names = listProfiles(dir);
  if (!names.includes(name)) throw new MeshOperatorError(`profile "${name}" does not exist (available: ${names.join(', ')})`);
  return parseMeshOperator(readFileSync(`${dir.endsWith('/') ? dir : `${dir}/`}${name}.yaml`, 'utf8'), `profile ${name}`);
}
