/**
 * Merges a rendered template (a partial pod) into a pod the way Kubernetes' strategic merge patch does for
 * the fields templates touch: maps merge key by key, lists of named things (containers, volumes, env,
 * mounts, ports, image pull secrets) merge by their key, other lists and scalars are replaced. A `null`
 * (an empty YAML section such as `containers:` with no items) changes nothing: Istio decodes rendered
 * templates into a Pod, where an empty section is simply absent.
 */

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** List fields merged by key, and the key. */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  imagePullSecrets: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
};

/** True for a JSON object (not an array, not null). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Returns `base` with `patch` merged in (neither is changed). */
export function overlay(base: unknown, patch: unknown, field = ''): unknown {
  if (Array.isArray(patch) && Array.isArray(base) && MERGE_KEYS[field] !== undefined) return mergeList(base, patch, MERGE_KEYS[field]);
  if (!isObject(patch) || !isObject(base)) return structuredClone(patch);
  const out: JsonObject = structuredClone(base);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) continue;
    out[k] = k in out ? overlay(out[k], v, k) : structuredClone(v);
  }
  return out;
}

function mergeList(base: unknown[], patch: unknown[], key: string): unknown[] {
  const out = structuredClone(base);
  for (const item of patch) {
    const k = isObject(item) ? item[key] : undefined;
    const at = k === undefined ? -1 : out.findIndex((b) => isObject(b) && b[key] === k);
    if (at >= 0) out[at] = overlay(out[at], item);
    else out.push(structuredClone(item));
  }
  return out;
}
