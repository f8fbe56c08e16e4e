/**
 * SidecarGenerator: the generators of dataplane sidecars (proxy type `sidecar` without `GENERATOR`
 * metadata), one TypeGenerator per xDS type (LDS, RDS, CDS, EDS). It reads only the snapshot each push
 * carries and builds with the builders beside it. Outbound clusters, load assignments, outbound
 * listeners and route configurations (from cached virtual hosts, sidecar-route-cache.ts) are encoded once
 * and shared through the XdsCache by every sidecar with the same inputs (keys and dependencies in
 * sidecar-cache-keys.ts), and so are `virtualInbound` and the inbound clusters by the sidecars of one workload
 * (sidecar-inbound-cache.ts, inboundClusterKey); the cache refuses bytes built from a snapshot older than the
 * entry's last invalidation. Special clusters and `virtualOutbound` are encoded once per snapshot and Sidecar
 * scope (ScopeMemo); a bound Sidecar ingress listener (captureMode NONE) is the proxy's own.
 */
import { definedFields, nextTurn, pushPathSlicer, type Proxy, type PushRequest, type PushSnapshot, type TurnSlicer } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { encode } from '../../protos/codec.js';
import { sortedNames, TYPE_URL, xdsType, type GenerateResult, type GeneratedResource, type TypeGenerator, type WatchedResource } from '../../server/contracts.js';
import { defaultNeedsPush, type GeneratorRegistry } from '../../server/generator-registry.js';
import { incrementalEdsHosts } from '../eds.js';
import { snapshotOf } from '../grpc-generator.js';
import { buildSidecarClusters } from './cluster-builder.js';
import { buildSidecarLoadAssignment } from './endpoint-builder.js';
import { CLUSTER_CONFLICT_METRICS, ROUTE_CONFLICT_METRICS, type Conflict, type ConflictRecorder, type ConflictSink } from './conflict-recorder.js';
import { buildSidecarListeners } from './listener-builder.js';
import { buildBoundInboundListeners, type InboundListenerOptions } from './inbound-listeners.js';
import { buildVirtualOutbound, virtualOutboundBinds } from './outbound-listeners.js';
import { buildSidecarRouteConfiguration } from './route-builder.js';
import { cachedOutboundListeners } from './sidecar-listener-cache.js';
import { cachedVirtualInbound } from './sidecar-inbound-cache.js';
import { ENVOY_MESSAGE_BY_TYPE_URL, VIRTUAL_OUTBOUND } from './sidecar-names.js';
import { ScopeMemo } from './scope-memo.js';
import { changedClusterItems, clusterItems, clusterOptions, endpointItems, routeItems, watchedOfHosts, type Item } from './sidecar-items.js';
import { BuiltSnapshots, changedServiceHosts } from './changed-services.js';
import { interceptionNone } from './outbound-entries.js';
import type { SidecarBuilderOptions } from './builder-options.js';
import type { NetworkFilterOptions } from './tcp-listener-builder.js';
import { sidecarScope } from './sidecar-scope.js';

/** Options of the sidecar generator, read once by the caller. */
export interface SidecarGeneratorOptions extends SidecarBuilderOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
  /** When generation yields the event loop (default the process-wide `pushPathSlicer`). */
  readonly slicer?: Pick<TurnSlicer, 'overBudget'>;
  /** PILOT_ENABLE_XDS_CACHE (default false: every resource is built for every proxy). */
  readonly enableCache?: boolean;
  /** PILOT_ENABLE_CDS_CACHE (only with enableCache) */
  readonly enableCdsCache?: boolean;
  /** PILOT_ENABLE_RDS_CACHE (only with enableCache) */
  readonly enableRdsCache?: boolean;
  /**
   * The cache to use, shared with the proxyless generator (whose `invalidate` clears it once per push);
   * made from `cacheSize` when absent, and then the caller must call `invalidate` itself.
   */
  readonly cache?: XdsCache;
  /** PILOT_XDS_CACHE_SIZE, used when no cache is given. */
  readonly cacheSize?: number;
  /** Where conflicts are counted (pilot_conflict_*, pilot_vservice_dup_domain, pilot_duplicate_dataplane_clusters, pilot_dns_cluster_without_endpoints); none: not counted. */
  readonly conflicts?: ConflictRecorder;
}


