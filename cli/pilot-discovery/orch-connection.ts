/**
 * How meshd reaches the orchestrator, decided once: `--orchconfig`, else `KUBECONFIG`, else the in-cluster
 * service address (`ORCH_SERVICE_HOST` or the platform's `KUBERNETES_SERVICE_HOST`, with
 * `KUBERNETES_SERVICE_PORT`). One client serves the config source, the registry, the CA and the
 * reconcilers, so they share one throttle (`--orchApiQPS`, `--orchApiBurst`).
 */
import { createOrchClient, type OrchClient, type OrchConfigSource } from '../../controllers/index.js';
import type { DiscoveryOptions } from './discovery-options.js';

type ConnectionOptions = Pick<DiscoveryOptions, 'env' | 'orchconfig' | 'orchApiQps' | 'orchApiBurst' | 'registries'>;

/** Where the cluster is, or undefined when nothing says (no flag, no KUBECONFIG, not in a pod). */
export function orchConfigSourceOf(o: ConnectionOptions): OrchConfigSource | undefined {
  const { env } = o;
  const kubeconfig = env.string('KUBECONFIG');
  const host = env.string('ORCH_SERVICE_HOST') || env.string('KUBERNETES_SERVICE_HOST');
  const port = env.string('KUBERNETES_SERVICE_PORT') || '443';
  if (o.orchconfig !== '') return { orchconfig: o.orchconfig };
  if (kubeconfig) return { orchconfig: '', kubeconfigEnv: kubeconfig };
  if (host) return { orchconfig: '', inCluster: { serviceHost: host, servicePort: port } };
  return undefined;
}

/**
 * The orchestrator client, when `--registries` includes Orchestrator and a cluster is configured.
 * Throws (before anything runs) for a kubeconfig that cannot be loaded or a bad client setting.
 */
export function connectOrchestrator(o: ConnectionOptions): OrchClient | undefined {
  if (!o.registries.includes('Orchestrator')) return undefined;
  const source = orchConfigSourceOf(o);
  if (!source) return undefined;
  const { env } = o;
  // NOTE: the spec's default content type is protobuf, which the client does not speak yet: unless the
  // variable is set (and then checked, refusing protobuf with a clear message), use JSON.
  const contentType = env.isSet('MESH_ORCH_CLIENT_CONTENT_TYPE') ? (env.string('MESH_ORCH_CLIENT_CONTENT_TYPE') ?? 'json') : 'json';
  return createOrchClient(source, { qps: o.orchApiQps, burst: o.orchApiBurst, contentType, userAgent: 'meshd' });
}
