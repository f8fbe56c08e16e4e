/**
 * ProxylessGrpcGenerator: the generators of proxyless gRPC clients and servers (one TypeGenerator per type,
 * registered for nodes with metadata `GENERATOR: grpc`). It reads the snapshot each push carries
 * (PushContext and endpoints), never the newest model, builds LDS/RDS/CDS/EDS
 * with the builders in `grpc/`, encodes each resource once and shares the bytes through the XdsCache
 * (which refuses bytes built from a snapshot older than the entry's last invalidation).
 */
import { configKeysOf, nextTurn, pushPathSlicer, type Proxy, type PushRequest, type PushSnapshot, type TurnSlicer } from '../../core/index.js';
import type { Cluster, ClusterLoadAssignment, Listener, RouteConfiguration } from '../envoy-types/index.js';
import { XdsCache } from '../cache/xds-cache.js';
import { encode } from '../protos/codec.js';
import { TYPE_URL, type GenerateResult, type GeneratedResource, type TypeGenerator, type WatchedResource } from '../server/contracts.js';
import type { GeneratorRegistry } from '../server/generator-registry.js';
import { PROXYLESS_CDS_UNAFFECTED_KINDS } from './cds.js';
import { incrementalEdsHosts, PROXYLESS_EDS_UNAFFECTED_KINDS } from './eds.js';
import { CacheKeys } from './cache-keys.js';
import { allClusterNames, buildCluster } from './grpc/cluster-builder.js';
import { buildLoadAssignment } from './grpc/endpoint-builder.js';
import { ENVOY, parseOutboundClusterName } from './grpc/envoy.js';
import { buildClientListener, buildServerListener, isServerListenerName } from './grpc/listener-builder.js';
import { buildRouteConfiguration } from './grpc/route-builder.js';
import { PROXYLESS_LDS_UNAFFECTED_KINDS } from './lds.js';
import { PROXYLESS_RDS_UNAFFECTED_KINDS } from './rds.js';
import type { SidecarBuilderOptions } from './sidecar/builder-options.js';

/**
 * Options of the generators, read once from env by the caller: the proxyless generator's own and the Envoy
 * builders' (SidecarBuilderOptions, passed on to the sidecar and router generators).
 */
export interface GrpcGeneratorOptions extends SidecarBuilderOptions {
  /** PILOT_ENABLE_XDS_CACHE */
  readonly enableCache: boolean;
  /** PILOT_ENABLE_CDS_CACHE (only with enableCache) */
  readonly enableCdsCache: boolean;
  /** PILOT_ENABLE_RDS_CACHE (only with enableCache) */
  readonly enableRdsCache: boolean;
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
  /**
   * PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION (default true): virtual hosts with the same routes are merged in
   * router (gateway) route configurations (the router generator's option; istiod never collapses sidecar routes).
   */
  readonly routeCollapse?: boolean;
  /**
   * ENABLE_OPTIMIZED_CONFIG_REBUILD (default true): a full push drops only the cached resources that
   * depend on the configs it names. False: every full push drops the whole cache, so everything is rebuilt.
   */
  readonly optimizedConfigRebuild?: boolean;
  /** The cache to use (shared with the debug interface); made from `cacheSize` when absent. */
  readonly cache?: XdsCache;
  /** PILOT_XDS_CACHE_SIZE, used when no cache is given. */
  readonly cacheSize?: number;
  /**
   * Decides when generation yields the event loop between resources; default the process-wide
   * `pushPathSlicer`. Tests pass one that yields at chosen points to interleave config changes.
   */
  readonly slicer?: Pick<TurnSlicer, 'overBudget'>;
}

/** Thrown for a push that carries no snapshot (a bug in the caller: the model and transport always attach one). */
export class MissingSnapshotError extends Error {
  override readonly name = 'MissingSnapshotError';
}

/** The snapshot a push reads; throws MissingSnapshotError without one. */
export function snapshotOf(push: PushRequest): PushSnapshot {
  if (!push.snapshot) throw new MissingSnapshotError('push request carries no snapshot: generators read only the snapshot a push carries');
  return push.snapshot;
}

