/**
 * SidecarGenerator: the generators of dataplane sidecars (proxy type `sidecar` without `GENERATOR`
 * metadata), one TypeGenerator per xDS type (LDS, RDS, CDS, EDS). It reads only the snapshot each push
 * carries and builds with the builders beside it; each resource is encoded once per push and proxy.
 * NOTE: no XdsCache yet: sharing encoded bytes across sidecars with the same inputs is the next step
 * (cluster and route keys must include the proxy's namespace, Sidecar scope and locality).
 */
import { nextTurn, pushPathSlicer, type Proxy, type PushRequest, type PushSnapshot, type TurnSlicer } from '../../../core/index.js';
import { encode } from '../../protos/codec.js';
import { TYPE_URL, type GenerateResult, type GeneratedResource, type TypeGenerator, type WatchedResource } from '../../server/contracts.js';
import type { GeneratorRegistry } from '../../server/generator-registry.js';
import { snapshotOf } from '../grpc-generator.js';
import { buildSidecarClusters } from './cluster-builder.js';
import { buildSidecarLoadAssignment } from './endpoint-builder.js';
import { buildSidecarListeners } from './listener-builder.js';
import { buildSidecarRouteConfiguration } from './route-builder.js';
import { ENVOY } from './sidecar-names.js';

/** Options of the sidecar generator, read once by the caller. */
export interface SidecarGeneratorOptions {
  /** PILOT_SEND_UNHEALTHY_ENDPOINTS */
  readonly sendUnhealthyEndpoints: boolean;
  /** When generation yields the event loop (default the process-wide `pushPathSlicer`). */
  readonly slicer?: Pick<TurnSlicer, 'overBudget'>;
}

/** Config kinds that cannot change a sidecar's endpoints (beyond the EDS descriptor's own). */
const SIDECAR_EDS_UNAFFECTED: ReadonlySet<string> = new Set(['VirtualService']);

/** The resources of one type a sidecar gets, as plain objects keyed by name (for tests, debugging and the consistency checker). */
export function buildSidecarResources(p: Proxy, typeUrl: string, snap: PushSnapshot, names: readonly string[] | undefined, opts: SidecarGeneratorOptions): Map<string, Record<string, unknown>> {
  const ctx = snap.pushContext;
  const out = new Map<string, Record<string, unknown>>();
  const byName = (list: readonly Record<string, unknown>[]): void => {
    const want = names && names.length > 0 ? new Set(names) : undefined;
    for (const r of list) if (!want || want.has(r['name'] as string)) out.set(r['name'] as string, r);
  };
  switch (typeUrl) {
    case TYPE_URL.listener:
      byName(buildSidecarListeners(ctx, p, snap.endpoints));
      break;
    case TYPE_URL.cluster:
      byName(buildSidecarClusters(ctx, p, { endpoints: snap.endpoints }));
      break;
    case TYPE_URL.route:
      for (const n of names ?? []) {
        const r = buildSidecarRouteConfiguration(ctx, p, n);
        if (r) out.set(n, r.resource);
      }
      break;
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

const MESSAGE: Readonly<Record<string, string>> = {
  [TYPE_URL.listener]: ENVOY.listener,
  [TYPE_URL.route]: ENVOY.route,
  [TYPE_URL.cluster]: ENVOY.cluster,
  [TYPE_URL.endpoint]: ENVOY.endpoint,
};

/** See the file comment. */
export class SidecarGenerator {
  readonly #opts: SidecarGeneratorOptions;

  constructor(opts: SidecarGeneratorOptions) {
    this.#opts = opts;
  }

  /** The node type these generators serve. */
  static readonly PROXY_TYPE = 'sidecar';

  /** One TypeGenerator per xDS type. */
  typeGenerators(): TypeGenerator[] {
    const of = (typeUrl: string, unaffectedKinds: ReadonlySet<string>): TypeGenerator => ({
      typeUrl,
      unaffectedKinds,
      generate: (proxy, watched, push) => this.generate(proxy, watched, push),
    });
    return [
      of(TYPE_URL.cluster, new Set()),
      of(TYPE_URL.endpoint, SIDECAR_EDS_UNAFFECTED),
      of(TYPE_URL.listener, new Set()),
      of(TYPE_URL.route, new Set()),
    ];
  }

  /** Registers the type generators for proxy type `sidecar` (GENERATOR-specific generators still win). */
  register(registry: GeneratorRegistry): void {
    for (const g of this.typeGenerators()) registry.register({ proxyType: SidecarGenerator.PROXY_TYPE }, g);
  }

  /** Builds and encodes the resources of one type for a sidecar from the push's snapshot. */
  async generate(p: Proxy, watched: WatchedResource, push: PushRequest): Promise<GenerateResult> {
    const snap = snapshotOf(push);
    const typeName = MESSAGE[watched.typeUrl];
    if (!typeName) return { resources: [] };
    const names = watched.wildcard && watched.names.size === 0 ? undefined : [...watched.names].sort();
    const built = buildSidecarResources(p, watched.typeUrl, snap, names, this.#opts);
    const resources: GeneratedResource[] = [];
    for (const [name, r] of built) {
      // NOTE: keep the event loop responsive between resources (see TurnSlicer).
      if ((this.#opts.slicer ?? pushPathSlicer).overBudget()) await nextTurn();
      resources.push({ name, body: encode(typeName, r) });
    }
    return { resources };
  }
}
