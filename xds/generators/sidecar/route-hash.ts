/**
 * Consistent-hash keys on HTTP routes (istiod's route.go `ConsistentHashToHashPolicy`, `hashForService`,
 * `HashForHTTPDestination`): a DestinationRule `loadBalancer.consistentHash` makes the cluster RING_HASH or
 * MAGLEV (cluster-builder.ts), but Envoy hashes nothing unless the route that picks the cluster names the
 * key, so the routes to that destination carry a `hashPolicy` too. Which hash applies: for a VirtualService
 * destination the subset's port-level setting (when the destination names a port), then the subset's, then
 * the rule's port-level setting (destination port named), then the rule's; for the default route of a
 * service without a VirtualService the rule's port-level setting for the service port, then the rule's.
 */
import { createHash } from 'node:crypto';
import { destinationRuleKey, destinationRuleSources, keyStringOf, type Config, type PushContext, type Proxy } from '../../../core/index.js';
import type { ConsistentHashLB, DestinationRuleSpec, PortTrafficPolicy, TrafficPolicy } from '../../../crds/index.js';
import { duration } from '../grpc/envoy.js';
import { scopedDestinationRule } from './sidecar-scope.js';

/** Records a rule a route read (hash or not: an edit may add one): its sources become dependencies of what was built. */
function readRule(ctx: PushContext, proxy: Proxy, host: string, deps: Set<string>): Config | undefined {
  // NOTE: while no rule sets a consistent hash no route can carry one: read none (destinationRulesKey is '' then,
  // and becomes a digest, changing every key that reads rules, as soon as one does).
  if (destinationRulesKey(ctx) === '') return undefined;
  const rule = scopedDestinationRule(ctx, proxy, host);
  if (rule) for (const s of destinationRuleSources(rule)) deps.add(s);
  return rule;
}

/**
 * Envoy's RouteAction.HashPolicy for a consistent hash (istiod's ConsistentHashToHashPolicy), or undefined
 * when the hash names no key (ring options alone).
 */
export function consistentHashToHashPolicy(ch: ConsistentHashLB | undefined): Record<string, unknown> | undefined {
  if (!ch) return undefined;
  if (ch.httpHeaderName !== undefined) return { header: { headerName: ch.httpHeaderName } };
  if (ch.httpCookie !== undefined) {
    const c = ch.httpCookie;
    const cookie: Record<string, unknown> = { name: c.name };
    if (c.ttl !== undefined) cookie['ttl'] = duration(c.ttl);
    if (c.path) cookie['path'] = c.path;
    if (c.attributes && c.attributes.length > 0) cookie['attributes'] = c.attributes.map((a) => (a.value ? { name: a.name, value: a.value } : { name: a.name }));
    return { cookie };
  }
  // NOTE: as istiod, `useSourceIp: false` still names the key (Go's oneof is set), with sourceIp false.
  if (ch.useSourceIp !== undefined) return { connectionProperties: { sourceIp: ch.useSourceIp } };
  if (ch.httpQueryParameterName !== undefined) return { queryParameter: { name: ch.httpQueryParameterName } };
  return undefined;
}

function portHash(policies: readonly PortTrafficPolicy[] | undefined, port: number | undefined): ConsistentHashLB | undefined {
  if (port === undefined) return undefined;
  return policies?.find((p) => p.port?.number === port)?.loadBalancer?.consistentHash;
}

/**
 * The consistent hash of a VirtualService destination (istiod's HashForHTTPDestination): `host` resolved,
 * `port` the destination's own `port.number` (undefined when it names none: port-level settings then do not apply).
 */
export function hashForDestination(ctx: PushContext, proxy: Proxy, host: string, subset: string | undefined, port: number | undefined, deps: Set<string>): ConsistentHashLB | undefined {
  const rule = readRule(ctx, proxy, host, deps);
  if (!rule) return undefined;
  const spec = rule.spec as unknown as DestinationRuleSpec;
  const tp: TrafficPolicy | undefined = spec.trafficPolicy;
  const sub = spec.subsets?.find((s) => s.name === (subset ?? ''));
  return (
    portHash(sub?.trafficPolicy?.portLevelSettings, port) ??
    sub?.trafficPolicy?.loadBalancer?.consistentHash ??
    portHash(tp?.portLevelSettings, port) ??
    tp?.loadBalancer?.consistentHash
  );
}

/**
 * The consistent hash of the default route of service `host` on `port` (istiod's hashForService): the
 * first port-level setting for the port when it has one, else the rule's.
 */
export function hashForService(ctx: PushContext, proxy: Proxy, host: string, port: number, deps: Set<string>): ConsistentHashLB | undefined {
  const rule = readRule(ctx, proxy, host, deps);
  if (!rule) return undefined;
  const tp = (rule.spec as unknown as DestinationRuleSpec).trafficPolicy;
  return portHash(tp?.portLevelSettings, port) ?? tp?.loadBalancer?.consistentHash;
}

