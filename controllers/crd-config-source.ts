/**
 * The CRD config source (when `--configDir` is not set): one shared informer per mesh.io kind, each
 * object checked against the parse limits (crds/ `objectLimitError`) and validated with crds/
 * `validateConfig`. A bad version is rejected (told to `onRejected` once per distinct content, not again
 * for a status-only change) and left out of the model; if an earlier version of the object was valid,
 * that one stays served ("last good", as istiod does) until a valid version or a delete arrives, and the
 * rejection says so. An object that was never valid is not served. Emits the same
 * `ModelInput` batches as the `--configDir` source. With `onStatus` it also says, per object generation,
 * whether that generation was accepted or rejected (the input of the status writer, PILOT_ENABLE_STATUS).
 */
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, filter, Observable, Subscription, take } from 'rxjs';
import { configKeyString, type Config, type ConfigEvent, type ConfigKey, type ModelInput } from '../core/index.js';
import { DEFAULT_YAML_LIMITS, KINDS, KIND_NAMES, objectLimitError, validateConfig, type KindName, type YamlLimits } from '../crds/index.js';
import type { RejectedConfigs } from './rejected-configs.js';
import { OrchApiError, type InformerError, type InformerEvent, type InformerFactory, type OrchResource } from './orch/index.js';

/** Kinds that are installation resources, not mesh config. */
const NOT_CONFIG: readonly KindName[] = ['MeshOperator'];

/** The kinds the CRD source watches by default: every mesh.io config kind. */
export const CRD_CONFIG_KINDS: readonly KindName[] = KIND_NAMES.filter((k) => !NOT_CONFIG.includes(k));

/** One rejected object. */
export interface RejectedCrd {
  readonly kind: string;
  /** `namespace/name` */
  readonly name: string;
  readonly resourceVersion: string;
  readonly errors: readonly { readonly path: string; readonly message: string }[];
  /** One line naming everything above. */
  readonly message: string;
  /** The resourceVersion of the last valid version, still served instead; undefined when none is. */
  readonly servedResourceVersion?: string;
}

/**
 * What the source concluded about one generation of an object: accepted (valid, in the model) or rejected
 * with the validation message (each error as `field.path: message`, joined by `; `). The same shape as
 * reconcilers/ `ConfigStatusReport` (declared here because controllers/ may not import reconcilers/).
 * `key.kind` is the bare kind, `key.namespace` is '' for cluster-scoped kinds.
 */
export interface CrdStatusReport {
  readonly key: ConfigKey;
  /** The object's `metadata.generation`. */
  readonly generation: number;
  readonly outcome: { readonly accepted: true } | { readonly accepted: false; readonly message: string };
}

/** Options of {@link crdConfigSource}. */
export interface CrdConfigSourceOptions {
  /** Shared informers (restricted to MESH_WATCH_NAMESPACE by the factory). */
  readonly informers: InformerFactory;
  /** Default {@link CRD_CONFIG_KINDS}. */
  readonly kinds?: readonly KindName[];
  /** Called once per distinct rejected object version (log it, count it in pilot_total_rejected_configs). */
  readonly onRejected?: (r: RejectedCrd) => void;
  /** Called when an object whose last version was rejected has a valid version again. */
  readonly onRecovered?: (r: RejectedCrd) => void;
  /** Kept up to date with the current rejections (source `crd`), for `/debug/rejectedz`. */
  readonly rejections?: RejectedConfigs;
  /** Only `maxKeys` applies (objects arrive parsed); default crds/ DEFAULT_YAML_LIMITS. */
  readonly limits?: YamlLimits;
  /**
   * Called once per object generation and outcome (not again for a status-only change, which keeps the
   * generation); objects without `metadata.generation` are not reported. Leave undefined when status
   * writing is off: nothing is tracked then.
   */
  readonly onStatus?: (r: CrdStatusReport) => void;
  /** pilot_orch_cfg_events{type,event}: one per informer event. */
  readonly onEvent?: (kind: string, event: 'add' | 'update' | 'delete') => void;
}

