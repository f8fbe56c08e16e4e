/**
 * RouterGenerator: the generators of router (gateway) proxies (node type `router` without `GENERATOR`
 * metadata), one TypeGenerator per xDS type. LDS from the Gateways that select the proxy (merged per
 * port, see merged-gateway.ts), RDS from the VirtualServices bound to them, CDS the outbound clusters of
 * every service visible to the gateway's namespace (istiod's default for gateways), the SNI-DNAT clusters
 * of its AUTO_PASSTHROUGH servers (sni-dnat.ts) plus BlackHoleCluster, EDS their load assignments: clusters and load assignments come from the sidecar's builders. Built per
 * proxy from the snapshot each push carries (a gateway fleet is small; nothing is cached).
 */
import { definedFields, nextTurn, pushPathSlicer, type Proxy, type PushRequest, type PushSnapshot, type TurnSlicer } from '../../../core/index.js';
import { encode } from '../../protos/codec.js';
import { sortedNames, TYPE_URL, type GenerateResult, type GeneratedResource, type TypeGenerator, type WatchedResource } from '../../server/contracts.js';
import type { GeneratorRegistry } from '../../server/generator-registry.js';
import { snapshotOf } from '../grpc-generator.js';
import { buildOutboundClusters, buildSpecialClusters } from '../sidecar/cluster-builder.js';
import { proxyInstances } from '../sidecar/inbound-clusters.js';
import { buildSidecarLoadAssignment } from '../sidecar/endpoint-builder.js';
import { BLACKHOLE_CLUSTER, ENVOY_MESSAGE_BY_TYPE_URL } from '../sidecar/sidecar-names.js';
import { mergeGateways } from './merged-gateway.js';
import { buildRouterListeners } from './router-listener-builder.js';
import { buildRouterRouteConfiguration, emptyRouteConfiguration } from './router-route-builder.js';
import { buildSniDnatClusters, buildSniDnatLoadAssignment } from './sni-dnat.js';

/** Options of the router generator, read once by the caller. */
export interface RouterGeneratorOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
  /** When generation yields the event loop (default the process-wide `pushPathSlicer`). */
  readonly slicer?: Pick<TurnSlicer, 'overBudget'>;
  /** ENABLE_AUTO_SNI (default true; see the sidecar's OutboundClusterOptions). */
  readonly autoSni?: boolean;
  /** VERIFY_CERTIFICATE_AT_CLIENT (default true; see the sidecar's OutboundClusterOptions). */
  readonly verifyCertAtClient?: boolean;
  /** PILOT_ENABLE_REDIS_FILTER (default false): MAGLEV for REDIS ports' clusters (see OutboundClusterOptions). */
  readonly redisFilter?: boolean;
  /** PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION (default true; see RouterRouteOptions). */
  readonly routeCollapse?: boolean;
}

/**
 * Config kinds that cannot change a router's resources beyond each type descriptor's own: none. Unlike
 * a sidecar's LDS (which skips Gateway), a router's listeners and routes are made of Gateways.
 */
export const ROUTER_UNAFFECTED: ReadonlySet<string> = new Set();

