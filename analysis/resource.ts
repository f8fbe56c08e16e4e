/**
 * What analyzers read: one configuration object (a mesh.io resource or an orchestrator object such as a
 * Pod, Service or Namespace) with where it came from, so a finding can name its file and line.
 */

/** Where a resource was read: a file (with the line its document starts on) or the live cluster. */
export interface ResourceOrigin {
  readonly source: 'file' | 'cluster';
  /** The file name as given (`<stdin>` for standard input). */
  readonly file?: string;
  /** 1-based line of the document's start in `file`. */
  readonly line?: number;
}

/** Labels and annotations of a resource, always present (empty when the object has none). */
export interface ResourceMeta {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** One object under analysis. */
export interface Resource extends ResourceMeta {
  /** `group/version`, or `version` for the core group. */
  readonly apiVersion: string;
  /** API group; `''` for the core group (Pod, Service, Namespace, ...). */
  readonly group: string;
  readonly kind: string;
  /** `''` for cluster-scoped kinds. */
  readonly namespace: string;
  readonly name: string;
  /** The whole object as parsed. */
  readonly obj: Readonly<Record<string, unknown>>;
  readonly origin: ResourceOrigin;
}

/** Kinds of the orchestrator that live outside namespaces. */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'GatewayClass',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
]);

/** The identity key of a resource (`group/Kind/namespace/name`): one object per key, files win over the cluster. */
export function resourceKey(r: Pick<Resource, 'group' | 'kind' | 'namespace' | 'name'>): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}`;
}

/** The kind key analyzers index by: `group/Kind` (`/Pod`, `apps/Deployment`, `networking.mesh.io/Gateway`). */
export function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

/** How Istio users read a resource's name: `Kind namespace/name`, or `Kind name` without namespace. */
export function friendlyName(r: Pick<Resource, 'kind' | 'namespace' | 'name'>): string {
  return r.namespace === '' ? `${r.kind} ${r.name}` : `${r.kind} ${r.namespace}/${r.name}`;
}

/** The older friendly form `Kind name.namespace` (istioctl's suppression examples use it). */
export function legacyName(r: Pick<Resource, 'kind' | 'namespace' | 'name'>): string {
  return r.namespace === '' ? `${r.kind} ${r.name}` : `${r.kind} ${r.name}.${r.namespace}`;
}

/** `file:line` of a resource read from a file, else undefined. */
export function referenceOf(r: Pick<Resource, 'origin'>): string | undefined {
  const { file, line } = r.origin;
  if (file === undefined) return undefined;
  return line === undefined ? file : `${file}:${line}`;
}

function stringMap(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** The error {@link toResource} reports for an object that cannot be analyzed. */
export class ResourceShapeError extends Error {
  override readonly name = 'ResourceShapeError';
}

/**
 * Turns a parsed object into a {@link Resource}. A namespaced object without `metadata.namespace` gets
 * `defaultNamespace`.
 * @throws ResourceShapeError when apiVersion, kind or metadata.name is missing or not a string.
 */
export function toResource(obj: unknown, origin: ResourceOrigin, defaultNamespace: string): Resource {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ResourceShapeError('not an object with apiVersion, kind and metadata');
  const o = obj as Record<string, unknown>;
  const { apiVersion, kind } = o;
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ResourceShapeError('apiVersion is missing or not a string');
  if (typeof kind !== 'string' || kind === '') throw new ResourceShapeError('kind is missing or not a string');
  const meta = typeof o['metadata'] === 'object' && o['metadata'] !== null ? (o['metadata'] as Record<string, unknown>) : {};
  const name = meta['name'];
  if (typeof name !== 'string' || name === '') throw new ResourceShapeError(`${kind}: metadata.name is missing or not a string`);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const ns = meta['namespace'];
  const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? '' : typeof ns === 'string' && ns !== '' ? ns : defaultNamespace;
  return { apiVersion, group, kind, namespace, name, obj: o, origin, labels: stringMap(meta['labels']), annotations: stringMap(meta['annotations']) };
}
