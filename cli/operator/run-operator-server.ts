/**
 * `operator server`: reads flags and environment once, builds logging and metrics, serves
 * self-monitoring on `--monitoring-host:--monitoring-port` and ControlZ, connects to the orchestrator
 * (`--orchconfig`, else `KUBECONFIG`, else in-cluster) and runs the MeshOperator reconciler (operator/)
 * on the namespaces of `MESH_WATCH_NAMESPACE`, under the Lease `mesh-operator-lock` in its own namespace
 * (ENABLE_LEADER_ELECTION, default true), until SIGTERM or SIGINT.
 */
import { createLogging, createMetrics, formatListenAddress, Lifecycle, loadEnv, SCOPES, startCtrlz, startMonitoringServer, type Env } from '../../core/index.js';
import { DEFAULT_ORCH_CLIENT_OPTIONS, loadOrchKubeConfig, OrchClient, type OrchConfigSource } from '../../controllers/index.js';
import { LeaderElector, leaderIdentity } from '../../reconcilers/index.js';
import { MeshOperatorReconciler, OPERATOR_LEASE_NAME, operatorNamespaceOf, parseWatchNamespaces } from '../../operator/index.js';
import { CliError, type FlagValues, type RunContext } from '../framework/index.js';
import { logOptionsFrom } from '../common/logging-flags.js';
import { exitAfterShutdown } from '../common/exit-after-shutdown.js';

/** The operator's graceful shutdown time. */
export const OPERATOR_SHUTDOWN_MS = 10_000;

/** The typed options of `operator server`. */
export interface OperatorServerOptions {
  readonly orchconfig: string;
  readonly ctrlz: { readonly address: string; readonly port: number };
  readonly force: boolean;
  readonly maxConcurrentReconciles: number;
  /** `host:port` built from `--monitoring-host` and `--monitoring-port`. */
  readonly monitoringAddr: string;
}

/** Where the cluster is: `--orchconfig`, else `KUBECONFIG`, else the in-cluster service address. */
export function operatorOrchSource(orchconfig: string, env: Env): OrchConfigSource {
  const kubeconfig = env.string('KUBECONFIG');
  const host = env.string('KUBERNETES_SERVICE_HOST');
  if (orchconfig !== '') return { orchconfig };
  if (kubeconfig) return { orchconfig: '', kubeconfigEnv: kubeconfig };
  if (host) return { orchconfig: '', inCluster: { serviceHost: host, servicePort: env.string('KUBERNETES_SERVICE_PORT') || '443' } };
  throw new CliError('operator server: no cluster configured: pass --orchconfig, set KUBECONFIG, or run in a pod (KUBERNETES_SERVICE_HOST)');
}

/** Reads the server's flags into options. */
export function operatorServerOptionsFrom(flags: FlagValues): OperatorServerOptions {
  const reconciles = flags.number('max-concurrent-reconciles');
  if (reconciles < 1) throw new Error(`--max-concurrent-reconciles must be at least 1, not ${reconciles}`);
  const port = flags.number('monitoring-port');
  if (port > 65535) throw new Error(`--monitoring-port ${port}: not a port (0 to 65535)`);
  return {
    orchconfig: flags.string('orchconfig'),
    ctrlz: { address: flags.string('ctrlz_address'), port: flags.number('ctrlz_port') },
    force: flags.bool('force'),
    maxConcurrentReconciles: reconciles,
    monitoringAddr: formatListenAddress({ host: flags.string('monitoring-host'), port }),
  };
}

/** Runs the operator server until a signal; resolves with the exit code. */
export async function runOperatorServer(ctx: RunContext): Promise<number> {
  const env = loadEnv('operator', ctx.io.env);
  const options = operatorServerOptionsFrom(ctx.flags);
  let watchNamespaces: string[];
  let client: OrchClient;
  let contextNamespace: string | undefined;
  try {
    watchNamespaces = parseWatchNamespaces(env.string('MESH_WATCH_NAMESPACE'));
    const kc = loadOrchKubeConfig(operatorOrchSource(options.orchconfig, env));
    contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
    client = new OrchClient(kc, { ...DEFAULT_ORCH_CLIENT_OPTIONS, userAgent: 'mesh-operator' });
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`operator server: ${(e as Error).message}`);
  }
  const logging = createLogging(logOptionsFrom(ctx.flags), SCOPES.operator);
  const metrics = createMetrics('operator');
  const lifecycle = new Lifecycle();
  lifecycle.add('logging', () => logging.close());
  // NOTE: listen for signals before starting anything: a SIGTERM during start-up stops cleanly.
  const stopped = lifecycle.runUntilSignal(OPERATOR_SHUTDOWN_MS);
  try {
    const monitoring = await startMonitoringServer({ address: options.monitoringAddr, flagName: 'monitoring-port', metrics });
    lifecycle.add('monitoring', () => monitoring.close());
    const ctrlz = await startCtrlz({ address: options.ctrlz.address, port: options.ctrlz.port, logging, metrics, program: 'operator', env });
    lifecycle.add('ctrlz', () => ctrlz.close());
    const log = logging.scope('installer');
    const reconciler = new MeshOperatorReconciler({
      client,
      watchNamespaces,
      maxConcurrent: options.maxConcurrentReconciles,
      force: options.force,
      metrics,
      logger: log,
    });
    if (env.bool('ENABLE_LEADER_ELECTION')) {
      const namespace = operatorNamespaceOf(contextNamespace);
      const elector = new LeaderElector({ client, namespace, name: OPERATOR_LEASE_NAME, identity: leaderIdentity(undefined), logger: log });
      elector.runWhileLeading(reconciler);
      elector.start();
      lifecycle.add('leader-election', () => elector.stop());
      log.info({ lease: `${namespace}/${OPERATOR_LEASE_NAME}` }, 'campaigning for leadership');
    } else {
      reconciler.start();
      lifecycle.add('reconciler', () => reconciler.stop());
    }
    logging.root.info({ monitoring: monitoring.address.port, watchNamespaces: watchNamespaces.length === 0 ? 'all' : watchNamespaces.join(',') }, 'operator started');
  } catch (e) {
    if (!lifecycle.closing) {
      await lifecycle.close(OPERATOR_SHUTDOWN_MS);
      throw e;
    }
  }
  return exitAfterShutdown(await stopped, OPERATOR_SHUTDOWN_MS, ctx.io.stderr);
}