/** The listener builders' options from the generator's. */
function listenerOptions(o: SidecarBuilderOptions): InboundListenerOptions & NetworkFilterOptions {
  return { tlsOnSidecarIngress: o.tlsOnSidecarIngress === true, ...definedFields(o, ['redisFilter', 'mongoFilter', 'listener']) };
}

/**
 * The conflicts met while building bytes (duplicate domains of a route configuration), reported again by
 * every proxy served those bytes from the cache or the ScopeMemo (as sidecar-listener-cache.ts replays a
 * cached listener's conflicts).
 */
const conflictsOf = new WeakMap<Uint8Array, readonly Conflict[]>();


/**
 * Config kinds that cannot change a sidecar's resources beyond each type descriptor's own (which hold
 * istiod's `skippedCdsConfigs`, `skippedEdsConfigs` and `skippedRdsConfigs`): istiod's
 * `skippedLdsConfigs[SidecarProxy]` adds Gateway to what LDS skips for every
 * proxy type; CDS and RDS skip nothing more for sidecars (a VirtualService widens a Sidecar scope, so
 * it can change clusters).
 * LDS and RDS read DestinationRules (route-hash.ts: the consistent hash of routes, the source-IP hash of tcp_proxy).
 */
export const SIDECAR_CDS_UNAFFECTED: ReadonlySet<string> = new Set();
/** See SIDECAR_CDS_UNAFFECTED. */
export const SIDECAR_EDS_UNAFFECTED: ReadonlySet<string> = new Set(['VirtualService']);
/** See SIDECAR_CDS_UNAFFECTED. */
export const SIDECAR_LDS_UNAFFECTED: ReadonlySet<string> = new Set(['Gateway']);
/** See SIDECAR_CDS_UNAFFECTED. */
export const SIDECAR_RDS_UNAFFECTED: ReadonlySet<string> = new Set();
/** Kinds that cannot change a sidecar's clusters: the CDS descriptor's and the sidecar's own (see changedServiceHosts). */
const CDS_UNAFFECTED: ReadonlySet<string> = new Set([...(xdsType(TYPE_URL.cluster)?.unaffectedKinds ?? []), ...SIDECAR_CDS_UNAFFECTED]);
/** Kinds that cannot change a sidecar's load assignments: the EDS descriptor's and the sidecar's own. */
const EDS_UNAFFECTED: ReadonlySet<string> = new Set([...(xdsType(TYPE_URL.endpoint)?.unaffectedKinds ?? []), ...SIDECAR_EDS_UNAFFECTED]);

/** The resources of one type a sidecar gets, as plain objects keyed by name (for tests, debugging and the consistency checker). */
export function buildSidecarResources(p: Proxy, typeUrl: string, snap: PushSnapshot, names: readonly string[] | undefined, opts: Pick<SidecarGeneratorOptions, 'sendUnhealthyEndpoints' | 'conflicts'> & SidecarBuilderOptions): Map<string, Record<string, unknown>> {
  const ctx = snap.pushContext;
  const out = new Map<string, Record<string, unknown>>();
  const byName = (list: readonly Record<string, unknown>[]): void => {
    const want = names && names.length > 0 ? new Set(names) : undefined;
    for (const r of list) if (!want || want.has(r['name'] as string)) out.set(r['name'] as string, r);
  };
  switch (typeUrl) {
    case TYPE_URL.listener:
      // NOTE: observe first: a build that meets no conflict still clears an older snapshot's counts.
      opts.conflicts?.observe(snap.token);
      byName(buildSidecarListeners(ctx, p, snap.endpoints, opts.conflicts?.sink(snap.token), listenerOptions(opts)));
      break;
    case TYPE_URL.cluster:
      opts.conflicts?.observe(snap.token, CLUSTER_CONFLICT_METRICS);
      byName(buildSidecarClusters(ctx, p, { endpoints: snap.endpoints, ...clusterOptions(opts) }, opts.conflicts?.sink(snap.token)));
      break;
    case TYPE_URL.route: {
      opts.conflicts?.observe(snap.token, ROUTE_CONFLICT_METRICS);
      const sink = opts.conflicts?.sink(snap.token);
      for (const n of names ?? []) {
        const r = buildSidecarRouteConfiguration(ctx, p, n);
        for (const k of r?.duplicateDomains ?? []) sink?.('pilot_vservice_dup_domain', k);
        if (r) out.set(n, r.resource);
      }
      break;
    }
    case TYPE_URL.endpoint:
      for (const n of names ?? []) {
        const r = buildSidecarLoadAssignment(ctx, p, n, snap.endpoints, opts);
        if (r) out.set(n, r);
      }
      break;
    default:
      break;
  }
  return out;
}

