/**
 * The sources of meshd without `--configDir` and with `--registries Orchestrator`: mesh.io config from the
 * CRDs and the Orchestrator registry, over meshd's one orchestrator client (orch-connection.ts), with
 * their metrics and logs. Kept apart from the `--configDir` wiring.
 */
import type { Logging, Metrics } from '../../core/index.js';
import { orchDiscoverySources, type CrdStatusReport, type OrchClient, readDiscoverySelectors, readMeshConfig, type RejectedConfigs, type SourceSet } from '../../controllers/index.js';
import type { DiscoveryOptions } from './discovery-options.js';

/**
 * Builds the orchestrator sources. Throws before anything runs for a bad kubeconfig, client setting or
 * mesh config `discoverySelectors`. `onStatus` (given when PILOT_ENABLE_STATUS) hears what the CRD config
 * source concluded about each object generation.
 */
export function orchestratorSources(
  flags: DiscoveryOptions,
  deps: { logging: Logging; metrics: Metrics },
  client: OrchClient,
  onStatus?: (r: CrdStatusReport) => void,
  /** Kept up to date with the objects the CRD source currently refuses (`/debug/rejectedz`). */
  rejections?: RejectedConfigs,
): SourceSet {
  const { logging, metrics } = deps;
  const env = flags.env;
  const meshConfig = readMeshConfig(flags.meshConfigFile);
  const regLog = logging.scope('orch');
  const cfgLog = logging.scope('orch');
  const rejected = metrics.counter('pilot_total_rejected_configs');
  const regEvents = metrics.counter('pilot_orch_reg_events');
  const cfgEvents = metrics.counter('pilot_orch_cfg_events');
  const pending = metrics.gauge('pilot_orch_endpoints_pending_pod');
  const noPods = metrics.counter('pilot_orch_endpoints_with_no_pods');
  const noPod = metrics.gauge('endpoint_no_pod');
  const noIp = metrics.gauge('pilot_no_ip');
  const watchNamespace = env.string('MESH_WATCH_NAMESPACE');
  return orchDiscoverySources({
    client,
    watchNamespace: watchNamespace === '' ? undefined : watchNamespace,
    meshConfigPath: flags.meshConfigFile,
    networksPath: flags.networksConfigFile,
    translation: {
      domain: flags.domain,
      clusterId: flags.clusterId,
      trustDomain: meshConfig.trustDomain,
      externalNameAlias: env.bool('ENABLE_EXTERNAL_NAME_ALIAS'),
      selectWorkloadEntries: env.bool('PILOT_ENABLE_ORCH_SELECT_WORKLOAD_ENTRIES'),
      optimizedServicePush: env.bool('MESH_ENABLE_OPTIMIZED_SERVICE_PUSH'),
    },
    selectPods: env.bool('PILOT_ENABLE_SERVICEENTRY_SELECT_PODS'),
    discoverySelectors: readDiscoverySelectors(flags.meshConfigFile),
    registryMetrics: {
      event: (type, event) => regEvents.inc({ type, event }),
      pendingPods: (n) => pending.set(n),
      endpointsWithoutPod: (n) => noPod.set(n),
      endpointsWithNoPodsSeen: (n) => noPods.inc(n),
      podsWithoutIp: (n) => noIp.set(n),
    },
    onCfgEvent: (type, event) => cfgEvents.inc({ type, event }),
    ...(onStatus ? { onStatus } : {}),
    onRejected: (r) => {
      rejected.inc({ type: r.kind });
      cfgLog.error({ kind: r.kind, name: r.name, resourceVersion: r.resourceVersion, errors: r.errors, servedResourceVersion: r.servedResourceVersion ?? null }, `config rejected: ${r.message}`);
    },
    onRecovered: (r) => cfgLog.info({ kind: r.kind, name: r.name }, 'config recovered: a valid version replaces the rejected one'),
    ...(rejections ? { rejections } : {}),
    onInformerError: (e) =>
      regLog.warn({ resource: e.resource, phase: e.phase, retryInMs: e.retryInMs, error: e.error instanceof Error ? e.error.message : String(e.error) }, 'orchestrator list or watch failed'),
    onFileError: (e) => regLog.error({ error: e.message }, 'mesh config source error'),
  });
}
