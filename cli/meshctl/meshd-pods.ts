/**
 * meshd's pods as `admin log` and `version` find them: one named pod (`[<type>/]<name>[.<namespace>]`, in
 * `--meshNamespace` when it names none), or every running pod in `--meshNamespace` matching the label
 * selector (default `app=meshd`) and, with a revision, `mesh.io/rev=<revision>`.
 */
import { parsePodTarget, resolvePod, type PodObject, type ResolvedPod } from '../../inspect/index.js';
import type { MeshctlReach } from './meshctl-reach.js';

/** meshd's monitoring port: /metrics, /version and the debug interface. */
export const MESHD_MONITORING_PORT = 15014;

/** What to look for. */
export interface MeshdPodQuery {
  /** A pod named on the command line; the selector is not used then. */
  readonly target?: string | undefined;
  readonly selector: string;
  /** `--revision`; empty for any. */
  readonly revision: string;
}

/** The meshd pods to talk to; empty when none runs (the caller says what that means). */
export async function meshdPods(reach: MeshctlReach, q: MeshdPodQuery): Promise<ResolvedPod[]> {
  if (q.target !== undefined) return [await resolvePod(reach.api, parsePodTarget(q.target, reach.meshNamespace))];
  const selector = [q.selector, ...(q.revision !== '' ? [`mesh.io/rev=${q.revision}`] : [])].filter((s) => s !== '').join(',');
  const list = await reach.api.request<{ items?: PodObject[] }>('GET', `/api/v1/namespaces/${reach.meshNamespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
  return (list.items ?? [])
    .filter((p) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp === undefined)
    .map((p) => ({ namespace: reach.meshNamespace, name: p.metadata?.name ?? '', pod: p }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** How a pod is named in output: `name.namespace`. */
export function podName(p: { readonly name: string; readonly namespace: string }): string {
  return `${p.name}.${p.namespace}`;
}