/** The resources of one type a router gets, as plain objects keyed by name (for tests, meshctl and the consistency checker). */
export function buildRouterResources(p: Proxy, typeUrl: string, snap: PushSnapshot, names: readonly string[] | undefined, opts: RouterGeneratorOptions): Map<string, Record<string, unknown>> {
  const ctx = snap.pushContext;
  const out = new Map<string, Record<string, unknown>>();
  const want = names && names.length > 0 ? new Set(names) : undefined;
  const byName = (list: readonly Record<string, unknown>[]): void => {
    for (const r of list) if (!want || want.has(r['name'] as string)) out.set(r['name'] as string, r);
  };
  switch (typeUrl) {
    case TYPE_URL.listener:
      byName(buildRouterListeners(ctx, p, mergeGateways(ctx, p, snap.endpoints)));
      break;
    case TYPE_URL.cluster: {
      const clusters = [
        ...buildOutboundClusters(ctx, p, snap.endpoints, definedFields(opts, ['autoSni', 'verifyCertAtClient', 'redisFilter'])),
        ...buildSniDnatClusters(ctx, p, mergeGateways(ctx, p, snap.endpoints), snap.endpoints, definedFields(opts, ['redisFilter'])),
        ...buildSpecialClusters(ctx).filter((c) => c['name'] === BLACKHOLE_CLUSTER),
      ];
      byName(clusters.sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1)));
      break;
    }
    case TYPE_URL.route: {
      const merged = mergeGateways(ctx, p, snap.endpoints);
      for (const n of names ?? []) out.set(n, buildRouterRouteConfiguration(ctx, p, merged, n, definedFields(opts, ['routeCollapse']))?.resource ?? emptyRouteConfiguration(n));
      break;
    }
    case TYPE_URL.endpoint:
      for (const n of names ?? []) {
        const r = buildSidecarLoadAssignment(ctx, p, n, snap.endpoints, opts) ?? buildSniDnatLoadAssignment(ctx, p, n, snap.endpoints, opts);
        if (r) out.set(n, r);
      }
      break;
    default:
      break;
  }
  return out;
}

const MESSAGE = ENVOY_MESSAGE_BY_TYPE_URL;

/** See the file comment. */
export class RouterGenerator {
  readonly #opts: RouterGeneratorOptions;

  constructor(opts: RouterGeneratorOptions) {
    this.#opts = opts;
  }

  /** The node type these generators serve. */
  static readonly PROXY_TYPE = 'router';

  /** One TypeGenerator per xDS type (LDS, RDS, CDS, EDS). */
  typeGenerators(): TypeGenerator[] {
    return [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route].map((typeUrl) => ({
      typeUrl,
      unaffectedKinds: ROUTER_UNAFFECTED,
      generate: (proxy: Proxy, watched: WatchedResource, push: PushRequest) => this.generate(proxy, watched, snapshotOf(push)),
    }));
  }

  /** Registers the type generators for proxy type `router` (GENERATOR-specific generators still win). */
  register(registry: GeneratorRegistry): void {
    for (const g of this.typeGenerators()) registry.register({ proxyType: RouterGenerator.PROXY_TYPE }, g);
  }

  /** Builds and encodes the resources of one type for a router from a snapshot. */
  async generate(p: Proxy, watched: WatchedResource, snap: PushSnapshot): Promise<GenerateResult> {
    const typeName = MESSAGE[watched.typeUrl];
    if (!typeName) return { resources: [] };
    const names = watched.wildcard && watched.names.size === 0 ? undefined : sortedNames(watched.names);
    const resources: GeneratedResource[] = [];
    for (const [name, r] of buildRouterResources(p, watched.typeUrl, snap, names, this.#opts)) {
      // NOTE: keep the event loop responsive between resources (see TurnSlicer).
      if ((this.#opts.slicer ?? pushPathSlicer).overBudget()) await nextTurn();
      resources.push({ name, body: encode(typeName, r) });
    }
    return { resources };
  }
}

/**
 * The ports a router listens on for its service ports (service port -> target port of the proxy's own
 * endpoints), as merged-gateway.ts translates Gateway server ports; for tools that send a request to
 * the gateway's service port (`meshctl x simulate`).
 */
export function routerListenPorts(p: Proxy, snap: PushSnapshot): ReadonlyMap<number, number> {
  const out = new Map<number, number>();
  for (const i of proxyInstances(snap.pushContext, p, snap.endpoints)) if (!out.has(i.servicePort)) out.set(i.servicePort, i.port);
  return out;
}

/**
 * The Gateway servers a router cannot serve because they conflict with another server on their port
 * (left out of its listeners, as istiod drops them), as sentences naming the Gateway, the server and why.
 */
export function routerServerConflicts(p: Proxy, snap: PushSnapshot): string[] {
  return mergeGateways(snap.pushContext, p, snap.endpoints).rejected.map((r) => `Gateway ${r.gatewayName} servers[${r.index}]: left out: ${r.reason}`);
}
