/**
 * Whether an applied object is ready, as Istio's installer waits for it: a Deployment (or DaemonSet) has
 * observed its generation and has every replica updated and available, a CRD is Established, anything else
 * (webhook configurations included) is ready once it exists.
 */

/** The answer of {@link readiness}: ready, or why not. */
export interface Readiness {
  readonly ready: boolean;
  /** Why not ('' when ready). */
  readonly why: string;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown, d = 0): number => (typeof v === 'number' ? v : d);

function condition(status: Obj, type: string): string | undefined {
  const conds = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const c = conds.map(rec).find((x) => x['type'] === type);
  return typeof c?.['status'] === 'string' ? c['status'] : undefined;
}

/** The readiness of a live object of `kind`. */
export function readiness(kind: string, live: Obj): Readiness {
  const status = rec(live['status']);
  const generation = num(rec(live['metadata'])['generation']);
  switch (kind) {
    case 'Deployment': {
      const want = num(rec(live['spec'])['replicas'], 1);
      if (num(status['observedGeneration']) < generation) return { ready: false, why: 'generation not observed yet' };
      const updated = num(status['updatedReplicas']);
      const available = num(status['availableReplicas']);
      if (updated < want || available < want) return { ready: false, why: `${available}/${want} replicas available` };
      return { ready: true, why: '' };
    }
    case 'DaemonSet': {
      const want = num(status['desiredNumberScheduled']);
      if (num(status['observedGeneration']) < generation) return { ready: false, why: 'generation not observed yet' };
      const available = num(status['numberAvailable']);
      if (available < want) return { ready: false, why: `${available}/${want} pods available` };
      return { ready: true, why: '' };
    }
    case 'CustomResourceDefinition':
      return condition(status, 'Established') === 'True' ? { ready: true, why: '' } : { ready: false, why: 'not Established' };
    default:
      return { ready: true, why: '' };
  }
}
