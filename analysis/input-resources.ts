/**
 * Reads analysis inputs: YAML/JSON text (files, directories, standard input) into resources with file and
 * line, through crds/ parseConfigYaml (the project's bounded YAML reader); merges them over the cluster's.
 */
import { KINDS, KIND_NAMES, parseConfigYaml } from '../crds/index.js';
import { ISTIO_GROUPS, ORCH_GROUPS } from './kinds.js';
import { resourceKey, ResourceShapeError, toResource, type Resource } from './resource.js';

/** One input that could not be read as a resource, with where and why. */
export interface InputProblem {
  readonly file: string;
  /** 1-based document, 0 for the whole file. */
  readonly document: number;
  readonly message: string;
  /** True for a document of a kind analyze does not know (`--ignore-unknown` drops these). */
  readonly unknown: boolean;
}

/** Resources read from inputs and what could not be read. */
export interface InputResources {
  readonly resources: Resource[];
  readonly problems: InputProblem[];
}

const MESH_GROUPS: ReadonlySet<string> = new Set(KIND_NAMES.map((k) => KINDS[k].group));
const MESH_KINDS: ReadonlySet<string> = new Set(KIND_NAMES.map((k) => `${KINDS[k].group}/${KINDS[k].kind}`));

/**
 * Reads every document of one file's text. A namespaced document without a namespace gets
 * `defaultNamespace`. Bad YAML, a non-object document, a missing apiVersion/kind/name, an Istio API group
 * or a kind of no group analyze knows is a problem of its document; the rest are kept.
 */
export function resourcesFromText(text: string | Uint8Array, file: string, defaultNamespace: string): InputResources {
  const parsed = parseConfigYaml(text);
  if (!parsed.ok) return { resources: [], problems: [{ file, document: 0, message: parsed.error, unknown: false }] };
  const resources: Resource[] = [];
  const problems: InputProblem[] = [];
  for (const doc of parsed.documents) {
    const at = { file, document: doc.document };
    if (doc.error !== undefined) {
      problems.push({ ...at, message: doc.error, unknown: false });
      continue;
    }
    if (doc.value === null || doc.value === undefined) continue;
    let r: Resource;
    try {
      r = toResource(doc.value, { source: 'file', file, ...(doc.line !== undefined ? { line: doc.line } : {}) }, defaultNamespace);
    } catch (e) {
      if (e instanceof ResourceShapeError) {
        problems.push({ ...at, message: e.message, unknown: false });
        continue;
      }
      throw e;
    }
    if (ISTIO_GROUPS.has(r.group)) {
      const mesh = r.group.replace('istio.io', 'mesh.io');
      problems.push({ ...at, message: `${r.kind} ${r.name}: apiVersion "${r.apiVersion}" is Istio's API group; mesh serves ${mesh} (rename istio.io to mesh.io)`, unknown: true });
      continue;
    }
    if (MESH_GROUPS.has(r.group) && !MESH_KINDS.has(`${r.group}/${r.kind}`)) {
      problems.push({ ...at, message: `${r.kind} ${r.name}: unknown kind "${r.kind}" of API group ${r.group}`, unknown: true });
      continue;
    }
    if (!MESH_GROUPS.has(r.group) && !ORCH_GROUPS.has(r.group)) {
      problems.push({ ...at, message: `${r.kind} ${r.name}: unknown kind of apiVersion "${r.apiVersion}"`, unknown: true });
      continue;
    }
    resources.push(r);
  }
  return { resources, problems };
}

/** The cluster's resources with the files' laid over them: a file's object replaces the cluster's of the same key. */
export function mergeResources(cluster: readonly Resource[], files: readonly Resource[]): Resource[] {
  const byKey = new Map<string, Resource>();
  for (const r of cluster) byKey.set(resourceKey(r), r);
  for (const r of files) byKey.set(resourceKey(r), r);
  return [...byKey.values()];
}
