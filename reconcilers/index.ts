// The public surface of reconcilers/: the reconciler runtime, leader election and the write-side reconcilers.
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

export type { ConfigStatusReport } from './config-status-report.js';
export {
  ConfigStatusReconciler,
  CONFIG_STATUS_RECONCILER_NAME,
  RECONCILED_CONDITION,
  reconciledCondition,
  type ConfigStatusReconcilerOptions,
  type StatusCondition,
} from './config-status-reconciler.js';
export {
  WebhookCaBundleReconciler,
  caBundleProblem,
  WEBHOOK_CA_BUNDLE_RECONCILER_NAME,
  type WebhookCaBundleReconcilerOptions,
} from './webhook-ca-bundle-reconciler.js';
