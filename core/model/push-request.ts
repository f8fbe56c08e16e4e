/**
 * A PushRequest says that proxies need new configuration, and why.
 *
 * Requests merge: the debounce stage folds every change that arrives inside one window into a single
 * request, and the push queue folds requests that arrive while a proxy is still being pushed. A request
 * the model emits carries the snapshot it was emitted with; a merged request carries the newer one.
 */
import { systemClock, type Clock } from '../clock/index.js';
import { newerSnapshot, type PushSnapshot } from './push-snapshot.js';

/** Why a push happened. A closed set, so it can label metrics (`pilot_push_triggers{type}`). */
export const PUSH_REASONS = [
  'endpoint', // endpoints of a service changed (EDS-only when nothing else changed)
  'config', // a mesh.io config (VirtualService, DestinationRule, ...) changed
  'service', // a service was added, updated or removed
  'proxy', // a proxy's own metadata or labels changed
  'global', // mesh config, networks config or a full re-sync
  'unknown',
  'debug', // forced from the debug interface
  'secret', // a referenced secret changed
  'networks', // mesh networks changed
  'proxyrequest', // a proxy asked (initial request, new subscription)
  'namespace', // namespace labels changed
  'clusterupdate', // a remote cluster was added or removed
] as const;
export type PushReason = (typeof PUSH_REASONS)[number];

// NOTE: ConfigKey lives in config-key.ts (no imports), so that config.ts and the collections need not
// import this file, which imports the snapshot and through it the PushContext.
import { ConfigKeySet, type ConfigKey } from './config-key.js';
export { ConfigKeySet, configKeyString, type ConfigKey } from './config-key.js';

/** What changed, why, and since when. Immutable once built; `mergePushRequests` makes a new one. */
export interface PushRequest {
  /**
   * True when the change may affect any xDS type (CDS, LDS, RDS and EDS are all reconsidered).
   * False means endpoints only: only EDS for the services in `configsUpdated` is pushed.
   */
  readonly full: boolean;
  /** How many changes of each reason were merged into this request. */
  readonly reasons: ReadonlyMap<PushReason, number>;
  /**
   * The configs (and, for endpoint changes, `ServiceEntry`-kind keys of the services) that changed.
   * Empty with `full` means "anything may have changed".
   */
  readonly configsUpdated: ConfigKeySet;
  /**
   * When the first merged change entered the pipeline, on the monotonic scale of the Clock that made the
   * request (`Clock.now`; for convergence metrics).
   */
  readonly start: number;
  /** True when this request came from the proxy itself (a request on its stream), not a config change. */
  readonly forced?: boolean;
  /**
   * What generators read for this push: taken when the debounced request was emitted (for a proxy's own
   * request: the newest published snapshot at that moment). Absent only on requests that have not left
   * the model yet (before debounce) or that a transport test makes without a model.
   */
  readonly snapshot?: PushSnapshot;
}

/** Builds a PushRequest with one reason; `start` defaults to `clock.now()` (the system clock by default). */
export function pushRequest(
  reason: PushReason,
  opts: { full: boolean; configs?: Iterable<ConfigKey>; start?: number },
  clock: Clock = systemClock,
): PushRequest {
  return {
    full: opts.full,
    reasons: new Map([[reason, 1]]),
    configsUpdated: opts.configs ? new ConfigKeySet(opts.configs) : ConfigKeySet.EMPTY,
    start: opts.start ?? clock.now(),
  };
}

/**
 * The request a proxy's own request calls for (first request, new subscription): full, forced, reading
 * `snapshot`, started at `clock.now()`.
 */
export function proxyRequestPush(snapshot: PushSnapshot | undefined, clock: Clock = systemClock): PushRequest {
  return { ...pushRequest('proxyrequest', { full: true }, clock), forced: true, ...(snapshot ? { snapshot } : {}) };
}

/** The configs a request names, as ConfigKey objects (a list; `req.configsUpdated` is the set). */
export function configKeysOf(req: PushRequest): readonly ConfigKey[] {
  return [...req.configsUpdated];
}

/** A copy of `req` reading `snapshot`. */
export function withSnapshot(req: PushRequest, snapshot: PushSnapshot): PushRequest {
  return { ...req, snapshot };
}

/**
 * Merges two requests: full if either is, reasons added, configs united, the earliest start kept, the
 * newer snapshot read.
 */
export function mergePushRequests(a: PushRequest | undefined, b: PushRequest): PushRequest {
  if (!a) return b;
  const reasons = new Map(a.reasons);
  for (const [r, n] of b.reasons) reasons.set(r, (reasons.get(r) ?? 0) + n);
  // NOTE: a full request with no named configs means "everything"; keep it that way when merging.
  const everything = (a.full && a.configsUpdated.size === 0) || (b.full && b.configsUpdated.size === 0);
  return {
    full: a.full || b.full,
    reasons,
    configsUpdated: everything ? ConfigKeySet.EMPTY : a.configsUpdated.union(b.configsUpdated),
    start: Math.min(a.start, b.start),
    forced: (a.forced ?? false) || (b.forced ?? false),
    ...snapshotField(newerSnapshot(a.snapshot, b.snapshot)),
  };
}

function snapshotField(s: PushSnapshot | undefined): { snapshot?: PushSnapshot } {
  return s ? { snapshot: s } : {};
}