/** The informer resource of a mesh.io kind (its storage version). */
export function crdResource(kind: KindName): OrchResource {
  const d = KINDS[kind];
  return { group: d.group, version: d.storageVersion, plural: d.plural, kind: d.kind, namespaced: d.scope === 'Namespaced' };
}

interface RawObject extends KubernetesObject {
  readonly spec?: unknown;
  readonly status?: unknown;
}

/** The object as a Config candidate: only the metadata fields the model uses. */
function toCandidate(o: RawObject): Record<string, unknown> {
  const m = o.metadata ?? {};
  const metadata: Record<string, unknown> = { name: m.name, namespace: m.namespace ?? '' };
  if (m.labels) metadata['labels'] = m.labels;
  if (m.annotations) metadata['annotations'] = m.annotations;
  if (m.resourceVersion) metadata['resourceVersion'] = m.resourceVersion;
  if (m.creationTimestamp) metadata['creationTimestamp'] = new Date(m.creationTimestamp).toISOString();
  if (m.generation !== undefined) metadata['generation'] = m.generation;
  const out: Record<string, unknown> = { apiVersion: o.apiVersion, kind: o.kind, metadata, spec: o.spec ?? {} };
  if (o.status !== undefined) out['status'] = o.status;
  return out;
}

/**
 * Whether an informer error means the kind's CRD is not installed (its list answers 404): such a kind
 * counts as synced and empty for the first batch, and is picked up when the CRD appears.
 */
export function isMissingCrd(error: InformerError): boolean {
  return error.phase === 'list' && error.error instanceof OrchApiError && error.error.status === 404;
}

/**
 * See the file comment. The first batch is emitted once every kind has listed (or is missing), even when
 * empty; then one batch per accepted change. `missing$` tells which informer paths answered 404 (feed it
 * from the factory's `onError` with {@link isMissingCrd}).
 */