const MESSAGE = ENVOY_MESSAGE_BY_TYPE_URL;

/**
 * Whether a push may change a sidecar's clusters: the default rule, except that a full push naming only
 * VirtualServices changes them only for a proxy whose Sidecar narrows its scope (VirtualService
 * destinations then join it; no cluster is shaped by a VirtualService otherwise). Without a snapshot
 * (which a push from the model always carries) the default rule decides.
 */
export function sidecarCdsNeedsPush(p: Proxy, push: PushRequest): boolean {
  if (!defaultNeedsPush(TYPE_URL.cluster, push, SIDECAR_CDS_UNAFFECTED)) return false;
  if (push.forced || push.reasons.has('proxyrequest') || push.reasons.has('debug') || !push.snapshot || push.configsUpdated.size === 0) return true;
  for (const k of push.configsUpdated) if (k.kind !== 'VirtualService') return true;
  // NOTE: only VirtualServices changed, so Services and Sidecars (and thus whether the scope is narrowed) did not.
  return sidecarScope(push.snapshot.pushContext, p).narrowed;
}

/** See the file comment. */
export class SidecarGenerator {
  readonly #opts: SidecarGeneratorOptions;
  readonly cache: XdsCache;
  readonly #memo = new ScopeMemo();
  /** The snapshot each proxy's resources of each type were last built from (see changedServiceHosts). */
  readonly #built = new BuiltSnapshots();
  /** The listener builders' options, made once (they are read for every sidecar's LDS). */
  readonly #listenerOpts: InboundListenerOptions & NetworkFilterOptions;

  constructor(opts: SidecarGeneratorOptions) {
    this.#opts = opts;
    this.cache = opts.cache ?? new XdsCache({ maxSize: opts.cacheSize ?? 60000 });
    this.#listenerOpts = listenerOptions(opts);
  }

  /** The node type these generators serve. */
  static readonly PROXY_TYPE = 'sidecar';

  /** One TypeGenerator per xDS type, each with the kinds that cannot change it for a sidecar beyond its descriptor's. */
  typeGenerators(): TypeGenerator[] {
    const of = (typeUrl: string, unaffectedKinds: ReadonlySet<string>, needsPush?: TypeGenerator['needsPush']): TypeGenerator => ({
      typeUrl,
      unaffectedKinds,
      ...(needsPush ? { needsPush } : {}),
      generate: (proxy, watched, push) => this.generate(proxy, watched, push),
    });
    return [
      of(TYPE_URL.cluster, SIDECAR_CDS_UNAFFECTED, sidecarCdsNeedsPush),
      of(TYPE_URL.endpoint, SIDECAR_EDS_UNAFFECTED),
      of(TYPE_URL.listener, SIDECAR_LDS_UNAFFECTED),
      of(TYPE_URL.route, SIDECAR_RDS_UNAFFECTED),
    ];
  }

  /** Registers the type generators for proxy type `sidecar` (GENERATOR-specific generators still win). */
  register(registry: GeneratorRegistry): void {
    for (const g of this.typeGenerators()) registry.register({ proxyType: SidecarGenerator.PROXY_TYPE }, g);
  }

  /** Drops the cached bytes a push invalidates (only for a cache of its own: a shared cache is cleared by its owner). */
  invalidate(push: PushRequest): void {
    const token = snapshotOf(push).token;
    if (push.full && push.configsUpdated.size === 0) this.cache.clearAll(token);
    else this.cache.clear(push.configsUpdated, token);
  }

