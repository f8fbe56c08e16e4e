/**
 * Wires the proxyless discovery pipeline into meshd (kept apart from the listener assembly):
 * sources (controllers/: `--configDir`, `--meshConfig`, `--networksConfig`, `--registries`) ->
 * MeshDiscovery (xds/: model, generators, cache, ADS) on the discovery gRPC server, and the
 * debug routes on the debug HTTP and monitoring listeners when ENABLE_DEBUG_ON_HTTP (with `/debug/rejectedz`: the
 * configs the sources currently refuse, and `/debug`: the index of debug routes).
 */
import type { ServerResponse } from 'node:http';
import type { Lifecycle, Logging, Metrics } from '../../core/index.js';
import { tap } from 'rxjs';
import { discoverySources, readMeshConfig, readMeshNetworks, RejectedConfigs, SourceNotImplementedError, type CrdStatusReport, type OrchClient, type SourceSet } from '../../controllers/index.js';
import { MeshDiscovery, meshDiscoveryOptionsFromEnv, type XdsStreamAuth } from '../../xds/index.js';
import type { DiscoveryOptions } from './discovery-options.js';
import { addDebugIndex } from './debug-index.js';
import type { MeshdServer } from './meshd-server.js';
import { orchestratorSources } from './orch-sources.js';

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

/** The flags this wiring acts on (taken off the "not acted on yet" list). */
export const PIPELINE_FLAGS = ['configDir', 'meshConfig', 'networksConfig', 'registries', 'orchconfig', 'record'] as const;

/** The running pipeline and its sources (whose first sync gates /ready). */
export interface DiscoveryPipeline {
  readonly discovery: MeshDiscovery;
  readonly sources: SourceSet;
}

/**
 * Starts the pipeline when `--configDir` is given, or else when `--registries` includes Orchestrator
 * (CRD config + Orchestrator registry); returns undefined otherwise. Throws for a bad mesh config file
 * or orchestrator setting, before anything is served.
 */
export function startDiscoveryPipeline(
  flags: DiscoveryOptions,
  deps: { logging: Logging; metrics: Metrics; lifecycle: Lifecycle },
  server: MeshdServer,
  /** The orchestrator (orch-connection.ts), when configured. */
  client: OrchClient | undefined,
  /** XDS_AUTH_PLAINTEXT: the check of streams on the plaintext port (secure-side.ts); none by default. */
  plaintextXdsAuth?: XdsStreamAuth,
  /** PILOT_ENABLE_STATUS: hears the CRD config source's per-object outcome (orchestrator config only). */
  onStatus?: (r: CrdStatusReport) => void,
): DiscoveryPipeline | undefined {
  const orch = !flags.configDir && client !== undefined;
  const { logging, metrics, lifecycle } = deps;
  if (!flags.configDir && !orch) {
    if (flags.registries.includes('Orchestrator')) logging.scope('orch').warn({}, 'no --configDir and no orchestrator configured (--orchconfig, KUBECONFIG or in-cluster): meshd serves no config');
    return undefined;
  }
  // --configDir with the Orchestrator registry: files for config, the cluster for services. Mixing the two is
  // not built yet; without a cluster the registry is simply off (as when meshd runs on a laptop).
  let registries: readonly string[] = flags.registries;
  if (flags.configDir && registries.includes('Orchestrator')) {
    if (client) {
      throw new SourceNotImplementedError(
        'not implemented yet: --configDir together with the Orchestrator registry (use --registries Mock with files, or drop --configDir to read config from the CRDs)',
      );
    }
    logging.scope('orch').warn({}, 'no orchestrator configured (--orchconfig, KUBECONFIG or in-cluster): the Orchestrator registry is off; services come from ServiceEntry and WorkloadEntry');
    registries = registries.filter((r) => r !== 'Orchestrator');
  }
  const env = flags.env;
  const fileLog = logging.scope('file');
  const rejected = metrics.counter('pilot_total_rejected_configs');
  const rejections = new RejectedConfigs();
  // Without --configDir: mesh.io config from the CRDs and the Orchestrator registry (orch-sources.ts).
  const sources = orch ? orchestratorSources(flags, { logging, metrics }, client, onStatus, rejections) : discoverySources({
    configDir: flags.configDir,
    meshConfigPath: flags.meshConfigFile,
    networksPath: flags.networksConfigFile,
    namespace: flags.namespace,
    registries,
    rejections,
    onRejected: (r) => {
      rejected.inc({ type: r.kind });
      const served = r.served ? `; still serving the last valid version (${r.served.file} document ${r.served.document})` : '';
      fileLog.error({ file: r.file, document: r.document, kind: r.kind, name: r.name, errors: r.errors, served: r.served ?? null }, `config rejected: ${r.message}${served}`);
    },
    onRecovered: (r) => fileLog.info({ file: r.file, kind: r.kind, name: r.name }, 'config recovered: a valid version replaces the rejected one'),
    onError: (e) => fileLog.error({ error: e.message }, 'config source error'),
  });
  const configLog = logging.scope(orch ? 'orch' : 'file');
  // NOTE: one info line per accepted batch, with counts (a batch can hold thousands of configs).
  const inputs$ = sources.inputs$.pipe(
    tap((batch) => {
      const counts = { added: 0, updated: 0, deleted: 0 };
      for (const i of batch) if (i.kind === 'config') counts[i.event.type]++;
      if (counts.added + counts.updated + counts.deleted > 0) configLog.info({ ...counts, rejected: rejections.list().length }, 'configs accepted');
    }),
  );
  const options = meshDiscoveryOptionsFromEnv(env, flags.domain, metrics, { ads: logging.scope('ads'), delta: logging.scope('delta'), model: logging.scope('model') });
  // NOTE: start from the files' mesh config and networks, so the first PushContext is already right.
  const discovery = new MeshDiscovery({
    ...options,
    model: { ...options.model, meshConfig: readMeshConfig(flags.meshConfigFile), networks: readMeshNetworks(flags.networksConfigFile) },
    ...(flags.record ? { record: { path: flags.record } } : {}),
    // NOTE: gates new ADS streams (and /ready) on the sources' first sync and its first published push.
    unsynced: () => sources.unsynced(),
  });
  if (flags.record) logging.scope('model').info({ file: flags.record }, 'recording the event log');
  discovery.ads.register(server.grpc, { auth: plaintextXdsAuth });
  const sub = discovery.connect(inputs$);
  lifecycle.add('discovery', async () => {
    sub.unsubscribe();
    discovery.ads.close();
    await discovery.recorder?.close();
  });
  if (env.bool('ENABLE_DEBUG_ON_HTTP')) {
    for (const [path, handler] of discovery.debugRoutes) server.debugRoutes.set(path, handler);
    server.debugRoutes.set('/debug/rejectedz', (_req, res) => sendJson(res, { rejected: rejections.list() }));
    addDebugIndex(server.debugRoutes);
    // NOTE: pushes come first: a debug request starts only when no push is queued or running (or after the
    // limiter's maxYieldMs), so a stream of config dumps cannot hold pushes back (work-limiter.ts).
    server.debugWork.yieldTo(() => discovery.ads.idle());
  }
  return { discovery, sources };
}
