/**
 * Reads the live cluster for `meshctl analyze`: one list request per kind the analyzers read (namespaces,
 * pods, services, config maps, secrets, deployments, webhooks and every mesh.io kind), turned into
 * analysis resources. A mesh.io kind whose CRD is not installed (404) is skipped.
 */
import { toResource, type Resource } from '../../analysis/index.js';
import { KINDS, KIND_NAMES } from '../../crds/index.js';
import { OrchApiError, ORCH_RESOURCES, resourcePath, type OrchResource, type OrchTransport } from '../../controllers/index.js';

const DEPLOYMENTS: OrchResource = { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true };

/** The resources analyze lists from the cluster. */
export function clusterResourceTypes(): OrchResource[] {
  const r = ORCH_RESOURCES;
  const builtin: OrchResource[] = [r.namespaces, r.nodes, r.pods, r.services, r.configMaps, r.secrets, DEPLOYMENTS, r.mutatingWebhookConfigurations, r.validatingWebhookConfigurations];
  const mesh = KIND_NAMES.filter((k) => KINDS[k].group.endsWith('mesh.io')).map((k) => {
    const d = KINDS[k];
    return { group: d.group, version: d.storageVersion, plural: d.plural, kind: d.kind, namespaced: d.scope === 'Namespaced' };
  });
  return [...builtin, ...mesh];
}

/**
 * Lists every object of the analyzed types, across all namespaces, each request bounded by `timeoutMs`.
 * @throws OrchApiError for an answer other than 404, or the transport's error when the cluster is unreachable
 */
export async function readClusterResources(client: OrchTransport, timeoutMs: number): Promise<Resource[]> {
  const deadline = Date.now() + timeoutMs;
  const lists = await Promise.all(
    clusterResourceTypes().map(async (type) => {
      let list: { items?: unknown[] } | undefined;
      for (let attempt = 0; list === undefined; attempt++) {
        try {
          list = await client.request<{ items?: unknown[] }>('GET', resourcePath(type), { timeoutMs: Math.max(1, deadline - Date.now()) });
        } catch (e) {
          if (e instanceof OrchApiError && e.status === 404) return [];
          // NOTE: 429/503 (a CRD's storage still initializing, the server shedding load) are retried with
          // capped backoff until the --timeout deadline.
          const retryable = e instanceof OrchApiError && (e.status === 429 || e.status === 503);
          const wait = Math.min(100 * 2 ** attempt, 2_000);
          if (!retryable || Date.now() + wait >= deadline) throw e;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
      const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
      return (list.items ?? []).flatMap((item) => {
        try {
          return [toResource({ ...(item as Record<string, unknown>), apiVersion, kind: type.kind }, { source: 'cluster' }, 'default')];
        } catch {
          // NOTE: the API server does not serve objects without a name; nothing to analyze.
          return [];
        }
      });
    }),
  );
  return lists.flat();
}
