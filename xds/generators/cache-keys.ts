/**
 * XdsCache keys of the proxyless generator, and a per-PushContext memo of them: every proxy of a
 * namespace asks the same questions (is the service visible, which DestinationRule or VirtualService
 * applies), so the answer is computed once per context, namespace and resource name. Reusing the same
 * key string also lets the cache's map skip re-hashing it.
 */
import { keyStringOf, type PushContext, type Proxy } from '../../core/index.js';
import { effectivePolicy } from './grpc/cluster-builder.js';
import { parseOutboundClusterName } from './grpc/envoy.js';

/** The namespace-wide part of a key, and whether the proxy must add its own part. */
interface KeyParts {
  readonly key: string | undefined;
  /** EDS: add the proxy's locality; RDS: add the proxy's labels. */
  readonly perProxy: boolean;
}

function routeKeyParts(ctx: PushContext, namespace: string, name: string): KeyParts {
  const parsed = parseOutboundClusterName(name);
  const vs = parsed ? ctx.virtualService(parsed.host, namespace) : undefined;
  const http = (vs?.spec as { http?: { match?: { sourceLabels?: unknown }[] }[] } | undefined)?.http ?? [];
  const bySource = http.some((r) => (r.match ?? []).some((m) => m.sourceLabels !== undefined));
  return { key: `rds|${name}|${namespace}`, perProxy: bySource };
}

function routeKeyOf(parts: KeyParts, p: Proxy): string {
  if (!parts.perProxy) return parts.key!;
  const labels = Object.keys(p.labels).sort().map((k) => `${k}=${p.labels[k]}`).join(',');
  return `${parts.key!}|${labels}`;
}

function clusterKeyParts(ctx: PushContext, namespace: string, type: 'cds' | 'eds', name: string, withLocality: boolean): KeyParts {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return { key: undefined, perProxy: false };
  const svc = ctx.service(parsed.host);
  if (!svc || !ctx.serviceVisible(svc, namespace)) return { key: undefined, perProxy: false };
  const dr = ctx.destinationRule(parsed.host, namespace);
  const key = `${type}|${name}|${dr ? keyStringOf(dr) : '-'}`;
  return { key, perProxy: withLocality && Boolean(effectivePolicy(dr, parsed.subset, parsed.port).outlierDetection) };
}

function clusterKeyOf(parts: KeyParts, p: Proxy): string | undefined {
  if (parts.key === undefined || !parts.perProxy || !p.locality.region) return parts.key;
  return `${parts.key}|${p.locality.region}/${p.locality.zone}/${p.locality.subZone}`;
}

/**
 * The cache key of a route configuration: per proxy namespace (VirtualService and DestinationRule
 * visibility), plus the proxy's labels when the VirtualService matches on source labels.
 */
export function routeKey(ctx: PushContext, p: Proxy, name: string): string {
  return routeKeyOf(routeKeyParts(ctx, p.namespace, name), p);
}

/**
 * A cache key for a cluster or its endpoints that proxies of different namespaces share when they
 * see the same inputs: the service must be visible to the proxy (else no key: nothing is cached or
 * served), and the DestinationRule that applies is part of the key; EDS adds the proxy's locality
 * when locality failover makes priorities depend on it.
 */
export function sharedClusterKey(ctx: PushContext, p: Proxy, type: 'cds' | 'eds', name: string, withLocality: boolean): string | undefined {
  return clusterKeyOf(clusterKeyParts(ctx, p.namespace, type, name, withLocality), p);
}

/** Key parts per context (dropped with it), then per namespace, then per resource name. */
class PartsMemo {
  readonly #byContext = new WeakMap<PushContext, Map<string, Map<string, KeyParts>>>();

  get(ctx: PushContext, namespace: string, name: string, compute: () => KeyParts): KeyParts {
    let byNs = this.#byContext.get(ctx);
    if (!byNs) this.#byContext.set(ctx, (byNs = new Map()));
    let byName = byNs.get(namespace);
    if (!byName) byNs.set(namespace, (byName = new Map()));
    let parts = byName.get(name);
    if (!parts) byName.set(name, (parts = compute()));
    return parts;
  }
}

/** The generator's keys, memoized per PushContext (same results as `routeKey` / `sharedClusterKey`). */
export class CacheKeys {
  readonly #rds = new PartsMemo();
  readonly #cds = new PartsMemo();
  readonly #eds = new PartsMemo();

  route(ctx: PushContext, p: Proxy, name: string): string {
    return routeKeyOf(this.#rds.get(ctx, p.namespace, name, () => routeKeyParts(ctx, p.namespace, name)), p);
  }

  cluster(ctx: PushContext, p: Proxy, name: string): string | undefined {
    return clusterKeyOf(this.#cds.get(ctx, p.namespace, name, () => clusterKeyParts(ctx, p.namespace, 'cds', name, false)), p);
  }

  endpoints(ctx: PushContext, p: Proxy, name: string): string | undefined {
    return clusterKeyOf(this.#eds.get(ctx, p.namespace, name, () => clusterKeyParts(ctx, p.namespace, 'eds', name, true)), p);
  }
}
