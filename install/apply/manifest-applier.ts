/**
 * The apply engine shared by `meshctl install/upgrade/uninstall` and the operator: server-side apply of
 * rendered objects in install order (namespaces, then CRDs, waiting for them to be Established, then the
 * rest in the manifest's order), a wait for readiness, then a prune of the objects labelled for the same
 * owner and revision that the manifest no longer holds.
 *
 * Interrupting (the `signal`) is safe: every step is idempotent (apply is declarative and prune runs only
 * after everything applied and became ready), so running the same apply again finishes the job.
 */
import { isDeepStrictEqual } from 'node:util';
import { systemClock, type Clock } from '../../core/index.js';
import { apiReasonOf, apiStatusOf, ApplyError, type ApplyClient } from './apply-client.js';
import { objectRef, type ManifestObject } from './manifest-object.js';
import { readiness } from './readiness.js';
import { collectionPath, INSTALLED_KINDS, objectPathOf, ResourceMapper, type ResourceInfo } from './resource-mapper.js';

/** The field manager of meshctl's applies. */
export const MESHCTL_FIELD_MANAGER = 'meshctl';

/** What the engine reports while it works. */
export interface ApplyProgress {
  readonly component: string;
  readonly phase: 'applied' | 'waiting' | 'ready' | 'pruned' | 'failed';
  /** `Kind namespace/name`. */
  readonly object: string;
  /** What is awaited or what failed. */
  readonly detail: string;
}

/** Options of {@link ManifestApplier}. */
export interface ManifestApplierOptions {
  /** Default {@link MESHCTL_FIELD_MANAGER}. */
  readonly fieldManager?: string;
  /** Take over fields other managers own (server-side apply `force`); default false. */
  readonly force?: boolean;
  /** How long to wait for the objects to be ready (and CRDs to be established). */
  readonly readinessTimeoutMs: number;
  /** How often to look again while waiting; default 500 ms. */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  readonly onProgress?: (p: ApplyProgress) => void;
}

/** One planned change. */
export interface PlannedChange {
  readonly action: 'create' | 'update' | 'unchanged' | 'delete';
  /** `Kind namespace/name`. */
  readonly object: string;
  readonly component: string;
  /** For updates: the top-level fields that change (`spec`, `metadata.labels`, `data`, ...). */
  readonly fields: readonly string[];
}

/** A live object found by a label selector. */
export interface LiveObject {
  readonly info: ResourceInfo;
  readonly name: string;
  readonly namespace: string;
  readonly component: string;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The keys of the object that the API server fills and that a plan ignores. */
function comparable(o: Obj): Obj {
  const meta = { ...rec(o['metadata']) };
  for (const k of ['managedFields', 'resourceVersion', 'generation', 'creationTimestamp', 'uid']) delete meta[k];
  const rest: Obj = { ...o, metadata: meta };
  delete rest['status'];
  return rest;
}

function changedFields(before: Obj, after: Obj): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const k of [...keys].sort()) {
    if (k === 'metadata') {
      const bm = rec(before[k]);
      const am = rec(after[k]);
      for (const mk of [...new Set([...Object.keys(bm), ...Object.keys(am)])].sort()) if (!isDeepStrictEqual(bm[mk], am[mk])) out.push(`metadata.${mk}`);
    } else if (!isDeepStrictEqual(before[k], after[k])) out.push(k);
  }
  return out;
}

const keyOf = (kind: string, namespace: string, name: string): string => `${kind}/${namespace}/${name}`;

/** Applies, waits for and prunes manifests (see the file comment). */
export class ManifestApplier {
  readonly #client: ApplyClient;
  readonly #mapper: ResourceMapper;
  readonly #o: Required<Omit<ManifestApplierOptions, 'signal' | 'onProgress'>> & Pick<ManifestApplierOptions, 'signal' | 'onProgress'>;

  constructor(client: ApplyClient, options: ManifestApplierOptions) {
    this.#client = client;
    this.#mapper = new ResourceMapper(client);
    this.#o = { fieldManager: MESHCTL_FIELD_MANAGER, force: false, pollMs: 500, clock: systemClock, ...options };
  }

  /**
   * Applies `objects` (server-side apply), waits for them to be ready, then deletes the objects matching
   * `pruneSelector` that `objects` does not hold (no prune when it is undefined).
   * @returns the `Kind namespace/name` of each pruned object
   * @throws ApplyError naming the object and the API server's reason; `signal`'s reason when aborted
   */
  async apply(objects: readonly ManifestObject[], pruneSelector?: string): Promise<string[]> {
    const deadline = this.#o.clock.now() + this.#o.readinessTimeoutMs;
    const rest = objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition');
    await this.applyObjects(objects, deadline);
    await this.waitReady(rest, deadline);
    return pruneSelector === undefined ? [] : this.prune(objects, pruneSelector);
  }

