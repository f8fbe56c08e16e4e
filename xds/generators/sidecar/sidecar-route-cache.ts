/**
 * The virtual host cache of the sidecar generator: a route configuration is its name, its virtual hosts
 * and a tail, so its bytes are the concatenation of each part encoded alone (protobuf concatenates
 * repeated fields, and protobufjs writes `name`, `virtual_hosts` and `validate_clusters` in that order).
 * Each service virtual host is encoded once and shared by every route configuration that holds it with
 * the same inputs; an edit of one VirtualService rebuilds that one virtual host, not the route
 * configurations of every namespace that list all the services on the port.
 *
 * What a service virtual host reads (buildServiceVirtualHost): the service and port (dependency
 * `ServiceEntry/<ns>/<host>`), its domains there (in the key: they hold the proxy's namespace through the
 * short name), the VirtualService that applies (its key in the key and as a dependency; every
 * VirtualService when it delegates), the proxy's namespace through `sourceNamespace` matches (in the key
 * when a VirtualService applies), its labels through `sourceLabels` matches (in the key when any
 * VirtualService has one), the services its destinations name (dependencies), and the DestinationRules
 * whose consistent hash its routes carry (route-hash.ts; every rule read is a dependency): the default route
 * reads the service's rule (its identity in the key), a VirtualService's routes read each destination's (the
 * proxy's DestinationRule selection and a digest of every rule's identity in the key). The route
 * configuration that concatenates them is cached as before (sidecar-cache-keys.ts) with the union of
 * those dependencies.
 */
import { keyStringOf, type PushContext, type Proxy } from '../../../core/index.js';
import type { XdsCache } from '../../cache/xds-cache.js';
import { buildServiceVirtualHost, planSidecarRouteConfiguration, ROUTE_CONFIGURATION_TAIL, type VirtualHostPlan } from './route-builder.js';
import { anySourceLabels } from './sidecar-cache-keys.js';
import { destinationRulesKey, serviceRuleKey } from './route-hash.js';

/** Encodes a RouteConfiguration given as a plain object (the generator's codec). */
export type RouteEncoder = (partial: Record<string, unknown>) => Uint8Array;

/** What each cached virtual host's bytes depend on, by the bytes the cache holds. */
const dependenciesOf = new WeakMap<Uint8Array, readonly string[]>();

/** The cache key of a planned service virtual host on `port` for `proxy` (see the file comment). */
export function virtualHostKey(ctx: PushContext, proxy: Proxy, port: number, h: VirtualHostPlan): string {
  // NOTE: the service's declaring config: proxies of two namespaces may each see their own service of one host.
  const svc = `${h.svc.namespace}/${h.svc.hostname}|${h.svc.source}`;
  if (!h.vs) {
    const rule = serviceRuleKey(ctx, proxy, h.svc.hostname);
    return `svh|${port}|${svc}|-|${h.domains.join(',')}${rule === '-' ? '' : `|dr:${rule}`}`;
  }
  const rules = destinationRulesKey(ctx);
  const drPart = rules === '' ? '' : `|dr:${ctx.destinationRuleSelection(proxy)}|${rules}`;
  const base = `svh|${port}|${svc}|${keyStringOf(h.vs)}|${proxy.namespace}|${h.domains.join(',')}${drPart}`;
  if (!anySourceLabels(ctx)) return base;
  return `${base}|${Object.keys(proxy.labels).sort().map((k) => `${k}=${proxy.labels[k]}`).join(',')}`;
}

/**
 * Route configuration `name` for a proxy, encoded from cached virtual hosts (each built, encoded and
 * cached with the snapshot's `token` on a miss), with what it depends on; undefined when the name is no
 * sidecar route configuration, and the virtual hosts that lost a domain (the plan's, made on every call, so a
 * cached virtual host still reports them). The same bytes as encoding buildSidecarRouteConfiguration's resource.
 */
export function encodedRouteConfiguration(
  cache: XdsCache,
  ctx: PushContext,
  proxy: Proxy,
  name: string,
  token: number,
  encode: RouteEncoder,
): { body: Uint8Array; dependencies: readonly string[]; duplicateDomains: readonly string[] } | undefined {
  const plan = planSidecarRouteConfiguration(ctx, proxy, name);
  if (!plan) return undefined;
  const deps = new Set(plan.dependencies);
  const parts: Uint8Array[] = [encode({ name })];
  for (const h of plan.hosts) {
    const key = virtualHostKey(ctx, proxy, plan.port, h);
    let bytes = cache.get(key, token);
    let hostDeps = bytes ? dependenciesOf.get(bytes) : undefined;
    if (!bytes || !hostDeps) {
      const built = buildServiceVirtualHost(ctx, proxy, plan.port, h);
      bytes = encode({ virtualHosts: [built.virtualHost] });
      hostDeps = built.dependencies;
      dependenciesOf.set(bytes, hostDeps);
      cache.set(key, bytes, hostDeps, token);
    }
    for (const d of hostDeps) deps.add(d);
    parts.push(bytes);
  }
  if (plan.catchAll) parts.push(encode({ virtualHosts: [plan.catchAll] }));
  parts.push(encode({ ...ROUTE_CONFIGURATION_TAIL }));
  return { body: Buffer.concat(parts), dependencies: [...deps].sort(), duplicateDomains: plan.duplicateDomains };
}