/** An Envoy resource the proxyless generators build, in the codec's plain-object form. */
export type EnvoyResource = Cluster | ClusterLoadAssignment | Listener | RouteConfiguration;

interface Built {
  readonly resource: EnvoyResource;
  readonly dependencies: readonly string[];
}

/** See the file comment. */
export class ProxylessGrpcGenerator {
  readonly #opts: GrpcGeneratorOptions;
  readonly cache: XdsCache;
  readonly #keys = new CacheKeys();

  constructor(opts: GrpcGeneratorOptions) {
    this.#opts = opts;
    this.cache = opts.cache ?? new XdsCache({ maxSize: opts.cacheSize ?? 60000 });
  }

  /** The node metadata `GENERATOR` value of the proxies this generator serves. */
  static readonly GENERATOR = 'grpc';

  /** One TypeGenerator per type this generator serves, each with the kinds that cannot change it for proxyless clients. */
  typeGenerators(): TypeGenerator[] {
    const of = (typeUrl: string, unaffectedKinds: ReadonlySet<string>): TypeGenerator => ({
      typeUrl,
      unaffectedKinds,
      generate: (proxy, watched, push) => this.generate(proxy, watched, push),
    });
    return [
      of(TYPE_URL.cluster, PROXYLESS_CDS_UNAFFECTED_KINDS),
      of(TYPE_URL.endpoint, PROXYLESS_EDS_UNAFFECTED_KINDS),
      of(TYPE_URL.listener, PROXYLESS_LDS_UNAFFECTED_KINDS),
      of(TYPE_URL.route, PROXYLESS_RDS_UNAFFECTED_KINDS),
    ];
  }

  /** Registers the type generators for proxyless gRPC nodes (metadata `GENERATOR: grpc`). */
  register(registry: GeneratorRegistry): void {
    for (const g of this.typeGenerators()) registry.register({ generator: ProxylessGrpcGenerator.GENERATOR }, g);
  }

