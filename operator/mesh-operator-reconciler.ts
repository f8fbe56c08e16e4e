/**
 * The operator's reconciler: keeps the objects of each MeshOperator resource (install.mesh.io/v1alpha1)
 * in line with its spec, as Istio's operator does for IstioOperator. Level-based per `namespace/name` key
 * on the reconciler runtime (at most `maxConcurrent` keys at once):
 *
 * 1. read the resource; while it is being deleted, delete what it owns and drop the finalizer;
 * 2. add the finalizer, merge the spec over its profile, validate it (`force` proceeds past errors),
 *    render the charts and label the objects for the resource;
 * 3. server-side apply them (field manager {@link OPERATOR_FIELD_MANAGER}, taking fields over as a
 *    controller does) and judge each component's readiness from the answers;
 * 4. when every component is ready, prune the objects of the same owner and revision the manifest no
 *    longer holds; else look again after a while;
 * 5. write `status` (HEALTHY / RECONCILING / ERROR, per component, `observedGeneration`, a condition)
 *    through the status subresource when it changed.
 *
 * It watches the resources in its namespaces (every namespace when none is given) and the objects it
 * labels, so a hand-deleted Deployment is re-created. A leader-only {@link LeaderTask}.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { isDeepStrictEqual } from 'node:util';
import { systemClock, type Clock, type Metrics } from '../core/index.js';
import { InformerFactory, objectPath, OrchApiError, type Informer, type InformerEvent, type OrchClient, type OrchResource } from '../controllers/index.js';
import {
  INSTALLED_KINDS, MANAGED_LABEL, ManifestApplier, objectRef, OWNING_RESOURCE_LABEL, OWNING_RESOURCE_NAMESPACE_LABEL, ownerSelector, readiness,
  type LiveObject, type ManifestObject,
} from '../install/index.js';
import { ReconcileRunner, TerminalError, type LeaderTask, type ReconcileResult } from '../reconcilers/index.js';
import type { GoMap } from '../templates/index.js';
import { desiredObjects, DesiredStateError, MESH_OPERATOR_CRD_NAME, type DesiredState } from './desired-objects.js';
import { buildStatus, overallStatus, statusDiffers, statusPatch, type ComponentStatus, type ReconcileOutcome } from './mesh-operator-status.js';

/** The MeshOperator resource. */
export const MESH_OPERATOR_RESOURCE = { group: 'install.mesh.io', version: 'v1alpha1', plural: 'meshoperators', kind: 'MeshOperator', namespaced: true } as const satisfies OrchResource;
/** The field manager of the operator's applies (Istio's operator's, renamed). */
export const OPERATOR_FIELD_MANAGER = 'mesh-operator';
/** The finalizer the operator puts on a MeshOperator (Istio's `istio-finalizer.install.istio.io`, renamed). */
export const OPERATOR_FINALIZER = 'mesh-finalizer.install.mesh.io';
/** The reconciler's name: its log field and queue-metric label. */
export const MESH_OPERATOR_RECONCILER_NAME = 'mesh-operator';
/** The Lease of the operator's leader election (Istio's `istio-operator-lock`, renamed). */
export const OPERATOR_LEASE_NAME = 'mesh-operator-lock';

/** Options of a {@link MeshOperatorReconciler}. */
export interface MeshOperatorReconcilerOptions {
  readonly client: OrchClient;
  /** The namespaces whose MeshOperators are reconciled; empty = every namespace. */
  readonly watchNamespaces: readonly string[];
  /** `--max-concurrent-reconciles`; default 1. */
  readonly maxConcurrent?: number;
  /** `--force`: proceed past validation errors. */
  readonly force: boolean;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** How long to wait for CRDs to be established in one reconcile; default 60 s. */
  readonly crdTimeoutMs?: number;
  /** When components are not ready yet, look again after this long (their watch events also do); default 5 s. */
  readonly recheckMs?: number;
  readonly clock?: Clock;
  /** Profiles and charts folders (tests); default the shipped ones. */
  readonly profilesDir?: string;
  readonly chartsDir?: string;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

interface MeshOperatorObject extends KubernetesObject {
  spec?: GoMap;
  status?: Obj;
}

/** The orchestrator resource of an installed kind, for an informer. */
function resourceOf(info: (typeof INSTALLED_KINDS)[number]): OrchResource {
  const [group, version] = info.apiVersion.includes('/') ? (info.apiVersion.split('/') as [string, string]) : ['', info.apiVersion];
  return { group, version, plural: info.plural, kind: info.kind, namespaced: info.namespaced };
}

/** Everything but what the API server changes on its own: a change here is worth a reconcile. */
function significant(o: KubernetesObject): Obj {
  const { status: _status, ...rest } = o as Obj;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = rec(rest['metadata']);
  return { ...rest, metadata: meta };
}

/** The MeshOperator reconciler (see the file comment). */
export class MeshOperatorReconciler implements LeaderTask {
  readonly #o: MeshOperatorReconcilerOptions;
  readonly #clock: Clock;
  readonly #crs: Informer<MeshOperatorObject>[];
  readonly #owned: { kind: string; informer: Informer<KubernetesObject> }[];
  #runner: ReconcileRunner | undefined;
  #subscriptions: Subscription[] = [];