export function crdConfigSource(opts: CrdConfigSourceOptions, missing$?: Observable<string>): Observable<readonly ModelInput[]> {
  return new Observable<readonly ModelInput[]>((subscriber) => {
    const kinds = opts.kinds ?? CRD_CONFIG_KINDS;
    const accepted = new Map<string, Config>();
    /** Per object key, the generation and outcome last told to `onStatus`. */
    const statusSent = new Map<string, string>();
    /** Reports held until the first batch (an accepted object enters the model with it). */
    let pendingStatus: CrdStatusReport[] = [];
    const report = (ckey: string, key: ConfigKey, generation: unknown, outcome: CrdStatusReport['outcome']): void => {
      if (!opts.onStatus || typeof generation !== 'number') return;
      const sent = `${generation}\n${outcome.accepted ? '' : outcome.message}`;
      if (statusSent.get(ckey) === sent) return;
      statusSent.set(ckey, sent);
      if (synced) opts.onStatus({ key, generation, outcome });
      else pendingStatus.push({ key, generation, outcome });
    };
    let synced = false;
    let pending: ModelInput[] = [];
    const emit = (events: ConfigEvent[]): void => {
      const inputs = events.map((event): ModelInput => ({ kind: 'config', event }));
      if (!synced) pending.push(...inputs);
      else if (inputs.length > 0) subscriber.next(inputs);
    };
    /** The current rejection of each object (its last version was bad), with its content hash and since when. */
    const rejections = new Map<string, { r: RejectedCrd; hash: string; since: string }>();
    const publish = (): void =>
      opts.rejections?.replace(
        'crd',
        [...rejections.values()].map(({ r, since }) => ({
          source: 'crd',
          object: `${r.kind} ${r.name}`,
          location: `resourceVersion ${r.resourceVersion}`,
          reason: r.errors.map((x) => (x.path ? `${x.path}: ${x.message}` : x.message)).join('; '),
          since,
          served: r.servedResourceVersion !== undefined ? `resourceVersion ${r.servedResourceVersion}` : null,
        })),
      );
    const handle = (e: InformerEvent<RawObject>): void => {
      opts.onEvent?.(e.object.kind ?? 'unknown', e.type === 'added' ? 'add' : e.type === 'updated' ? 'update' : 'delete');
      const candidate = toCandidate(e.object);
      const meta = candidate['metadata'] as { name: string; namespace: string; generation?: unknown };
      const ckey = configKeyString({ kind: e.object.kind ?? '', namespace: meta.namespace, name: meta.name });
      const prev = accepted.get(ckey);
      const key = { kind: e.object.kind ?? '', namespace: meta.namespace, name: meta.name };
      const hadRejection = rejections.get(ckey);
      if (e.type === 'deleted') {
        statusSent.delete(ckey);
        if (hadRejection) {
          rejections.delete(ckey);
          publish();
        }
        if (!prev) return;
        accepted.delete(ckey);
        emit([{ type: 'deleted', key, object: prev, resourceVersion: e.resourceVersion }]);
        return;
      }
      const tooBig = objectLimitError(e.object, opts.limits ?? DEFAULT_YAML_LIMITS);
      const result = tooBig === undefined ? validateConfig(candidate) : undefined;
      if (!result?.ok) {
        const errors = result ? result.errors.map((x) => ({ path: x.path, message: x.message })) : [{ path: '', message: tooBig! }];
        const detail = (): string => errors.map((x) => (x.path ? `${x.path}: ${x.message}` : x.message)).join('; ');
        // NOTE: a distinct bad version is distinct content: a status write (meshd's own, with
        // PILOT_ENABLE_STATUS) changes the resourceVersion, not what was rejected.
        const hash = tooBig !== undefined ? tooBig : createHash('sha256').update(JSON.stringify([candidate['spec'], e.object.metadata?.labels, e.object.metadata?.annotations])).digest('hex');
        const name = `${meta.namespace}/${meta.name}`;
        const servedResourceVersion = prev?.metadata.resourceVersion;
        const r: RejectedCrd = {
          kind: key.kind,
          name,
          resourceVersion: e.resourceVersion,
          errors,
          message: `${key.kind} ${name} (resourceVersion ${e.resourceVersion}): ${detail()}${prev ? `; still serving resourceVersion ${servedResourceVersion ?? '?'}` : ''}`,
          ...(servedResourceVersion !== undefined ? { servedResourceVersion } : {}),
        };
        if (hadRejection?.hash !== hash) {
          rejections.set(ckey, { r, hash, since: new Date().toISOString() });
          opts.onRejected?.(r);
        } else rejections.set(ckey, { ...hadRejection, r });
        publish();
        if (opts.onStatus) report(ckey, key, meta.generation, { accepted: false, message: detail() });
        // NOTE: the last valid version (prev) stays in the model: nothing is emitted.
        return;
      }
      if (hadRejection) {
        rejections.delete(ckey);
        publish();
        opts.onRecovered?.(hadRejection.r);
      }
      const config = candidate as unknown as Config;
      accepted.set(ckey, config);
      emit([{ type: prev ? 'updated' : 'added', key, object: config, resourceVersion: e.resourceVersion }]);
      // NOTE: after the emit: "accepted" means the object is in the batches the model reads.
      report(ckey, key, meta.generation, { accepted: true });
    };
    const subs = new Subscription();
    const informers = kinds.map((k) => opts.informers.informer<RawObject>(crdResource(k)));
    const missing = new Set<string>();
    const readiness = informers.map(
      (inf) =>
        new Observable<boolean>((s) => {
          const a = inf.synced$.subscribe((v) => s.next(v || missing.has(inf.path)));
          const b = missing$?.subscribe((path) => {
            missing.add(path);
            if (path === inf.path) s.next(true);
          });
          return () => {
            a.unsubscribe();
            b?.unsubscribe();
          };
        }),
    );
    for (const inf of informers) subs.add(inf.subscribe(handle));
    if (informers.length === 0) {
      synced = true;
      subscriber.next([]);
    }
    subs.add(
      combineLatest(readiness)
        .pipe(
          filter((all) => all.every(Boolean)),
          take(1),
        )
        .subscribe(() => {
          synced = true;
          const first = pending;
          pending = [];
          subscriber.next(first);
          const held = pendingStatus;
          pendingStatus = [];
          for (const r of held) opts.onStatus?.(r);
        }),
    );
    return () => {
      subs.unsubscribe();
      opts.rejections?.replace('crd', []);
    };
  });
}
