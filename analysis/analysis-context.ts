/**
 * What an analyzer sees: every input resource indexed by `group/Kind`, the mesh config, and a `report`
 * that records a finding against a resource.
 */
import type { Diagnostic } from './diagnostic.js';
import { K } from './kinds.js';
import type { MessageType } from './message-catalogue.js';
import { rec } from './object-access.js';
import { kindKey, type Resource } from './resource.js';

/** Options of an analysis beyond its resources. */
export interface AnalysisSettings {
  /** The mesh config (MeshConfig fields as in `--meshConfigFile`); `{}` when none. */
  readonly meshConfig: Readonly<Record<string, unknown>>;
  /** Where the control plane lives; default `mesh-system`. */
  readonly meshNamespace: string;
  /** The control plane revision analyzed (`--revision`); default `default`. */
  readonly revision: string;
}

/** The resources read from one cluster of a multi-cluster mesh. */
export interface ClusterResources {
  /** The cluster's name (its kubeconfig context's cluster, as istioctl names a remote cluster). */
  readonly cluster: string;
  readonly resources: readonly Resource[];
}

/**
 * The clusters of a multi-cluster analysis: the local cluster (whose resources, with the files laid over
 * them, are the analysis's main inputs) and the remote clusters read through its remote secrets.
 */
export interface MultiClusterInputs {
  /** The local cluster's name. */
  readonly local: string;
  readonly remotes: readonly ClusterResources[];
}

/** The default settings. */
export const DEFAULT_SETTINGS: AnalysisSettings = { meshConfig: {}, meshNamespace: 'mesh-system', revision: 'default' };

/** One pod-like workload: a Pod, or the pod template of a Deployment/StatefulSet/DaemonSet/ReplicaSet. */
export interface Workload {
  readonly resource: Resource;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The pod spec. */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** The indexed inputs of one analysis, and the findings reported so far. */
export class AnalysisContext {
  readonly settings: AnalysisSettings;
  readonly #byKind = new Map<string, Resource[]>();
  readonly #byName = new Map<string, Resource>();
  readonly #diagnostics: Diagnostic[] = [];
  readonly #multiCluster: MultiClusterInputs | undefined;
  #analyzer = '';

  /** `multiCluster` is undefined when the analysis reads no cluster (files only) or one cluster without remotes. */
  constructor(resources: readonly Resource[], settings: AnalysisSettings = DEFAULT_SETTINGS, multiCluster?: MultiClusterInputs) {
    this.settings = settings;
    this.#multiCluster = multiCluster;
    for (const r of resources) {
      const k = kindKey(r.group, r.kind);
      let list = this.#byKind.get(k);
      if (!list) this.#byKind.set(k, (list = []));
      list.push(r);
      this.#byName.set(`${k}/${r.namespace}/${r.name}`, r);
    }
  }

  /** Every resource of a kind key (`K.VirtualService`, `/Pod`, ...), in input order. */
  all(kind: string): readonly Resource[] {
    return this.#byKind.get(kind) ?? [];
  }

  /** One resource by kind key, namespace (`''` for cluster-scoped) and name. */
  get(kind: string, namespace: string, name: string): Resource | undefined {
    return this.#byName.get(`${kind}/${namespace}/${name}`);
  }

  /**
   * Every resource of a kind key per cluster: the local cluster's (the main inputs) first, then each remote
   * cluster's, by cluster name. Empty when the analysis has no remote clusters.
   */
  byCluster(kind: string): Map<string, readonly Resource[]> {
    const out = new Map<string, readonly Resource[]>();
    const mc = this.#multiCluster;
    if (!mc || mc.remotes.length === 0) return out;
    out.set(mc.local, this.all(kind));
    for (const remote of mc.remotes) out.set(remote.cluster, remote.resources.filter((r) => kindKey(r.group, r.kind) === kind));
    return out;
  }

  /** Every namespace the inputs know: Namespace objects and the namespaces of namespaced resources. */
  namespaces(): Set<string> {
    const out = new Set<string>(this.all(K.Namespace).map((n) => n.name));
    for (const list of this.#byKind.values()) for (const r of list) if (r.namespace !== '') out.add(r.namespace);
    return out;
  }

  /** Pods only (Istio's analyzers that name a pod use these). */
  pods(): Workload[] {
    return this.all(K.Pod).map((p) => ({ resource: p, namespace: p.namespace, labels: p.labels, annotations: p.annotations, spec: rec(p.obj['spec']) }));
  }

  /**
   * Pods, and the pod templates of workload controllers. NOTE: Istio's analyzers look at Pods only; files
   * checked in CI usually hold Deployments, so "selects no workload" also accepts a controller's template.
   */
  workloads(): Workload[] {
    const out = this.pods();
    for (const k of [K.Deployment, K.StatefulSet, K.DaemonSet, K.ReplicaSet]) {
      for (const d of this.all(k)) {
        const tpl = rec(rec(d.obj['spec'])['template']);
        const meta = rec(tpl['metadata']);
        out.push({ resource: d, namespace: d.namespace, labels: strMap(meta['labels']), annotations: strMap(meta['annotations']), spec: rec(tpl['spec']) });
      }
    }
    return out;
  }

  /** The analyzer name findings are recorded under (set by the runner). */
  set analyzer(name: string) {
    this.#analyzer = name;
  }

  /** Records a finding of `type` about `resource`, with the template's arguments. */
  report(type: MessageType, resource: Resource | undefined, ...args: unknown[]): void {
    this.#diagnostics.push({ type, args, analyzer: this.#analyzer, ...(resource ? { resource } : {}) });
  }

  /** The findings reported so far. */
  get diagnostics(): readonly Diagnostic[] {
    return this.#diagnostics;
  }
}

function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(rec(v))) if (typeof x === 'string') out[k] = x;
  return out;
}
