/**
 * Maps an object's apiVersion and kind to its REST path through the API server's discovery documents
 * (`/api/v1`, `/apis/<group>/<version>`), cached per group-version. A miss re-reads the group-version once,
 * so kinds of CRDs applied a moment ago resolve.
 */
import { apiStatusOf, ApplyError, type ApplyClient } from './apply-client.js';

/** Where objects of one kind live. */
export interface ResourceInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

interface ApiResourceList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

/** The collection path of a resource (`namespace` ignored for cluster-scoped ones; omitted = all namespaces). */
export function collectionPath(info: ResourceInfo, namespace?: string): string {
  const prefix = info.apiVersion.includes('/') ? `/apis/${info.apiVersion}` : `/api/${info.apiVersion}`;
  const scope = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${prefix}${scope}/${info.plural}`;
}

/** The path of one object. */
export function objectPathOf(info: ResourceInfo, name: string, namespace?: string): string {
  return `${collectionPath(info, namespace)}/${encodeURIComponent(name)}`;
}

/** Discovery-backed kind -> resource mapping (see the file comment). */
export class ResourceMapper {
  readonly #client: ApplyClient;
  readonly #cache = new Map<string, Map<string, ResourceInfo>>();

  constructor(client: ApplyClient) {
    this.#client = client;
  }

  /** Forgets what discovery said (after CRDs were added or removed). */
  reset(): void {
    this.#cache.clear();
  }

  /**
   * The resource serving `kind` in `apiVersion`.
   * @throws ApplyError naming the kind when the API server serves no such kind
   */
  async resolve(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ResourceInfo> {
    const hit = this.#cache.get(apiVersion)?.get(kind);
    if (hit) return hit;
    const fresh = await this.#load(apiVersion, signal);
    const info = fresh.get(kind);
    if (!info) throw new ApplyError(`${kind}`, 'NotFound', `the API server serves no kind ${kind} in ${apiVersion}`);
    return info;
  }

  async #load(apiVersion: string, signal?: AbortSignal): Promise<Map<string, ResourceInfo>> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const kinds = new Map<string, ResourceInfo>();
    try {
      const list = await this.#client.request<ApiResourceList>('GET', path, { signal });
      for (const r of list.resources ?? []) {
        if (r.name.includes('/')) continue; // NOTE: subresources (deployments/status) share the kind.
        kinds.set(r.kind, { apiVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced });
      }
    } catch (e) {
      if (apiStatusOf(e) !== 404) throw e;
    }
    this.#cache.set(apiVersion, kinds);
    return kinds;
  }
}

/**
 * The kinds the charts install, where prune and uninstall look for labelled objects (Istio's installer
 * keeps the same kind of list). Kinds of API groups the server does not serve are skipped.
 */
export const INSTALLED_KINDS: readonly ResourceInfo[] = [
  { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', namespaced: false },
  { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', namespaced: false },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true },
  { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', plural: 'roles', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false },
];