  /**
   * The apply phase of {@link apply} alone: namespaces, then CRDs (waiting until they are Established, by
   * `deadline`), then the rest in order; no wait for the rest's readiness and no prune (the operator judges
   * readiness from the answers and prunes once everything is ready).
   * @returns each object as the API server answered its apply (status included), in `objects`' order
   * @throws ApplyError naming the object and the API server's reason
   */
  async applyObjects(objects: readonly ManifestObject[], deadline = this.#o.clock.now() + this.#o.readinessTimeoutMs): Promise<Obj[]> {
    const answers = new Map<ManifestObject, Obj>();
    const namespaces = objects.filter((o) => o.kind === 'Namespace');
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    const rest = objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition');
    for (const o of namespaces) answers.set(o, await this.#applyOne(o));
    await this.#ensureNamespaces(objects, new Set(namespaces.map((n) => n.name)));
    for (const o of crds) answers.set(o, await this.#applyOne(o));
    await this.waitReady(crds, deadline);
    // NOTE: the new CRDs' kinds are not in the discovery cache yet.
    if (crds.length > 0) this.#mapper.reset();
    for (const o of rest) answers.set(o, await this.#applyOne(o));
    return objects.map((o) => answers.get(o) ?? {});
  }

  /**
   * Deletes the objects matching `selector` that `objects` does not hold (the prune phase of {@link apply}).
   * @returns the `Kind namespace/name` of each pruned object
   */
  async prune(objects: readonly ManifestObject[], selector: string): Promise<string[]> {
    const pruned: string[] = [];
    for (const live of await this.prunable(objects, selector)) {
      await this.deleteLive(live);
      pruned.push(objectRef({ kind: live.info.kind, name: live.name, namespace: live.namespace }));
    }
    return pruned;
  }

  /** What {@link apply} would change: creates and updates found by a server-side dry-run apply, and the prunes. */
  async plan(objects: readonly ManifestObject[], pruneSelector?: string): Promise<PlannedChange[]> {
    const out: PlannedChange[] = [];
    for (const o of objects) {
      const ref = objectRef(o);
      const info = await this.#resolveOrUndefined(o);
      const live = info ? await this.#getOptional(objectPathOf(info, o.name, o.namespace || undefined)) : undefined;
      if (!info || !live) {
        out.push({ action: 'create', object: ref, component: o.component, fields: [] });
        continue;
      }
      const after = await this.#ssa(o, info, true);
      const fields = changedFields(comparable(live), comparable(after));
      out.push({ action: fields.length === 0 ? 'unchanged' : 'update', object: ref, component: o.component, fields });
    }
    if (pruneSelector !== undefined) {
      for (const l of await this.prunable(objects, pruneSelector)) {
        out.push({ action: 'delete', object: objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace }), component: l.component, fields: [] });
      }
    }
    return out;
  }

  /** The live objects matching `selector` (in the installer's kinds) that `objects` does not hold. */
  async prunable(objects: readonly ManifestObject[], selector: string): Promise<LiveObject[]> {
    const keep = new Set(objects.map((o) => keyOf(o.kind, o.namespace, o.name)));
    const found = await this.findLive(selector);
    return found.filter((l) => !keep.has(keyOf(l.info.kind, l.info.namespaced ? l.namespace : '', l.name)) && !keep.has(keyOf(l.info.kind, '', l.name)));
  }

  /** Every object of the installer's kinds matching `selector`, in every namespace. */
  async findLive(selector: string): Promise<LiveObject[]> {
    const out: LiveObject[] = [];
    for (const info of INSTALLED_KINDS) {
      let list: { items?: Obj[] };
      try {
        list = await this.#client.request<{ items?: Obj[] }>('GET', collectionPath(info), { query: { labelSelector: selector }, signal: this.#o.signal });
      } catch (e) {
        if (apiStatusOf(e) === 404) continue;
        throw new ApplyError(info.kind, apiReasonOf(e), `listing ${info.kind} with ${selector}: ${(e as Error).message}`, { cause: e });
      }
      for (const item of list.items ?? []) {
        const meta = rec(item['metadata']);
        const labels = rec(meta['labels']);
        out.push({
          info,
          name: String(meta['name']),
          namespace: typeof meta['namespace'] === 'string' ? meta['namespace'] : '',
          component: typeof labels['operator.mesh.io/component'] === 'string' ? labels['operator.mesh.io/component'] : '',
        });
      }
    }
    return out;
  }

  /** Deletes one live object (background propagation); gone already is fine. */
  async deleteLive(l: LiveObject): Promise<void> {
    const ref = objectRef({ kind: l.info.kind, name: l.name, namespace: l.namespace });
    try {
      await this.#client.request('DELETE', objectPathOf(l.info, l.name, l.namespace || undefined), { body: { propagationPolicy: 'Background' }, signal: this.#o.signal });
    } catch (e) {
      if (apiStatusOf(e) !== 404) throw new ApplyError(ref, apiReasonOf(e), `deleting ${ref}: ${(e as Error).message}`, { cause: e });
    }
    this.#o.onProgress?.({ component: l.component, phase: 'pruned', object: ref, detail: '' });
  }

  /**
   * Waits until every object exists and is ready ({@link readiness}) or `deadline` (on the clock) passes.
   * @throws ApplyError naming the objects not ready and why
   */
  async waitReady(objects: readonly ManifestObject[], deadline = this.#o.clock.now() + this.#o.readinessTimeoutMs): Promise<void> {
    let pending = [...objects];
    const why = new Map<ManifestObject, string>();
    for (;;) {
      const still: ManifestObject[] = [];
      for (const o of pending) {
        const info = await this.#resolveOrUndefined(o);
        const live = info ? await this.#getOptional(objectPathOf(info, o.name, o.namespace || undefined)) : undefined;
        const r = live ? readiness(o.kind, live) : { ready: false, why: 'not found' };
        if (r.ready) this.#o.onProgress?.({ component: o.component, phase: 'ready', object: objectRef(o), detail: '' });
        else {
          if (why.get(o) !== r.why) this.#o.onProgress?.({ component: o.component, phase: 'waiting', object: objectRef(o), detail: r.why });
          why.set(o, r.why);
          still.push(o);
        }
      }
      pending = still;
      if (pending.length === 0) return;
      if (this.#o.clock.now() >= deadline) {
        const list = pending.map((o) => `${objectRef(o)} (${why.get(o) ?? ''})`).join(', ');
        for (const o of pending) this.#o.onProgress?.({ component: o.component, phase: 'failed', object: objectRef(o), detail: why.get(o) ?? '' });
        throw new ApplyError(objectRef(pending[0] as ManifestObject), 'Timeout', `not ready within the readiness timeout of ${this.#o.readinessTimeoutMs} ms: ${list}`);
      }
      await this.#o.clock.sleep(Math.min(this.#o.pollMs, Math.max(1, deadline - this.#o.clock.now())), this.#o.signal, { keepAlive: true });
    }
  }

  async #ensureNamespaces(objects: readonly ManifestObject[], declared: Set<string>): Promise<void> {
    const wanted = [...new Set(objects.map((o) => o.namespace).filter((n) => n !== '' && !declared.has(n)))];
    for (const ns of wanted) {
      try {
        await this.#client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, signal: this.#o.signal });
      } catch (e) {
        if (apiStatusOf(e) !== 409) throw new ApplyError(`Namespace ${ns}`, apiReasonOf(e), `creating Namespace ${ns}: ${(e as Error).message}`, { cause: e });
      }
    }
  }

