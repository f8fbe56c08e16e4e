/**
 * meshd's write side (reconcilers/), wired: leader election around the leader-only reconcilers, the config
 * status writer (PILOT_ENABLE_STATUS) and the root-certificate ConfigMap distribution (when the CA is
 * enabled). Runs only with the orchestrator configured (`--orchconfig` and `--registries` including
 * Orchestrator). Kept apart from the listener assembly and the discovery pipeline.
 */
import { Observable, of } from 'rxjs';
import type { Lifecycle, Logging, Metrics } from '../../core/index.js';
import type { MeshCa } from '../../ca/index.js';
import { InformerFactory, readDiscoverySelectors, type OrchClient } from '../../controllers/index.js';
import {
  ConfigStatusReconciler,
  LEASE_NAMES,
  LeaderElector,
  leaderIdentity,
  RootCertReconciler,
  type ConfigStatusReport,
  type LeaderTask,
} from '../../reconcilers/index.js';
import type { DiscoveryOptions } from './discovery-options.js';

/** The options this wiring reads. */
export type LeaderControllerOptions = Pick<
  DiscoveryOptions,
  'env' | 'namespace' | 'meshConfigFile'
>;

/** Streams other parts provide; a reconciler whose input is absent does not run. */
export interface LeaderControllerInputs {
  /** The CA's root bundle (see {@link caRootBundle$}); given when the CA is enabled. */
  readonly rootCert$?: Observable<string>;
  /** What the config source concluded per object; needed for PILOT_ENABLE_STATUS. */
  readonly statusReports$?: Observable<ConfigStatusReport>;
}

/** The root bundle of `ca` (its trusted roots as PEM, active first), now and after every rotation. */
export function caRootBundle$(ca: MeshCa): Observable<string> {
  return new Observable<string>((subscriber) => ca.onAuthority(() => subscriber.next(ca.trustBundlePem().map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join(''))));
}

/**
 * Starts the leader-only reconcilers that have their inputs, each under its own Lease (ENABLE_LEADER_ELECTION,
 * default true; when false they run at once), and registers their shutdown (stop, then release the lease)
 * on `lifecycle`. Returns the names of the reconcilers started. Throws before anything runs for a bad
 * kubeconfig, client setting or mesh config `discoverySelectors`.
 */
export function startLeaderControllers(
  o: LeaderControllerOptions,
  deps: { logging: Logging; metrics: Metrics; lifecycle: Lifecycle },
  inputs: LeaderControllerInputs,
  /** The orchestrator to write to (orch-connection.ts); without one the write side is off. */
  client: OrchClient | undefined,
): string[] {
  const { env } = o;
  const { logging, metrics, lifecycle } = deps;
  const log = logging.scope('controllers');
  if (!client) return [];
  const enableStatus = env.bool('PILOT_ENABLE_STATUS');
  if (enableStatus && !inputs.statusReports$) {
    // NOTE: only the CRD config source reports per-object outcomes; --configDir files carry no status.
    log.warn({}, 'PILOT_ENABLE_STATUS: status is written only for config read from the CRDs (no --configDir); the status writer is off');
  }
  if (!inputs.rootCert$) log.info({}, 'no CA root bundle: root-certificate ConfigMap distribution is off');
  if (!inputs.rootCert$ && !(enableStatus && inputs.statusReports$)) return [];
  const tasks: { lease: string; task: LeaderTask; name: string }[] = [];
  const queueMetrics = env.bool('MESH_ENABLE_CONTROLLER_QUEUE_METRICS') ? metrics : undefined;
  if (inputs.rootCert$) {
    const watched = env.string('MESH_WATCH_NAMESPACE');
    const watchNamespace = watched === '' ? undefined : watched;
    const reconciler = new RootCertReconciler({
      client,
      informers: new InformerFactory(client, { watchNamespace }),
      watchNamespace,
      rootCert$: inputs.rootCert$,
      // NOTE: read once at start, like the registry's discovery selectors.
      discoverySelectors$: of(readDiscoverySelectors(o.meshConfigFile)),
      enhancedResourceScoping: env.bool('ENABLE_ENHANCED_RESOURCE_SCOPING'),
      logger: log,
      metrics: queueMetrics,
    });
    tasks.push({ lease: LEASE_NAMES.namespaceController, task: reconciler, name: 'root-cert-configmap' });
  }
  if (enableStatus && inputs.statusReports$) {
    const writer = new ConfigStatusReconciler({
      client,
      reports$: inputs.statusReports$,
      qps: env.int('PILOT_STATUS_QPS'),
      burst: env.int('PILOT_STATUS_BURST'),
      maxWorkers: env.int('PILOT_STATUS_MAX_WORKERS'),
      logger: logging.scope('status'),
      metrics: queueMetrics,
    });
    writer.attach();
    lifecycle.add('status-reports', () => writer.detach());
    tasks.push({ lease: LEASE_NAMES.status, task: writer, name: 'config-status' });
  }
  if (!env.bool('ENABLE_LEADER_ELECTION')) {
    for (const { task, name } of tasks) {
      void Promise.resolve(task.start()).catch((err: unknown) => log.error({ controller: name, error: (err as Error).message }, 'controller failed to start'));
      lifecycle.add(name, () => task.stop());
    }
    return tasks.map((t) => t.name);
  }
  const identity = leaderIdentity(env.string('POD_NAME'));
  for (const { lease, task, name } of tasks) {
    const elector = new LeaderElector({ client, namespace: o.namespace, name: lease, identity, logger: log });
    elector.runWhileLeading(task);
    elector.start();
    lifecycle.add(name, () => elector.stop());
  }
  return tasks.map((t) => t.name);
}
