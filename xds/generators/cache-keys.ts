/**
 * XdsCache keys of the proxyless generator, and a per-PushContext memo of them: every proxy of a
 * namespace asks the same questions (is the service visible, which DestinationRule or VirtualService
 * applies), so the answer is computed once per context, namespace and resource name. Reusing the same
 * key string also lets the cache's map skip re-hashing it. A DestinationRule with a workloadSelector
 * splits a namespace: its proxies ask under the namespace and the selection naming the rules that
 * pick them (`PushContext.destinationRuleSelection`, '' for most), which joins the route key too
 * (routes read the rule's consistent-hash policy).
 */
import { destinationRuleKey, type PushContext, type Proxy } from '../../core/index.js';
import { effectivePolicy } from './grpc/cluster-builder.js';
import { parseOutboundClusterName } from './grpc/envoy.js';

/** The namespace-wide part of a key, and whether the proxy must add its own part. */
interface KeyParts {
  readonly key: string | undefined;
  /** EDS: add the proxy's locality; RDS: add the proxy's labels. */
  readonly perProxy: boolean;
}

function routeKeyParts(ctx: PushContext, p: Proxy, name: string): KeyParts {
  const parsed = parseOutboundClusterName(name);
  const vs = parsed ? ctx.virtualService(parsed.host, p.namespace) : undefined;
  const http = (vs?.spec as { http?: { match?: { sourceLabels?: unknown }[] }[] } | undefined)?.http ?? [];
  const bySource = http.some((r) => (r.match ?? []).some((m) => m.sourceLabels !== undefined));
  const selection = ctx.destinationRuleSelection(p);
  return { key: `rds|${name}|${p.namespace}${selection ? `|dr=${selection}` : ''}`, perProxy: bySource };
}

function routeKeyOf(parts: KeyParts, p: Proxy): string {
  if (!parts.perProxy) return parts.key!;
  const labels = Object.keys(p.labels).sort().map((k) => `${k}=${p.labels[k]}`).join(',');
  return `${parts.key!}|${labels}`;
}

function clusterKeyParts(ctx: PushContext, p: Proxy, type: 'cds' | 'eds', name: string, withLocality: boolean): KeyParts {
  const parsed = parseOutboundClusterName(name);
  if (!parsed) return { key: undefined, perProxy: false };
  const svc = ctx.serviceFor(parsed.host, p.namespace);
  if (!svc || !ctx.serviceVisible(svc, p.namespace)) return { key: undefined, perProxy: false };
  const dr = ctx.destinationRule(parsed.host, p);
  // NOTE: the service's declaring config: proxies of two namespaces may each see their own service of one host.
  const key = `${type}|${name}|${svc.source}|${dr ? destinationRuleKey(dr) : '-'}`;
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
  return routeKeyOf(routeKeyParts(ctx, p, name), p);
}

/**
 * A cache key for a cluster or its endpoints that proxies of different namespaces share when they
 * see the same inputs: the service must be visible to the proxy (else no key: nothing is cached or
 * served); the service the proxy's namespace sees (its declaring config: PushContext.serviceFor) and the
 * DestinationRule that applies are part of the key; EDS adds the proxy's locality
 * when locality failover makes priorities depend on it.
 */
export function sharedClusterKey(ctx: PushContext, p: Proxy, type: 'cds' | 'eds', name: string, withLocality: boolean): string | undefined {
  return clusterKeyOf(clusterKeyParts(ctx, p, type, name, withLocality), p);
}

/**
 * Key parts per context (dropped with it), then per namespace and DestinationRule selection (what the
 * parts depend on of the proxy), then per resource name.
 */
class PartsMemo {
  readonly #byContext = new WeakMap<PushContext, Map<string, Map<string, KeyParts>>>();

  get(ctx: PushContext, p: Proxy, name: string, compute: () => KeyParts): KeyParts {
    let byNs = this.#byContext.get(ctx);
    if (!byNs) this.#byContext.set(ctx, (byNs = new Map()));
    const selection = ctx.destinationRuleSelection(p);
    const group = selection ? `${p.namespace}\n${selection}` : p.namespace;
    let byName = byNs.get(group);
    if (!byName) byNs.set(group, (byName = new Map()));
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
    return routeKeyOf(this.#rds.get(ctx, p, name, () => routeKeyParts(ctx, p, name)), p);
  }

  cluster(ctx: PushContext, p: Proxy, name: string): string | undefined {
    return clusterKeyOf(this.#cds.get(ctx, p, name, () => clusterKeyParts(ctx, p, 'cds', name, false)), p);
  }

  endpoints(ctx: PushContext, p: Proxy, name: string): string | undefined {
    return clusterKeyOf(this.#eds.get(ctx, p, name, () => clusterKeyParts(ctx, p, 'eds', name, true)), p);
  }
}
