// The public surface of reconcilers/: the reconciler runtime, leader election and the write-side reconcilers.
import type { ConfigKey } from '../core/index.js';
export { SYSTEM_RECONCILE_CLOCK, sleepOn, type ReconcileClock } from './runtime/reconcile-clock.js';
export { WorkQueue, type QueueItem } from './runtime/work-queue.js';
export {
  ReconcileRunner,
  TerminalError,
  type ReconcileFunction,
  type ReconcileResult,
  type ReconcileRunnerOptions,
} from './runtime/reconcile-runner.js';
export {
  LeaderElector,
  LEASE_NAMES,
  DEFAULT_LEASE_TIMINGS,
  leaderIdentity,
  type LeaderElectorOptions,
  type LeaderTask,
} from './leader/leader-elector.js';
export {
  RootCertReconciler,
  ROOT_CERT_CONFIGMAP,
  ROOT_CERT_KEY,
  MESH_CONFIG_LABEL,
  ROOT_CERT_IGNORED_NAMESPACES,
  ROOT_CERT_RECONCILER_NAME,
  type RootCertReconcilerOptions,
} from './root-cert-reconciler.js';

/**
 * What the config source concluded about one mesh.io object it processed: the input of the status writer
 * ({@link ConfigStatusReconciler}). `key.kind` is the bare kind (`VirtualService`), `key.namespace` is ''
 * for cluster-scoped kinds, `generation` is the `metadata.generation` that was processed. A rejected
 * object carries a message saying what is wrong and where (it becomes the condition's message).
 */
export interface ConfigStatusReport {
  readonly key: ConfigKey;
  readonly generation: number;
  readonly outcome: { readonly accepted: true } | { readonly accepted: false; readonly message: string };
}
export {
  ConfigStatusReconciler,
  CONFIG_STATUS_RECONCILER_NAME,
  RECONCILED_CONDITION,
  reconciledCondition,
  type ConfigStatusReconcilerOptions,
  type StatusCondition,
} from './config-status-reconciler.js';