/**
 * istiod's DefaultConsistentHashPolicy and ConvertPolicy(_, true): a retry policy for a route with a hash
 * policy, without the `previous_hosts` retry host predicate (a retry should reach the same host).
 */
export function withoutPreviousHosts(policy: Record<string, unknown>): Record<string, unknown> {
  const out = { ...policy };
  delete out['retryHostPredicate'];
  return out;
}

const ruleDigests = new WeakMap<PushContext, string>();

/** Whether a traffic policy, or one of its port-level settings, sets a consistent hash. */
function hashes(tp: TrafficPolicy | undefined): boolean {
  return tp?.loadBalancer?.consistentHash !== undefined || (tp?.portLevelSettings ?? []).some((p) => p.loadBalancer?.consistentHash !== undefined);
}

/**
 * A cache-key part naming every DestinationRule of the context (a digest), or '' when no rule sets a
 * consistent hash anywhere: then no route carries a hash policy and routes read no rule at all. A virtual host
 * whose routes read rules for several destinations (a VirtualService's) changes its key when a rule appears
 * or goes, as one may start or stop applying to a destination; an edit of a rule it read clears it through
 * the rule's dependency.
 */
export function destinationRulesKey(ctx: PushContext): string {
  let d = ruleDigests.get(ctx);
  if (d === undefined) {
    const rules = ctx.configs.byIndex('kind', 'DestinationRule');
    const anyHash = rules.some((c) => {
      const spec = c.spec as unknown as DestinationRuleSpec;
      return hashes(spec.trafficPolicy) || (spec.subsets ?? []).some((s) => hashes(s.trafficPolicy));
    });
    d = anyHash ? createHash('sha256').update(rules.map((c) => keyStringOf(c)).sort().join('\n')).digest('base64url') : '';
    ruleDigests.set(ctx, d);
  }
  return d;
}

/** The cache-key part of the rule the default route of `host` reads for a proxy (`-` when none, or when no rule hashes). */
export function serviceRuleKey(ctx: PushContext, proxy: Proxy, host: string): string {
  const rule = destinationRulesKey(ctx) === '' ? undefined : scopedDestinationRule(ctx, proxy, host);
  return rule ? destinationRuleKey(rule) : '-';
}

/**
 * istiod's maybeSetHashPolicy for tcp_proxy, as fields to spread into its config: `{ hashPolicy: [{ sourceIp: {} }] }`
 * when the rule of `host` hashes on the source IP, read from the rule's own load balancer unless subset `subset` has
 * one (then the subset's `useSourceIp`; a subset load balancer without a consistent hash turns it off), else `{}`.
 * Port-level settings do not count (as istiod). Every rule read is a dependency.
 */
export function tcpSourceIpHash(ctx: PushContext, proxy: Proxy, host: string, subset: string, deps?: Set<string>): { hashPolicy?: Record<string, unknown>[] } {
  const rule = deps ? readRule(ctx, proxy, host, deps) : scopedDestinationRule(ctx, proxy, host);
  if (!rule) return {};
  const spec = rule.spec as unknown as DestinationRuleSpec;
  let useSourceIp = spec.trafficPolicy?.loadBalancer?.consistentHash?.useSourceIp === true;
  const sub = spec.subsets?.find((s) => s.name === subset);
  const lb = sub?.trafficPolicy?.loadBalancer;
  if (lb) useSourceIp = lb.consistentHash?.useSourceIp === true;
  return useSourceIp ? { hashPolicy: [{ sourceIp: {} }] } : {};
}

const sourceIpRules = new WeakMap<PushContext, string>();

/**
 * A cache-key part for what tcp_proxy hash policies may read ('' when no DestinationRule of the context
 * hashes on the source IP anywhere, then no listener carries one): the rules that do, and a digest of every
 * rule's identity (a rule that starts or stops applying to a host changes it).
 */
export function sourceIpRulesKey(ctx: PushContext): string {
  let d = sourceIpRules.get(ctx);
  if (d === undefined) {
    const uses = (tp: TrafficPolicy | undefined): boolean => tp?.loadBalancer?.consistentHash?.useSourceIp === true;
    const withIp = ctx.configs
      .byIndex('kind', 'DestinationRule')
      .filter((c) => {
        const spec = c.spec as unknown as DestinationRuleSpec;
        return uses(spec.trafficPolicy) || (spec.subsets ?? []).some((s) => uses(s.trafficPolicy));
      })
      .map((c) => keyStringOf(c))
      .sort();
    d = withIp.length === 0 ? '' : `${withIp.join(',')}|${destinationRulesKey(ctx)}`;
    sourceIpRules.set(ctx, d);
  }
  return d;
}