  async #applyOne(o: ManifestObject): Promise<Obj> {
    this.#o.signal?.throwIfAborted();
    const info = await this.#resolve(o);
    const answer = await this.#ssa(o, info, false);
    this.#o.onProgress?.({ component: o.component, phase: 'applied', object: objectRef(o), detail: '' });
    return answer;
  }

  async #ssa(o: ManifestObject, info: ResourceInfo, dryRun: boolean): Promise<Obj> {
    const ref = objectRef(o);
    if (info.namespaced && o.namespace === '') throw new ApplyError(ref, 'Invalid', `${ref}: a ${o.kind} needs metadata.namespace`);
    try {
      return await this.#client.request<Obj>('PATCH', objectPathOf(info, o.name, o.namespace || undefined), {
        query: { fieldManager: this.#o.fieldManager, force: this.#o.force ? true : undefined, dryRun: dryRun ? 'All' : undefined },
        body: o.object,
        contentType: 'application/apply-patch+yaml',
        signal: this.#o.signal,
      });
    } catch (e) {
      if (this.#o.signal?.aborted) throw this.#o.signal.reason ?? e;
      const reason = apiReasonOf(e);
      const hint = apiStatusOf(e) === 409 && !this.#o.force ? ' (another field manager owns these fields; --force takes them over)' : '';
      this.#o.onProgress?.({ component: o.component, phase: 'failed', object: ref, detail: reason });
      throw new ApplyError(ref, reason, `applying ${ref}: ${(e as Error).message}${hint}`, { cause: e });
    }
  }

  async #resolve(o: ManifestObject): Promise<ResourceInfo> {
    try {
      return await this.#mapper.resolve(o.apiVersion, o.kind, this.#o.signal);
    } catch (e) {
      if (e instanceof ApplyError) throw new ApplyError(objectRef(o), e.reason, `${objectRef(o)}: ${e.message}`);
      throw e;
    }
  }

  async #resolveOrUndefined(o: ManifestObject): Promise<ResourceInfo | undefined> {
    try {
      return await this.#mapper.resolve(o.apiVersion, o.kind, this.#o.signal);
    } catch (e) {
      if (e instanceof ApplyError) {
        this.#mapper.reset();
        return undefined;
      }
      throw e;
    }
  }

  async #getOptional(path: string): Promise<Obj | undefined> {
    try {
      return await this.#client.request<Obj>('GET', path, { signal: this.#o.signal });
    } catch (e) {
      if (apiStatusOf(e) === 404) return undefined;
      throw e;
    }
  }
}
