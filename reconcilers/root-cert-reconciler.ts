import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { distinctUntilChanged, of, type Observable, type Subscription } from 'rxjs';
import type { Clock, Metrics } from '../core/index.js';
import {
  ORCH_RESOURCES, OrchApiError, namespaceSelected, objectPath, resourcePath, type Informer, type InformerFactory, type LabelSelector, type OrchTransport,
} from '../controllers/index.js';
import type { LeaderTask } from './leader/leader-elector.js';
import { ReconcileRunner } from './runtime/reconcile-runner.js';

/** The ConfigMap that carries the mesh root certificates into each namespace (Istio's `istio-ca-root-cert`). */
export const ROOT_CERT_CONFIGMAP = 'mesh-ca-root-cert';
/** Its data key. */
export const ROOT_CERT_KEY = 'root-cert.pem';
/** Its label, marking it as mesh configuration. */
export const MESH_CONFIG_LABEL = 'mesh.io/config';
/** Namespaces that never get the ConfigMap (Istio's ignored system namespaces). */
export const ROOT_CERT_IGNORED_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage']);

/** Name of the reconciler: its log field and the `name` label of its queue metrics. */
export const ROOT_CERT_RECONCILER_NAME = 'root-cert-configmap';

/** Options of a {@link RootCertReconciler}. */
export interface RootCertReconcilerOptions {
  readonly client: OrchTransport;
  /** Shared informers: namespaces, and ConfigMaps named {@link ROOT_CERT_CONFIGMAP}. */
  readonly informers: InformerFactory;
  /** The CA's trusted roots as one PEM bundle; each value replaces the last. */
  readonly rootCert$: Observable<string>;
  /** Mesh config `discoverySelectors`; default: none (every namespace). */
  readonly discoverySelectors$?: Observable<readonly LabelSelector[]>;
  /** `MESH_WATCH_NAMESPACE`: manage only this namespace (the informers should be restricted to it too). */
  readonly watchNamespace?: string | undefined;
  /** `ENABLE_ENHANCED_RESOURCE_SCOPING`: only namespaces the discovery selectors select get the ConfigMap. */
  readonly enhancedResourceScoping: boolean;
  /** Namespaces reconciled at once; default 10. */
  readonly maxConcurrent?: number;
  /** Time of the reconcile runner; default the system clock. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Queue metrics (MESH_ENABLE_CONTROLLER_QUEUE_METRICS); default none. */
  readonly metrics?: Metrics;
}

/**
 * Keeps ConfigMap {@link ROOT_CERT_CONFIGMAP} (`root-cert.pem` = the root bundle, label `mesh.io/config:
 * "true"`) in every namespace meshd manages: all but the ignored system namespaces, or with enhanced
 * resource scoping only those the discovery selectors select. Recreates a deleted ConfigMap, restores an
 * edited one (other data keys are kept), and rewrites all of them when the bundle changes. Leader-only: a
 * {@link LeaderTask} whose informers and queue run between `start` and `stop`. A namespace that stops
 * being selected keeps its ConfigMap (as Istio).
 */
export class RootCertReconciler implements LeaderTask {
  readonly #options: RootCertReconcilerOptions;
  readonly #namespaces: Informer<V1Namespace>;
  readonly #configMaps: Informer<V1ConfigMap>;
  #runner: ReconcileRunner | undefined;
  #subscriptions: Subscription[] = [];
  #bundle: string | undefined;
  #selectors: readonly LabelSelector[] = [];

  constructor(options: RootCertReconcilerOptions) {
    this.#options = options;
    this.#namespaces = options.informers.informer<V1Namespace>(ORCH_RESOURCES.namespaces);
    this.#configMaps = options.informers.informer<V1ConfigMap>(ORCH_RESOURCES.configMaps, { fieldSelector: `metadata.name=${ROOT_CERT_CONFIGMAP}` });
  }

  /** The runner while started (for tests and introspection). */
  get runner(): ReconcileRunner | undefined {
    return this.#runner;
  }

  /** Starts watching and reconciling (on election). */
  start(): void {
    if (this.#runner) return;
    const o = this.#options;
    const runner = new ReconcileRunner({
      name: ROOT_CERT_RECONCILER_NAME,
      reconcile: (key, signal) => this.#reconcile(key, signal),
      maxConcurrent: o.maxConcurrent ?? 10,
      clock: o.clock,
      logger: o.logger,
      metrics: o.metrics,
    });
    this.#runner = runner;
    const all = (): void => {
      for (const ns of this.#namespaces.list()) runner.add(ns.metadata?.name ?? '');
    };
    this.#subscriptions = [
      this.#namespaces.subscribe((event) => {
        if (event.type !== 'deleted') runner.add(event.key);
      }),
      this.#configMaps.subscribe((event) => runner.add(event.object.metadata?.namespace ?? '')),
      o.rootCert$.pipe(distinctUntilChanged()).subscribe((bundle) => {
        this.#bundle = bundle;
        all();
      }),
      (o.discoverySelectors$ ?? of([])).subscribe((selectors) => {
        this.#selectors = selectors;
        all();
      }),
      // NOTE: reconciling against half-filled caches would try to create ConfigMaps that exist.
      runner.startWhenSynced([this.#namespaces.synced$, this.#configMaps.synced$]),
    ];
  }

  /** Stops watching and waits for running reconciles (on losing leadership or shutdown). */
  async stop(): Promise<void> {
    for (const s of this.#subscriptions.splice(0)) s.unsubscribe();
    const runner = this.#runner;
    this.#runner = undefined;
    await runner?.stop();
  }

  /** Whether `namespace` should have the ConfigMap now. */
  #manages(namespace: V1Namespace | undefined): namespace is V1Namespace {
    const name = namespace?.metadata?.name;
    if (!namespace || !name || ROOT_CERT_IGNORED_NAMESPACES.has(name)) return false;
    if (this.#options.watchNamespace !== undefined && name !== this.#options.watchNamespace) return false;
    if (namespace.metadata?.deletionTimestamp || namespace.status?.phase === 'Terminating') return false;
    return !this.#options.enhancedResourceScoping || namespaceSelected(this.#selectors, namespace.metadata?.labels ?? {});
  }

  async #reconcile(name: string, signal: AbortSignal): Promise<void> {
    const bundle = this.#bundle;
    if (bundle === undefined || !this.#manages(this.#namespaces.get(name))) return;
    const client = this.#options.client;
    const existing = this.#configMaps.get(`${name}/${ROOT_CERT_CONFIGMAP}`);
    if (!existing) {
      const body: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CERT_CONFIGMAP, namespace: name, labels: { [MESH_CONFIG_LABEL]: 'true' } },
        data: { [ROOT_CERT_KEY]: bundle },
      };
      await client.request('POST', resourcePath(ORCH_RESOURCES.configMaps, name), { body, signal }).catch((err: unknown) => {
        // NOTE: created meanwhile (the cache lags): its watch event queues this namespace again.
        if (!(err instanceof OrchApiError && err.status === 409)) throw err;
      });
      return;
    }
    if (existing.data?.[ROOT_CERT_KEY] === bundle && existing.metadata?.labels?.[MESH_CONFIG_LABEL] === 'true') return;
    const body: V1ConfigMap = {
      ...existing,
      metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, [MESH_CONFIG_LABEL]: 'true' } },
      data: { ...existing.data, [ROOT_CERT_KEY]: bundle },
    };
    // The PUT carries the cached resourceVersion: a conflict throws and is retried against the fresher cache.
    await client.request('PUT', objectPath(ORCH_RESOURCES.configMaps, ROOT_CERT_CONFIGMAP, name), { body, signal });
  }
}
