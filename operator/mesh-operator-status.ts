/**
 * The `status` the operator writes on a MeshOperator: Istio's IstioOperator status fields (`status`:
 * HEALTHY / RECONCILING / ERROR, `message`, `componentStatus` per component) plus what Kubernetes
 * controllers add (`observedGeneration` and a `Reconciled` condition carrying it). Pure functions, so
 * that a reconcile writes the status only when it changed (a status write is a watch event too).
 */
import { isDeepStrictEqual } from 'node:util';

/** The install states of Istio's operator (the MeshOperator CRD's enum). */
export type InstallStatus = 'NONE' | 'UPDATING' | 'RECONCILING' | 'HEALTHY' | 'ERROR' | 'ACTION_REQUIRED';

/** The condition type the operator maintains. */
export const RECONCILED_CONDITION_TYPE = 'Reconciled';

/** One component's state (`componentStatus.<Component>`). */
export interface ComponentStatus {
  readonly status: InstallStatus;
  /** Why it is not HEALTHY ('' or absent when it is). */
  readonly error?: string;
}

/** A Kubernetes condition (metav1.Condition). */
export interface OperatorCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration: number;
  readonly lastTransitionTime: string;
}

/** The whole `status` of a MeshOperator as the operator writes it. */
export interface MeshOperatorStatus {
  readonly status: InstallStatus;
  readonly message: string;
  readonly observedGeneration: number;
  readonly componentStatus: Readonly<Record<string, ComponentStatus>>;
  readonly conditions: readonly OperatorCondition[];
}

/** What one reconcile concluded. */
export interface ReconcileOutcome {
  readonly status: InstallStatus;
  readonly message: string;
  readonly components: Readonly<Record<string, ComponentStatus>>;
}

const REASONS: Readonly<Record<InstallStatus, string>> = {
  NONE: 'None',
  UPDATING: 'Updating',
  RECONCILING: 'Reconciling',
  HEALTHY: 'Healthy',
  ERROR: 'Error',
  ACTION_REQUIRED: 'ActionRequired',
};

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The previous `Reconciled` condition of a live status, if any. */
function previousCondition(previous: unknown): Obj | undefined {
  const conds = rec(previous)['conditions'];
  return Array.isArray(conds) ? conds.map(rec).find((c) => c['type'] === RECONCILED_CONDITION_TYPE) : undefined;
}

/**
 * The status for `outcome` at `generation`. The condition's `lastTransitionTime` stays that of `previous`
 * (the live status) while its `status` does not change, as Kubernetes conditions do.
 */
export function buildStatus(previous: unknown, outcome: ReconcileOutcome, generation: number, now: Date): MeshOperatorStatus {
  const condStatus = outcome.status === 'HEALTHY' ? 'True' : 'False';
  const prev = previousCondition(previous);
  const since = prev?.['status'] === condStatus && typeof prev['lastTransitionTime'] === 'string' ? prev['lastTransitionTime'] : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    status: outcome.status,
    message: outcome.message,
    observedGeneration: generation,
    componentStatus: outcome.components,
    conditions: [
      { type: RECONCILED_CONDITION_TYPE, status: condStatus, reason: REASONS[outcome.status], message: outcome.message, observedGeneration: generation, lastTransitionTime: since },
    ],
  };
}

/** Whether the live `status` differs from `next` (so that writing it is needed). */
export function statusDiffers(live: unknown, next: MeshOperatorStatus): boolean {
  const l = rec(live);
  return !isDeepStrictEqual(
    { status: l['status'], message: l['message'] ?? '', observedGeneration: l['observedGeneration'], componentStatus: l['componentStatus'] ?? {}, conditions: l['conditions'] ?? [] },
    JSON.parse(JSON.stringify(next)) as unknown,
  );
}

/**
 * A JSON merge patch of the status subresource that turns `live` into `next`: components that `live`
 * has and `next` does not, and an `error` a component no longer has, are set to null (removed), since a
 * merge patch merges maps.
 */
export function statusPatch(live: unknown, next: MeshOperatorStatus): { status: Obj } {
  const gone = Object.keys(rec(rec(live)['componentStatus'])).filter((k) => !(k in next.componentStatus));
  // NOTE: a merge patch also keeps a component's old `error` unless it is nulled.
  const componentStatus: Obj = Object.fromEntries(Object.entries(next.componentStatus).map(([k, c]) => [k, { status: c.status, error: c.error ?? null }]));
  for (const k of gone) componentStatus[k] = null;
  return { status: { ...next, componentStatus } };
}

/**
 * The overall state of per-component states: ERROR if any component failed, else RECONCILING if any is
 * not ready yet, else HEALTHY (also for no components at all).
 */
export function overallStatus(components: Readonly<Record<string, ComponentStatus>>): InstallStatus {
  const states = Object.values(components).map((c) => c.status);
  if (states.includes('ERROR')) return 'ERROR';
  if (states.some((s) => s !== 'HEALTHY')) return 'RECONCILING';
  return 'HEALTHY';
}
