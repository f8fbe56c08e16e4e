/**
 * `pilot-discovery discovery`: reads flags and environment once, builds logging and metrics, starts
 * meshd's listeners and runs until SIGTERM or SIGINT, then closes everything within
 * `--shutdownDuration`.
 */
import { createLogging, createMetrics, Lifecycle, loadEnv, SCOPES } from '../../core/index.js';
import type { RunContext } from '../framework/index.js';
import { exitAfterShutdown } from '../common/exit-after-shutdown.js';
import { discoveryOptionsFrom, type DiscoveryOptions } from './discovery-options.js';
import { startMeshdServer, type MeshdServerOptions } from './meshd-server.js';
import { PIPELINE_FLAGS, startDiscoveryPipeline } from './discovery-pipeline.js';
import { caRootBundle$, startLeaderControllers } from './leader-controllers.js';
import { SECURE_FLAGS, secureSideCa, startSecureSide } from './secure-side.js';
import { serverOptions } from './meshd-server.js';
import { connectOrchestrator } from './orch-connection.js';
import { startMeshdWebhooks } from './meshd-webhooks.js';
import { refuseUnsupportedEnv } from '../../xds/index.js';
import { Subject } from 'rxjs';
import type { ConfigStatusReport } from '../../reconcilers/index.js';

/** Flags that parse but that nothing acts on yet (the parts that use them are being built). */
const NOT_ACTED_ON = ['caCertFile', 'clusterAliases', 'configDir', 'httpsAddr', 'orchconfig', 'meshConfig', 'networksConfig', 'profile', 'registries', 'secureGRPCAddr', 'tls-cipher-suites', 'tlsCertFile', 'tlsKeyFile'] as const;

/** The listener options of meshd from its options. */
export function meshdServerOptions(flags: DiscoveryOptions): MeshdServerOptions {
  return {
    grpcAddr: flags.grpcAddr,
    httpAddr: flags.httpAddr,
    monitoringAddr: flags.monitoringAddr,
    ctrlz: flags.ctrlz,
    keepalive: flags.keepalive,
    maxRecvMsgSize: flags.grpcLimits.maxRecvMsgSize,
    maxConcurrentStreams: flags.grpcLimits.maxConcurrentStreams,
    shutdownMs: flags.shutdownMs,
  };
}

/** Runs meshd until a signal; resolves with the exit code. */
export async function runDiscovery(ctx: RunContext): Promise<number> {
  const flags = discoveryOptionsFrom(ctx.flags, loadEnv('pilot-discovery', ctx.io.env));
  // NOTE: an option meshd cannot serve stops it before any listener or CA starts.
  refuseUnsupportedEnv(flags.env);
  const logging = createLogging(flags.log, SCOPES['pilot-discovery']);
  const log = logging.root;
  const metrics = createMetrics('pilot-discovery');
  const lifecycle = new Lifecycle();
  lifecycle.add('logging', () => logging.close());
  // NOTE: listen for signals before starting anything: a SIGTERM during start-up stops meshd cleanly.
  const stopped = lifecycle.runUntilSignal(flags.shutdownMs);
  try {
    // One orchestrator client for every part that talks to the cluster (orch-connection.ts).
    const orch = connectOrchestrator(flags);
    const server = await startMeshdServer(meshdServerOptions(flags), { logging, metrics, env: flags.env, lifecycle });
    // Secure side (secure-side.ts): CA, TLS listeners, xDS authentication.
    const secure = await startSecureSide(flags, { logging, metrics, lifecycle, grpcOptions: serverOptions(meshdServerOptions(flags)), orch });
    // Write side (reconcilers/, leader-elected) with the orchestrator configured: the CA's root bundle and,
    // with PILOT_ENABLE_STATUS and config from the CRDs, the config source's per-object outcome.
    // NOTE: started before the pipeline, so the status writer hears every report from the first one on.
    const statusReports = flags.env.bool('PILOT_ENABLE_STATUS') && !flags.configDir && orch ? new Subject<ConfigStatusReport>() : undefined;
    const ca = secureSideCa(secure);
    startLeaderControllers(flags, { logging, metrics, lifecycle }, { ...(ca ? { rootCert$: caRootBundle$(ca) } : {}), ...(statusReports ? { statusReports$: statusReports } : {}) }, orch);
    // Proxyless discovery pipeline (model, generators, ADS, debug routes): --configDir, else the orchestrator.
    const pipeline = startDiscoveryPipeline(flags, { logging, metrics, lifecycle }, server, orch, secure?.plaintextXdsAuth, statusReports && ((r) => statusReports.next(r)));
    if (pipeline && secure) secure.attachAds(pipeline.discovery.ads);
    // Webhooks (/inject, /validate) on the HTTPS listener, when it runs.
    if (secure) await startMeshdWebhooks(flags, { logging, metrics, lifecycle }, secure, orch);
    else log.info({}, 'no HTTPS listener: the injection and validation webhooks are off');
    const actedOn: readonly string[] = [...(pipeline ? PIPELINE_FLAGS : []), ...(secure ? SECURE_FLAGS : [])];
    const ignored = NOT_ACTED_ON.filter((name) => ctx.flags.changed(name) && !actedOn.includes(name));
    if (ignored.length > 0) log.warn({ flags: ignored }, 'flags accepted but not acted on yet');
    // Ready once every config and registry source has delivered its first full read (istiod waits for its
    // caches the same way) and the model has published a snapshot with it: the same condition refuses new
    // ADS streams before (MeshDiscovery.notReady), so a proxy connecting after /ready gets complete config.
    const discovery = pipeline?.discovery;
    server.setReadiness(() => discovery?.notReady());
    void pipeline?.sources.synced.then(() => log.info({}, 'config and registry sources synced'));
    metrics.gauge('startup_duration_seconds').set(process.uptime());
    const uptime = metrics.gauge('meshd_uptime_seconds');
    const uptimeTimer = setInterval(() => uptime.set(process.uptime()), 1000).unref();
    lifecycle.add('uptime', () => clearInterval(uptimeTimer));
    log.info(
      {
        grpc: server.grpcAddress.port,
        http: server.http.address.port,
        monitoring: server.monitoring.address.port,
        secureGrpc: secure?.grpcAddress.port,
        https: secure?.httpsAddress.port,
        namespace: flags.namespace,
        clusterID: flags.clusterId,
      },
      'meshd started',
    );
  } catch (e) {
    // A failure after a signal is part of stopping (start-up ran into closed parts); otherwise report it.
    if (!lifecycle.closing) {
      await lifecycle.close(flags.shutdownMs);
      throw e;
    }
  }
  return exitAfterShutdown(await stopped, flags.shutdownMs, ctx.io.stderr);
}
