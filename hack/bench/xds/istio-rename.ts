/**
 * The renaming that turns the benchmark's mesh.io config, node metadata and CRDs into what istiod reads
 * (mesh is Istio renamed: `istio` -> `mesh`), so the same harness can run istiod as the reference:
 * API groups `*.mesh.io` -> `*.istio.io`, `MESH_MUTUAL` -> `ISTIO_MUTUAL`, the workload label
 * `security.mesh.io/tlsMode: mesh` -> `security.istio.io/tlsMode: istio`, node metadata `MESH_VERSION`
 * -> `ISTIO_VERSION` (with an Istio version), and CRD names, groups and categories. Pure functions.
 */
import type { CustomResourceDefinition } from '../../../crds/index.js';

/** The version istiod's clients announce (`ISTIO_VERSION`); the reference build is master after 1.29. */
export const ISTIO_PROXY_VERSION = '1.29.0';

/** Groups of istiod's kinds; mesh.io kinds outside them (install.mesh.io) have no istiod counterpart here. */
const ISTIO_GROUPS = new Set(['networking.istio.io', 'security.istio.io', 'telemetry.istio.io', 'extensions.istio.io']);

/** One string (a value or a key) renamed: API groups, the mTLS mode, and label keys. */
export function renameString(s: string): string {
  return s
    .replace(/\b([a-z]+)\.mesh\.io\b/g, '$1.istio.io')
    .replace(/^mesh\.io\//, 'istio.io/')
    .replace(/\bMESH_MUTUAL\b/g, 'ISTIO_MUTUAL')
    .replace(/^mesh-io$/, 'istio-io')
    .replace(/^([a-z]+)-mesh-io$/, '$1-istio-io');
}

function renameKey(key: string): string {
  return key === 'MESH_VERSION' ? 'ISTIO_VERSION' : renameString(key);
}

/**
 * A config document (or any JSON value) renamed for istiod: every key and string value through
 * {@link renameString}, and the value of a `.../tlsMode` label `mesh` -> `istio`. Returns a copy.
 */
export function renameForIstio<T>(value: T): T {
  return renameValue(value, undefined) as T;
}

function renameValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && key.endsWith('/tlsMode') && value === 'mesh') return 'istio';
    if (key === 'ISTIO_VERSION') return ISTIO_PROXY_VERSION;
    return renameString(value);
  }
  if (Array.isArray(value)) return value.map((v) => renameValue(v, undefined));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const nk = renameKey(k);
      out[nk] = renameValue(v, nk);
    }
    return out;
  }
  return value;
}

/**
 * istiod's CRDs made from ours: the networking, security, telemetry and extensions kinds renamed
 * (name, group, categories, and enum values such as `ISTIO_MUTUAL`). Kinds of other groups are left out.
 */
export function istioCrds(crds: readonly CustomResourceDefinition[]): CustomResourceDefinition[] {
  return crds.map((c) => renameForIstio(c)).filter((c) => ISTIO_GROUPS.has(c.spec.group));
}