  constructor(options: MeshOperatorReconcilerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    const crInformers = (ns: string | undefined): Informer<MeshOperatorObject> =>
      new InformerFactory(options.client, { watchNamespace: ns, clock: options.clock }).informer<MeshOperatorObject>(MESH_OPERATOR_RESOURCE);
    this.#crs = options.watchNamespaces.length === 0 ? [crInformers(undefined)] : options.watchNamespaces.map((ns) => crInformers(ns));
    // NOTE: owned objects may live outside the watched namespaces (gateways, cluster-scoped RBAC and webhooks).
    const owned = new InformerFactory(options.client, { clock: options.clock });
    this.#owned = INSTALLED_KINDS.map((info) => ({ kind: info.kind, informer: owned.informer<KubernetesObject>(resourceOf(info), { labelSelector: `${MANAGED_LABEL}=Reconcile,${OWNING_RESOURCE_LABEL}` }) }));
  }

  /** The runner while started (tests and introspection). */
  get runner(): ReconcileRunner | undefined {
    return this.#runner;
  }

  /** Starts watching and reconciling (on election). */
  start(): void {
    if (this.#runner) return;
    const runner = new ReconcileRunner({
      name: MESH_OPERATOR_RECONCILER_NAME,
      reconcile: (key, signal) => this.#reconcile(key, signal),
      maxConcurrent: this.#o.maxConcurrent ?? 1,
      clock: this.#o.clock,
      logger: this.#o.logger,
    });
    this.#runner = runner;
    const onCr = (ev: InformerEvent<MeshOperatorObject>): void => {
      // NOTE: status writes are watch events too; only spec (generation), deletion and finalizer changes count.
      const o = ev.oldObject?.metadata;
      const n = ev.object.metadata;
      if (ev.type === 'updated' && o?.generation === n?.generation && Boolean(o?.deletionTimestamp) === Boolean(n?.deletionTimestamp) && isDeepStrictEqual(o?.finalizers, n?.finalizers)) return;
      runner.add(ev.key);
    };
    const onOwned = (kind: string) => (ev: InformerEvent<KubernetesObject>): void => {
      const labels = ev.object.metadata?.labels ?? {};
      const key = `${labels[OWNING_RESOURCE_NAMESPACE_LABEL] ?? ''}/${labels[OWNING_RESOURCE_LABEL] ?? ''}`;
      if (!this.#crs.some((i) => i.get(key) !== undefined)) return;
      if (ev.type === 'updated' && ev.oldObject) {
        const sameReady = readiness(kind, ev.oldObject as Obj).ready === readiness(kind, ev.object as Obj).ready;
        if (sameReady && isDeepStrictEqual(significant(ev.oldObject), significant(ev.object))) return;
      }
      runner.add(key);
    };
    this.#subscriptions = [
      ...this.#crs.map((i) => i.subscribe(onCr)),
      ...this.#owned.map(({ kind, informer }) => informer.subscribe(onOwned(kind))),
      // NOTE: reconciling against half-filled caches would miss owners and count creations wrongly.
      runner.startWhenSynced([...this.#crs, ...this.#owned.map((x) => x.informer)].map((i) => i.synced$)),
    ];
  }

  /** Stops watching and waits for running reconciles (on losing leadership or shutdown). */
  async stop(): Promise<void> {
    for (const s of this.#subscriptions.splice(0)) s.unsubscribe();
    const runner = this.#runner;
    this.#runner = undefined;
    await runner?.stop();
  }

  async #reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const m = this.#o.metrics;
    m.counter('reconcile_request_total').inc();
    const [namespace = '', name = ''] = key.split('/');
    const path = objectPath(MESH_OPERATOR_RESOURCE, name, namespace);
    let cr: MeshOperatorObject;
    try {
      cr = await this.#o.client.request<MeshOperatorObject>('GET', path, { signal });
    } catch (e) {
      if (e instanceof OrchApiError && e.status === 404) return;
      m.counter('get_cr_error_total').inc();
      throw e;
    }
    const finalizers = cr.metadata?.finalizers ?? [];
    if (cr.metadata?.deletionTimestamp) {
      if (!finalizers.includes(OPERATOR_FINALIZER)) return;
      await this.#deleteOwned(cr, signal);
      await this.#setFinalizers(path, cr, finalizers.filter((f) => f !== OPERATOR_FINALIZER), signal);
      m.counter('cr_deletion_total').inc();
      return;
    }
    if (!finalizers.includes(OPERATOR_FINALIZER)) cr = await this.#setFinalizers(path, cr, [...finalizers, OPERATOR_FINALIZER], signal);
    const generation = cr.metadata?.generation ?? 0;
    let desired: DesiredState;
    try {
      desired = desiredObjects({ name, namespace, spec: rec(cr.spec) as GoMap, force: this.#o.force, profilesDir: this.#o.profilesDir, chartsDir: this.#o.chartsDir });
    } catch (e) {
      if (!(e instanceof DesiredStateError)) throw e;
      if (e.kind === 'validation') m.counter('cr_validation_error_total').inc();
      else if (e.kind === 'merge') m.counter('cr_merge_failure_total').inc();
      else m.counter('manifest_render_error_total').inc({ component: e.component || 'unknown' });
      await this.#writeStatus(path, cr, { status: 'ERROR', message: e.message, components: {} }, generation, signal);
      // NOTE: retrying cannot fix the spec; an edit of the resource is a new event.
      throw new TerminalError(e.message);
    }
    if (desired.problems !== '') {
      m.counter('cr_validation_error_total').inc();
      this.#o.logger.warn({ key, problems: desired.problems }, 'proceeding past validation errors (--force)');
    }
    for (const c of desired.components) m.counter('render_manifest_total').inc({ component: c });
    const observed = rec(cr.status)['observedGeneration'];
    if (observed !== generation) {
      const components = Object.fromEntries(desired.components.map((c) => [c, { status: 'RECONCILING' } as ComponentStatus]));
      cr = await this.#writeStatus(path, cr, { status: 'RECONCILING', message: '', components }, generation, signal);
    }
    const outcome = await this.#applyAndJudge(desired, signal);
    await this.#writeStatus(path, cr, outcome, generation, signal);
    this.#countOwned();
    if (outcome.status === 'ERROR') throw new Error(outcome.message);
    return outcome.status === 'HEALTHY' ? undefined : { requeueAfterMs: this.#o.recheckMs ?? 5_000 };
  }

  /** Applies the desired objects, judges each component, and prunes when all are ready. */
  async #applyAndJudge(desired: DesiredState, signal: AbortSignal): Promise<ReconcileOutcome> {
    const m = this.#o.metrics;
    const applier = new ManifestApplier(this.#o.client, { fieldManager: OPERATOR_FIELD_MANAGER, force: true, readinessTimeoutMs: this.#o.crdTimeoutMs ?? 60_000, signal, clock: this.#clock });
    const before = new Map(desired.objects.map((o) => [o, this.#cachedVersion(o)]));
    const components: Record<string, ComponentStatus> = Object.fromEntries(desired.components.map((c) => [c, { status: 'HEALTHY' } as ComponentStatus]));
    let answers: Obj[];
    try {
      answers = await applier.applyObjects(desired.objects);
    } catch (e) {
      const failed = desired.objects.find((o) => (e as { object?: string }).object === objectRef(o));
      const component = failed?.component ?? desired.components[0] ?? '';
      components[component] = { status: 'ERROR', error: (e as Error).message };
      return { status: 'ERROR', message: (e as Error).message, components };
    }
    desired.objects.forEach((o, i) => {
      const after = String(rec(rec(answers[i])['metadata'])['resourceVersion'] ?? '');
      const was = before.get(o);
      if (was === undefined) m.counter('resource_creation_total').inc({ kind: o.kind });
      else if (was !== after) m.counter('resource_update_total').inc({ kind: o.kind });
      const r = readiness(o.kind, rec(answers[i]));
      const c = components[o.component];
      if (!r.ready && c?.status === 'HEALTHY') components[o.component] = { status: 'RECONCILING', error: `${objectRef(o)}: ${r.why}` };
    });
    const status = overallStatus(components);
    if (status !== 'HEALTHY') return { status, message: Object.values(components).map((c) => c.error ?? '').filter((x) => x !== '').join('; '), components };
    for (const live of await applier.prunable(desired.objects, ownerSelector(desired.owner))) {
      await applier.deleteLive(live);
      m.counter('resource_prune_total').inc({ kind: live.info.kind });
    }
    return { status, message: '', components };
  }

  /** The resourceVersion the owned-object caches hold for `o`, undefined when it is not there. */
  #cachedVersion(o: ManifestObject): string | undefined {
    const informer = this.#owned.find((x) => x.kind === o.kind)?.informer;
    const obj = informer?.get(o.namespace ? `${o.namespace}/${o.name}` : o.name);
    return obj?.metadata?.resourceVersion;
  }

  /**
   * Deletes what a resource being deleted owns: for the default revision everything (Istio's operator
   * prunes all), for a named revision its control plane but not the shared base; never the MeshOperator CRD.
   */
  async #deleteOwned(cr: MeshOperatorObject, signal: AbortSignal): Promise<void> {
    const name = cr.metadata?.name ?? '';
    const namespace = cr.metadata?.namespace ?? '';
    const revision = typeof rec(cr.spec)['revision'] === 'string' ? (rec(cr.spec)['revision'] as string) : '';
    const applier = new ManifestApplier(this.#o.client, { fieldManager: OPERATOR_FIELD_MANAGER, readinessTimeoutMs: 0, signal, clock: this.#clock });
    let found: LiveObject[] = await applier.findLive(ownerSelector({ name, namespace, revision }));
    if (revision !== '' && revision !== 'default') found = found.filter((l) => l.component !== 'Base');
    found = found.filter((l) => !(l.info.kind === 'CustomResourceDefinition' && l.name === MESH_OPERATOR_CRD_NAME));
    // NOTE: findLive answers in INSTALLED_KINDS order: webhooks first, CRDs last.
    for (const l of found) {
      await applier.deleteLive(l);
      this.#o.metrics.counter('resource_deletion_total').inc({ kind: l.info.kind });
    }
  }

  async #setFinalizers(path: string, cr: MeshOperatorObject, finalizers: string[], signal: AbortSignal): Promise<MeshOperatorObject> {
    // NOTE: the resourceVersion makes this a compare-and-swap: a concurrent edit fails it (409) and the key is retried.
    return this.#o.client.request<MeshOperatorObject>('PATCH', path, {
      body: { metadata: { finalizers, resourceVersion: cr.metadata?.resourceVersion } },
      contentType: 'application/merge-patch+json',
      signal,
    });
  }

  async #writeStatus(path: string, cr: MeshOperatorObject, outcome: ReconcileOutcome, generation: number, signal: AbortSignal): Promise<MeshOperatorObject> {
    const next = buildStatus(cr.status, outcome, generation, this.#clock.date());
    if (!statusDiffers(cr.status, next)) return cr;
    return this.#o.client.request<MeshOperatorObject>('PATCH', `${path}/status`, { body: statusPatch(cr.status, next), contentType: 'application/merge-patch+json', signal });
  }

  /** owned_resource_total by kind: the cached objects whose owner is a MeshOperator the operator sees. */
  #countOwned(): void {
    const owners = new Set(this.#crs.flatMap((i) => i.list().map((c) => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`)));
    for (const { kind, informer } of this.#owned) {
      const n = informer.list().filter((o) => owners.has(`${o.metadata?.labels?.[OWNING_RESOURCE_NAMESPACE_LABEL] ?? ''}/${o.metadata?.labels?.[OWNING_RESOURCE_LABEL] ?? ''}`)).length;
      this.#o.metrics.gauge('owned_resource_total').set({ kind }, n);
    }
  }
}

