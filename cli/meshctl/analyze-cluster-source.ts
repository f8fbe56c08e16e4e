/**
 * Reads the live cluster for `meshctl analyze`: one list request per kind the analyzers read (namespaces,
 * pods, services, config maps, secrets, deployments, webhooks and every mesh.io kind), turned into
 * analysis resources. A mesh.io kind whose CRD is not installed (404) is skipped. For the multi-cluster
 * analyzers it also reads the Services of the remote clusters the local cluster's remote secrets name.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { toResource, type ClusterResources, type Resource } from '../../analysis/index.js';
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
 * Lists every object of `type` across all namespaces before `deadline` (epoch ms). A 404 (a CRD not
 * installed) gives no objects.
 * @throws OrchApiError for an answer other than 404, or the transport's error when the cluster is unreachable
 */
async function listAll(client: OrchTransport, type: OrchResource, deadline: number): Promise<Resource[]> {
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
}

/**
 * Lists every object of the analyzed types, across all namespaces, each request bounded by `timeoutMs`.
 * @throws OrchApiError for an answer other than 404, or the transport's error when the cluster is unreachable
 */
export async function readClusterResources(client: OrchTransport, timeoutMs: number): Promise<Resource[]> {
  const deadline = Date.now() + timeoutMs;
  const lists = await Promise.all(clusterResourceTypes().map((type) => listAll(client, type, deadline)));
  return lists.flat();
}

/** The label of a remote secret (a kubeconfig per data key, as `meshctl create-remote-secret` writes them). */
export const MULTI_CLUSTER_SECRET_LABEL = 'mesh/multiCluster';

/** One remote cluster's kubeconfig, from a remote secret of the local cluster. */
export interface RemoteClusterConfig {
  /** The cluster's name: the kubeconfig's current context's cluster, as istioctl analyze names it. */
  readonly cluster: string;
  readonly kubeConfig: KubeConfig;
  /** Where it came from, for messages: `Secret mesh-system/name` and the data key. */
  readonly secret: string;
  readonly key: string;
}

/** A remote secret entry that could not be used, with where and why. */
export interface RemoteClusterProblem {
  readonly secret: string;
  readonly key: string;
  readonly message: string;
}

/**
 * The remote clusters named by the local cluster's remote secrets: Secrets in `meshNamespace` labelled
 * `mesh/multiCluster: "true"`, one kubeconfig per data key (as istioctl analyze reads them). A kubeconfig
 * that does not parse, has no current context, or names the local cluster or a cluster already read is a
 * problem of its secret and key, and is skipped.
 */
export function remoteClusterConfigs(
  localResources: readonly Resource[],
  meshNamespace: string,
  localCluster: string,
): { configs: RemoteClusterConfig[]; problems: RemoteClusterProblem[] } {
  const configs: RemoteClusterConfig[] = [];
  const problems: RemoteClusterProblem[] = [];
  const seen = new Set([localCluster]);
  const secrets = localResources.filter((r) => r.group === '' && r.kind === 'Secret' && r.namespace === meshNamespace && r.labels[MULTI_CLUSTER_SECRET_LABEL] === 'true');
  for (const s of secrets.sort((a, b) => a.name.localeCompare(b.name))) {
    const secret = `Secret ${s.namespace}/${s.name}`;
    const data = s.obj['data'];
    const entries = typeof data === 'object' && data !== null ? Object.entries(data as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)) : [];
    for (const [key, value] of entries) {
      const kc = new KubeConfig();
      try {
        if (typeof value !== 'string') throw new Error('the value is not a base64 string');
        kc.loadFromString(Buffer.from(value, 'base64').toString('utf8'));
      } catch (e) {
        problems.push({ secret, key, message: `not a kubeconfig: ${(e as Error).message.split('\n')[0] ?? ''}` });
        continue;
      }
      const context = kc.getContextObject(kc.getCurrentContext());
      if (!context) {
        // NOTE: istioctl skips such an entry silently; naming it tells the user why a cluster is missing.
        problems.push({ secret, key, message: 'the kubeconfig has no current context; skipped' });
        continue;
      }
      const cluster = context.cluster;
      if (seen.has(cluster)) {
        problems.push({ secret, key, message: `names cluster "${cluster}", ${cluster === localCluster ? 'the local cluster' : 'a cluster already read'}; skipped` });
        continue;
      }
      seen.add(cluster);
      configs.push({ cluster, kubeConfig: kc, secret, key });
    }
  }
  return { configs, problems };
}

/**
 * Lists the Services of each remote cluster (the only kind the multi-cluster analyzers read, as istioctl
 * reads remote clusters), in parallel, each bounded by `timeoutMs`. A cluster that cannot be read is a
 * problem of its secret and key; the others are kept.
 */
export async function readRemoteClusters(
  configs: readonly RemoteClusterConfig[],
  clientFor: (kc: KubeConfig) => OrchTransport,
  timeoutMs: number,
): Promise<{ clusters: ClusterResources[]; problems: RemoteClusterProblem[] }> {
  const deadline = Date.now() + timeoutMs;
  const clusters: ClusterResources[] = [];
  const problems: RemoteClusterProblem[] = [];
  await Promise.all(
    configs.map(async (c) => {
      try {
        clusters.push({ cluster: c.cluster, resources: await listAll(clientFor(c.kubeConfig), ORCH_RESOURCES.services, deadline) });
      } catch (e) {
        problems.push({ secret: c.secret, key: c.key, message: `reading remote cluster "${c.cluster}": ${(e as Error).message}` });
      }
    }),
  );
  // NOTE: in the secrets' order, whichever answered first.
  const order = (cluster: string): number => configs.findIndex((c) => c.cluster === cluster);
  return { clusters: clusters.sort((a, b) => order(a.cluster) - order(b.cluster)), problems: problems.sort((a, b) => a.secret.localeCompare(b.secret) || a.key.localeCompare(b.key)) };
}
