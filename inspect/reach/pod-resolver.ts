/**
 * Turns a {@link PodTarget} into one running pod through the API server: a pod by name, or the pods a
 * deployment's or service's selector picks (the API server matches the selector).
 */
import { dotted, type PodRef, type PodTarget } from './pod-target.js';
import { ReachError } from './reach-error.js';

/**
 * The part of an orchestrator client the resolver needs (`OrchClient` from controllers/ fits). A failed
 * request throws an error carrying the HTTP `status` (404 means not found).
 */
export interface OrchReader {
  request<T>(method: string, path: string, options?: { readonly timeoutMs?: number }): Promise<T>;
}

/** The fields of a pod the reach layer reads. */
export interface PodObject {
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly deletionTimestamp?: string; readonly labels?: Record<string, string>; readonly creationTimestamp?: string };
  readonly spec?: { readonly nodeName?: string; readonly containers?: readonly { readonly name?: string; readonly ports?: readonly { readonly containerPort?: number; readonly name?: string }[] }[] };
  readonly status?: { readonly phase?: string; readonly podIP?: string; readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
}

interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** A pod the resolver picked, with the object it read. */
export interface ResolvedPod extends PodRef {
  readonly pod: PodObject;
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

async function getOptional<T>(api: OrchReader, path: string): Promise<T | undefined> {
  try {
    return await api.request<T>('GET', path);
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
}

/** A label selector in the API server's query syntax; undefined when it selects nothing (empty). */
export function selectorQuery(selector: LabelSelector): string | undefined {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
      default:
        throw new ReachError(`label selector: unknown operator "${e.operator}" for key "${e.key}"`);
    }
  }
  return parts.length === 0 ? undefined : parts.join(',');
}

function isRunning(pod: PodObject): boolean {
  return pod.status?.phase === 'Running' && pod.metadata?.deletionTimestamp === undefined;
}

function isReady(pod: PodObject): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * The pod to reach among `pods`: running and not being deleted, ready ones first, then the newest (as
 * kubectl's attachable-pod choice prefers), then by name so the choice is stable.
 * @throws ReachError when none runs; `what` names the selecting object in the message
 */
export function pickRunningPod(pods: readonly PodObject[], what: string): PodObject {
  if (pods.length === 0) throw new ReachError(`no pods match ${what}`);
  const running = pods.filter(isRunning);
  if (running.length === 0) {
    const phases = [...new Set(pods.map((p) => p.status?.phase ?? 'Unknown'))].join(', ');
    throw new ReachError(`no running pod matches ${what} (${pods.length} matching, phase ${phases})`);
  }
  const sorted = [...running].sort(
    (a, b) =>
      Number(isReady(b)) - Number(isReady(a)) ||
      (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? '') ||
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  return sorted[0]!;
}

/**
 * Lists the pods of `namespace` that `selector` (API server query syntax) selects and picks a running one.
 * @throws ReachError when none matches or none runs; `what` names the selecting object in the message
 */
export async function resolvePodBySelector(api: OrchReader, namespace: string, selector: string, what: string): Promise<ResolvedPod> {
  const list = await api.request<{ items?: PodObject[] }>('GET', `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
  const pod = pickRunningPod(list.items ?? [], what);
  return { namespace, name: pod.metadata?.name ?? '', pod };
}

/**
 * Finds the pod a target names. A pod is taken as named (even when not running: the dial then says why);
 * a deployment or service is replaced by one running pod its selector picks.
 * @throws ReachError naming the target when the object does not exist, selects nothing, or no pod runs
 */
export async function resolvePod(api: OrchReader, target: PodTarget): Promise<ResolvedPod> {
  const { namespace, name } = target;
  switch (target.kind) {
    case 'pod': {
      const pod = await getOptional<PodObject>(api, `/api/v1/namespaces/${namespace}/pods/${name}`);
      if (!pod) throw new ReachError(`pod ${dotted(target)} not found`);
      return { namespace, name, pod };
    }
    case 'deployment': {
      const d = await getOptional<{ spec?: { selector?: LabelSelector } }>(api, `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
      if (!d) throw new ReachError(`deployment ${dotted(target)} not found`);
      const selector = selectorQuery(d.spec?.selector ?? {});
      if (!selector) throw new ReachError(`deployment ${dotted(target)} has no selector`);
      return resolvePodBySelector(api, namespace, selector, `deployment ${dotted(target)}`);
    }
    case 'service': {
      const s = await getOptional<{ spec?: { selector?: Record<string, string> } }>(api, `/api/v1/namespaces/${namespace}/services/${name}`);
      if (!s) throw new ReachError(`service ${dotted(target)} not found`);
      const selector = selectorQuery({ matchLabels: s.spec?.selector ?? {} });
      // NOTE: a service without a selector has hand-made endpoints, not pods to reach (istioctl refuses too).
      if (!selector) throw new ReachError(`no pods match service ${dotted(target)} (it has no selector)`);
      return resolvePodBySelector(api, namespace, selector, `service ${dotted(target)}`);
    }
  }
}
