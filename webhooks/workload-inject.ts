/**
 * Injection into orchestrator manifests (`meshctl orch-inject`): Pods, and the pod templates of
 * Deployments, StatefulSets, DaemonSets, ReplicaSets, ReplicationControllers, Jobs and CronJobs, in a
 * stream of YAML documents or `List`s. Other documents pass through unchanged. The pod is injected by a
 * {@link PodInjector}: the same {@link SidecarInjector} as the webhook's, with the workload as its owner, or
 * a cluster's injection webhook called remotely.
 */
import { stringify } from 'yaml';
import { parseYamlDocuments } from './injection-config.js';
import { isObject, type JsonObject } from './pod-overlay.js';
import { InjectionError, type InjectionResult, type InjectOptions } from './sidecar-injector.js';

/** What injects one pod: a {@link SidecarInjector} here, or an injection webhook reached over the network. */
export interface PodInjector {
  inject(pod: JsonObject, namespace: string, options?: InjectOptions): InjectionResult | Promise<InjectionResult>;
}

/** Thrown for a manifest that cannot be read; names the document. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/** What happened to one workload document. */
export interface WorkloadOutcome {
  /** `Kind namespace/name`. */
  readonly what: string;
  readonly injected: boolean;
  /** Why it was skipped (policy, opt-out), when it was. */
  readonly reason?: string;
}

const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  ReplicationController: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

function describe(obj: JsonObject, namespace: string): string {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  return `${String(obj['kind'])} ${namespace}/${String(meta['name'] ?? meta['generateName'] ?? '?')}`;
}

/**
 * Injects one object (a Pod, a workload, or a `List` of them), returning the new object.
 * @throws InjectionError (named after the object) when a template fails
 */
export async function injectObject(obj: JsonObject, injector: PodInjector, outcomes: WorkloadOutcome[] = [], defaultNamespace = 'default'): Promise<JsonObject> {
  const kind = obj['kind'];
  if (kind === 'List' && Array.isArray(obj['items'])) {
    const items: unknown[] = [];
    for (const i of obj['items'] as unknown[]) items.push(isObject(i) ? await injectObject(i, injector, outcomes, defaultNamespace) : i);
    return { ...obj, items };
  }
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const namespace = typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? meta['namespace'] : defaultNamespace;
  const what = describe(obj, namespace);
  const wrap = (e: unknown): never => {
    throw new InjectionError(`${what}: ${(e as Error).message}`);
  };
  if (kind === 'Pod') {
    try {
      const r = await injector.inject(obj, namespace);
      outcomes.push(r.injected ? { what, injected: true } : { what, injected: false, reason: r.decision.reason });
      return r.pod;
    } catch (e) {
      return wrap(e);
    }
  }
  const path = typeof kind === 'string' ? TEMPLATE_PATHS[kind] : undefined;
  if (!path) return obj;
  const out = structuredClone(obj);
  let parent: JsonObject = out;
  for (const k of path.slice(0, -1)) {
    const next = parent[k];
    if (!isObject(next)) throw new ManifestError(`${what}: ${path.join('.')} is missing`);
    parent = next;
  }
  const template = parent[path.at(-1)!];
  if (!isObject(template)) throw new ManifestError(`${what}: ${path.join('.')} is missing`);
  const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { ...tmeta, namespace }, spec: template['spec'] ?? {} };
  let r;
  try {
    r = await injector.inject(pod, namespace, { workload: { apiVersion: String(obj['apiVersion'] ?? ''), kind: String(kind), name: String(meta['name'] ?? ''), namespace } });
  } catch (e) {
    return wrap(e);
  }
  if (!r.injected) {
    outcomes.push({ what, injected: false, reason: r.decision.reason });
    return obj;
  }
  outcomes.push({ what, injected: true });
  const newMeta = { ...(r.pod['metadata'] as JsonObject) };
  if (tmeta['namespace'] === undefined) delete newMeta['namespace'];
  parent[path.at(-1)!] = { ...template, metadata: newMeta, spec: r.pod['spec'] };
  return out;
}

/**
 * Injects every document of a YAML stream; returns the stream (documents joined by `---`) and what
 * happened to each workload.
 * @throws ManifestError naming the document that does not parse (its number counts non-empty documents); InjectionError for a template failure
 */
export async function injectManifests(text: string, injector: PodInjector, source = 'input'): Promise<{ text: string; outcomes: WorkloadOutcome[] }> {
  const outcomes: WorkloadOutcome[] = [];
  const docs: string[] = [];
  let raws: unknown[];
  try {
    raws = parseYamlDocuments(text, source);
  } catch (e) {
    throw new ManifestError((e as Error).message);
  }
  for (const [i, raw] of raws.entries()) {
    if (!isObject(raw)) throw new ManifestError(`${source} document ${i + 1}: not an object with apiVersion, kind and metadata`);
    docs.push(stringify(await injectObject(raw, injector, outcomes), { lineWidth: 0 }));
  }
  return { text: docs.join('---\n'), outcomes };
}