  /** Builds (or reads cached) and encodes the resources of one type for a sidecar from the push's snapshot. */
  async generate(p: Proxy, watched: WatchedResource, push: PushRequest): Promise<GenerateResult> {
    const snap = snapshotOf(push);
    const typeName = MESSAGE[watched.typeUrl];
    if (!typeName) return { resources: [] };
    const prev = this.#built.get(p, watched.typeUrl);
    // NOTE: what the proxy holds of this type now reflects `snap`, except after an answer to new EDS names alone.
    if (watched.wildcard || !push.reasons.has('proxyrequest')) this.#built.record(p, watched.typeUrl, snap);
    // NOTE: an endpoint-only push, or one changing services and DestinationRules only, sends the assignments of
    // the changed services only (see incrementalEdsHosts and changedServiceHosts).
    const changedHosts = watched.typeUrl === TYPE_URL.endpoint ? (incrementalEdsHosts(push, SIDECAR_EDS_UNAFFECTED) ?? changedServiceHosts(push, snap, prev, p, EDS_UNAFFECTED)) : undefined;
    const names = changedHosts ? watchedOfHosts(snap, p, watched, changedHosts) : watched.wildcard && watched.names.size === 0 ? undefined : sortedNames(watched.names);
    const o = this.#opts;
    const cached = o.enableCache === true;
    let items: readonly Item[] | undefined;
    const memo = cached ? this.#memo : undefined;
    const cdsMemo = cached && o.enableCdsCache === true ? memo : undefined;
    // NOTE: over delta, a push changing services and DestinationRules only sends those services' clusters (istiod's delta CDS).
    if (watched.typeUrl === TYPE_URL.cluster && cdsMemo && !names && watched.delta === true && prev) {
      const delta = changedClusterItems(p, snap, prev, push, cdsMemo, o, CDS_UNAFFECTED);
      if (delta) return { resources: await this.#resolve(delta.items, snap, typeName, this.#sinkFor(watched.typeUrl, snap)), removed: delta.removed, incremental: true };
    }
    if (watched.typeUrl === TYPE_URL.cluster) items = clusterItems(p, snap, names, cdsMemo, cdsMemo !== undefined, o);
    else if (watched.typeUrl === TYPE_URL.endpoint) items = endpointItems(p, snap, names ?? [], memo, o);
    else if (watched.typeUrl === TYPE_URL.route) items = routeItems(p, snap, names ?? [], cached && o.enableRdsCache === true ? this.cache : undefined);
    if (watched.typeUrl === TYPE_URL.listener && cached) return { resources: this.#cachedListeners(p, snap, names, typeName) };
    if (!items) {
      const resources: GeneratedResource[] = [];
      for (const [name, r] of buildSidecarResources(p, watched.typeUrl, snap, names, o)) {
        // NOTE: keep the event loop responsive between resources (see TurnSlicer).
        if ((o.slicer ?? pushPathSlicer).overBudget()) await nextTurn();
        resources.push({ name, body: encode(typeName, r) });
      }
      return { resources };
    }
    const resources = await this.#resolve(items, snap, typeName, this.#sinkFor(watched.typeUrl, snap));
    return changedHosts ? { resources, incremental: true } : { resources };
  }

  /**
   * The sink of the conflicts a build of `typeUrl` from `snap` meets, after noting the build (so a build that
   * meets none still clears an older snapshot's counts); none for EDS or without a recorder.
   */
  #sinkFor(typeUrl: string, snap: PushSnapshot): ConflictSink | undefined {
    const conflicts = this.#opts.conflicts;
    if (!conflicts) return undefined;
    if (typeUrl === TYPE_URL.cluster) conflicts.observe(snap.token, CLUSTER_CONFLICT_METRICS);
    else if (typeUrl === TYPE_URL.route) conflicts.observe(snap.token, ROUTE_CONFLICT_METRICS);
    else return undefined;
    return conflicts.sink(snap.token);
  }

  /**
   * The encoded resources of `items` (sorted by name): bytes already known, cache hits, else built, encoded
   * and cached. What a build met goes to `sink`, and again on every later use of the same bytes.
   */
  async #resolve(items: readonly Item[], snap: PushSnapshot, typeName: string, sink?: ConflictSink): Promise<GeneratedResource[]> {
    const o = this.#opts;
    const resources: GeneratedResource[] = [];
    // NOTE: items come sorted by name, so a repeated name is adjacent: as istiod's normalizeClusters (and
    // buildSidecarClusters), the first is kept and the others are counted (pilot_duplicate_dataplane_clusters,
    // only clusters can repeat a name). The same names and bytes with the cache on or off.
    const put = (it: Item, body: Uint8Array): void => {
      for (const [metric, k] of conflictsOf.get(body) ?? []) sink?.(metric, k);
      if (resources.length > 0 && resources[resources.length - 1]!.name === it.name) {
        sink?.('pilot_duplicate_dataplane_clusters', it.name);
        return;
      }
      // NOTE: a shared item's resource object is made once per snapshot, not once per proxy.
      resources.push(it.body === body ? (it.resource ??= { name: it.name, body }) : { name: it.name, body });
    };
    for (const it of items) {
      if (it.body) {
        put(it, it.body);
        continue;
      }
      if ((o.slicer ?? pushPathSlicer).overBudget()) await nextTurn();
      const hit = it.key !== undefined ? this.cache.get(it.key, snap.token) : undefined;
      if (hit) {
        if (it.key !== undefined) it.body = hit;
        put(it, hit);
        continue;
      }
      const met: Conflict[] = [];
      const record: ConflictSink = (metric, k) => {
        met.push([metric, k]);
      };
      const built = it.encoded ? it.encoded(record) : it.build(record);
      if (!built) {
        // NOTE: nothing is cached for a dropped resource, so the next proxy builds (and reports) it again.
        for (const [metric, k] of met) sink?.(metric, k);
        continue;
      }
      const body = 'body' in built ? built.body : encode(typeName, built.resource);
      if (met.length > 0) conflictsOf.set(body, met);
      // NOTE: refused when a change invalidated the key or its inputs while this push was being built.
      if (it.key !== undefined) {
        this.cache.set(it.key, body, built.dependencies, snap.token);
        it.body = body;
      }
      put(it, body);
    }
    return resources;
  }