  /**
   * Drops cached bytes a push invalidates, and refuses later writes built from older snapshots. Call once
   * per debounced push, as it leaves the model and before the transport generates (see MeshDiscovery).
   */
  invalidate(push: PushRequest): void {
    const token = snapshotOf(push).token;
    const everything = push.full && (push.configsUpdated.size === 0 || this.#opts.optimizedConfigRebuild === false);
    if (everything) this.cache.clearAll(token);
    else this.cache.clear(configKeysOf(push), token);
  }

  /** Builds (or reads cached) resources of one type for a proxyless proxy; undefined for a type it does not serve. */
  generate(p: Proxy, watched: WatchedResource, push: PushRequest): Promise<GenerateResult> | undefined {
    const snap = snapshotOf(push);
    const ctx = snap.pushContext;
    const o = this.#opts;
    switch (watched.typeUrl) {
      case TYPE_URL.listener:
        return this.#each(snap.token, watched, noNames, ENVOY.listener, {
          key: (name) => (isServerListenerName(name) ? undefined : `lds|${name}|${p.namespace}`),
          build: (name) => (isServerListenerName(name) ? buildServerListener(ctx, p, name) : buildClientListener(ctx, p, name)),
        });
      case TYPE_URL.route:
        return this.#each(snap.token, watched, noNames, ENVOY.route, {
          key: (name) => (o.enableRdsCache ? this.#keys.route(ctx, p, name) : undefined),
          build: (name) => buildRouteConfiguration(ctx, p, name),
        });
      case TYPE_URL.cluster: {
        const sas = (host: string): string[] => snap.endpoints.instances(host, p.namespace).map((i) => i.serviceAccount);
        return this.#each(snap.token, watched, () => allClusterNames(ctx, p), ENVOY.cluster, {
          key: (name) => (o.enableCdsCache ? this.#keys.cluster(ctx, p, name) : undefined),
          build: (name) => buildCluster(ctx, p, name, { serviceAccounts: sas }),
        });
      }
      case TYPE_URL.endpoint: {
        const index = snap.endpoints;
        // NOTE: an endpoint-only push sends the assignments of the changed services only (see incrementalEdsHosts).
        const changedHosts = incrementalEdsHosts(push);
        return this.#each(snap.token, watched, () => allClusterNames(ctx, p), ENVOY.endpoint, {
          key: (name) => this.#keys.endpoints(ctx, p, name),
          build: (name) => buildLoadAssignment(ctx, p, name, index, { sendUnhealthyEndpoints: o.sendUnhealthyEndpoints }),
          ...(changedHosts ? { only: changedNames(changedHosts) } : {}),
        });
      }
      default:
        return undefined;
    }
  }

  /** The plain-object build of one resource from a snapshot, not encoded nor cached (for tests and debugging). */
  buildObject(p: Proxy, typeUrl: string, name: string, snap: PushSnapshot): EnvoyResource | undefined {
    const ctx = snap.pushContext;
    switch (typeUrl) {
      case TYPE_URL.listener:
        return (isServerListenerName(name) ? buildServerListener(ctx, p, name) : buildClientListener(ctx, p, name))?.resource;
      case TYPE_URL.route:
        return buildRouteConfiguration(ctx, p, name)?.resource;
      case TYPE_URL.cluster:
        return buildCluster(ctx, p, name, { serviceAccounts: (h) => snap.endpoints.instances(h, p.namespace).map((i) => i.serviceAccount) })?.resource;
      case TYPE_URL.endpoint:
        return buildLoadAssignment(ctx, p, name, snap.endpoints, { sendUnhealthyEndpoints: this.#opts.sendUnhealthyEndpoints })?.resource;
      default:
        return undefined;
    }
  }

  async #each(
    /** The token of the snapshot the resources are built from (cache writes carry it). */
    token: number,
    watched: WatchedResource,
    /** The names a wildcard request gets; only called for wildcard requests (it can cost a pass over all services). */
    wildcardNames: () => readonly string[],
    typeName: string,
    how: {
      key: (name: string) => string | undefined;
      build: (name: string) => Built | undefined;
      /** Set on an incremental push: the names it changed; the result then holds only those and is marked incremental. */
      only?: (name: string) => boolean;
    },
  ): Promise<GenerateResult> {
    // NOTE: an incremental push filters before sorting: of a proxy's watched names it keeps the changed few.
    const wildcard = watched.wildcard && watched.names.size === 0;
    const names: string[] = [];
    for (const name of wildcard ? wildcardNames() : watched.names) if (!how.only || how.only(name)) names.push(name);
    if (!wildcard) names.sort();
    const resources: GeneratedResource[] = [];
    for (const name of names) {
      // NOTE: keep the event loop responsive: many connections generating one after another in promise
      // chains share one slice of the turn (see TurnSlicer).
      if ((this.#opts.slicer ?? pushPathSlicer).overBudget()) await nextTurn();
      const cacheKey = this.#opts.enableCache ? how.key(name) : undefined;
      const hit = cacheKey !== undefined ? this.cache.get(cacheKey, token) : undefined;
      if (hit) {
        resources.push({ name, body: hit });
        continue;
      }
      const built = how.build(name);
      if (!built) continue;
      const body = encode(typeName, built.resource);
      // NOTE: refused when a change invalidated the key or its inputs while this push was being built.
      if (cacheKey !== undefined) this.cache.set(cacheKey, body, built.dependencies, token);
      resources.push({ name, body });
    }
    return how.only ? { resources, incremental: true } : { resources };
  }
}

const noNames = (): readonly string[] => [];

/** Per set of changed hosts (one per incremental push, see incrementalEdsHosts): cluster name -> whether it is one of them. */
const changedNameMemo = new WeakMap<ReadonlySet<string>, Map<string, boolean>>();

/**
 * Whether a cluster name belongs to a changed host, memoized per push: every proxy of a push asks about
 * the same few names, so each is parsed once per push instead of once per proxy.
 */
function changedNames(hosts: ReadonlySet<string>): (name: string) => boolean {
  let memo = changedNameMemo.get(hosts);
  if (!memo) changedNameMemo.set(hosts, (memo = new Map()));
  const m = memo;
  return (name) => {
    let hit = m.get(name);
    if (hit === undefined) m.set(name, (hit = hosts.has(parseOutboundClusterName(name)?.host ?? '')));
    return hit;
  };
}

export { routeKey, sharedClusterKey } from './cache-keys.js';