  /** LDS with the outbound listeners from the cache (sidecar-listener-cache.ts); the same names, order and bytes as uncached. */
  #cachedListeners(p: Proxy, snap: PushSnapshot, names: readonly string[] | undefined, typeName: string): GeneratedResource[] {
    const ctx = snap.pushContext;
    const conflicts = this.#opts.conflicts;
    // NOTE: observe first, as buildSidecarResources: a build that meets no conflict still clears an older snapshot's counts.
    conflicts?.observe(snap.token);
    const sink = conflicts?.sink(snap.token);
    const scope = sidecarScope(ctx, p);
    const listener = this.#opts.listener;
    // NOTE: virtualOutbound reads only the scope (its outbound mode and Sidecar) and the addresses it binds
    // (the proxy's IP mode with MESH_DUAL_STACK / MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS);
    // virtualInbound is shared by the proxies with the same inputs (sidecar-inbound-cache.ts).
    const own: { name: string; body: Uint8Array }[] = [];
    // NOTE: as istiod, a proxy that does not intercept (INTERCEPTION_MODE NONE) gets no virtual listeners.
    if (!interceptionNone(p)) {
      const vo = `lds-virtualOutbound|${virtualOutboundBinds(p, listener).join(',')}`;
      const outboundBody = this.#memo.of(snap, scope, vo, () => encode(typeName, buildVirtualOutbound(ctx, p, listener)));
      own.push({ name: VIRTUAL_OUTBOUND, body: outboundBody }, cachedVirtualInbound(this.cache, ctx, p, snap, (l) => encode(typeName, l), sink, this.#listenerOpts));
    }
    // NOTE: Sidecar ingress ports with captureMode NONE: listeners of the proxy's own, like virtualInbound.
    for (const l of buildBoundInboundListeners(ctx, p, snap.endpoints, this.#listenerOpts)) own.push({ name: String(l['name']), body: encode(typeName, l) });
    const outbound = cachedOutboundListeners(this.cache, ctx, p, scope, snap, (l) => encode(typeName, l), sink, this.#listenerOpts);
    const want = names && names.length > 0 ? new Set(names) : undefined;
    const byName = new Map<string, Uint8Array>();
    for (const l of [...own, ...outbound].sort((a, b) => (a.name < b.name ? -1 : 1))) if (!want || want.has(l.name)) byName.set(l.name, l.body);
    return [...byName].map(([name, body]) => ({ name, body }));
  }
}
