/**
 * Which services a push may have changed for one sidecar, so that CDS (over delta) and EDS build those
 * services' resources alone, as istiod's delta CDS (`deltaConfigTypes`: ServiceEntry and DestinationRule
 * changes) and partial EDS do. A service is named by host in `configsUpdated` (`ServiceEntry` keys); a
 * DestinationRule key names a config, and the services it shapes for this proxy are those whose rule (as
 * the proxy sees it) is that config, in the snapshot the push carries or in the one the proxy's
 * resources were last built from (a rule whose host changed or that was deleted shaped other services
 * before). Anything else changed, or no earlier snapshot known: undefined (build everything).
 */
import { configKeyString, destinationRuleSources, type Proxy, type PushContext, type PushRequest, type PushSnapshot } from '../../../core/index.js';
import { outboundClusterName } from '../grpc/envoy.js';
import { subsetsOf } from './cluster-builder.js';
import { scopedServiceFor, sidecarScope, scopedDestinationRule } from './sidecar-scope.js';

/** The config kinds whose changes are followed service by service. */
const SERVICE_SCOPED_KINDS: ReadonlySet<string> = new Set(['ServiceEntry', 'DestinationRule']);

/**
 * The hosts whose clusters and load assignments a push may have changed for proxy `p`, whose resources of
 * the type were last built from `prev`; undefined when the push may have changed any (see the file comment).
 * `unaffected`: kinds that cannot change the type (skipped).
 */
export function changedServiceHosts(push: PushRequest, snap: PushSnapshot, prev: PushSnapshot | undefined, p: Proxy, unaffected: ReadonlySet<string>): ReadonlySet<string> | undefined {
  if (!push.full || push.forced || push.reasons.has('proxyrequest') || push.reasons.has('debug') || push.configsUpdated.size === 0) return undefined;
  const hosts = new Set<string>();
  const rules: { namespace: string; name: string }[] = [];
  for (const k of push.configsUpdated) {
    if (unaffected.has(k.kind)) continue;
    if (!SERVICE_SCOPED_KINDS.has(k.kind)) return undefined;
    if (k.kind === 'ServiceEntry') hosts.add(k.name);
    else rules.push(k);
  }
  if (rules.length === 0) return hosts;
  if (!prev) return undefined;
  // NOTE: asked once per proxy of a push: the rules' services are kept per push, snapshot pair and scope.
  for (const h of ruleHosts(push, snap, rules, p)) hosts.add(h);
  for (const h of ruleHosts(push, prev, rules, p)) hosts.add(h);
  return hosts;
}

const memo = new WeakMap<PushRequest, WeakMap<PushSnapshot, Map<string, readonly string[]>>>();

/** The hosts of p's scope in `snap` whose DestinationRule (as p sees it) is one of `rules`. */
function ruleHosts(push: PushRequest, snap: PushSnapshot, rules: readonly { namespace: string; name: string }[], p: Proxy): readonly string[] {
  let bySnap = memo.get(push);
  if (!bySnap) memo.set(push, (bySnap = new WeakMap()));
  let byScope = bySnap.get(snap);
  if (!byScope) bySnap.set(snap, (byScope = new Map()));
  const ctx = snap.pushContext;
  const scope = sidecarScope(ctx, p);
  const key = serviceViewKey(ctx, p);
  const known = byScope.get(key);
  if (known) return known;
  const wanted = new Set(rules.map((r) => configKeyString({ kind: 'DestinationRule', namespace: r.namespace, name: r.name })));
  const out: string[] = [];
  for (const svc of scope.services) {
    const dr = scopedDestinationRule(ctx, p, svc.hostname);
    // NOTE: a merged rule (istiod's merge of one namespace's rules for a host) names every rule in it.
    if (dr && destinationRuleSources(dr).some((k) => wanted.has(k))) out.push(svc.hostname);
  }
  byScope.set(key, out);
  return out;
}

/**
 * What a proxy's view of services and their DestinationRules depends on: the rule a proxy sees depends on its
 * namespace and the selector rules that pick it, the service a host resolves to on its namespace and Sidecar.
 */
export function serviceViewKey(ctx: PushContext, p: Proxy): string {
  const sidecar = sidecarScope(ctx, p).sidecar;
  return `${p.namespace}\n${ctx.destinationRuleSelection(p)}\n${sidecar ? `${sidecar.metadata.namespace}/${sidecar.metadata.name}` : '-'}`;
}

/**
 * The outbound cluster names `hosts` have for p in `snap` (every port and subset of the DestinationRule p sees);
 * with `scoped`, only for the services and ports p's Sidecar scope includes.
 */
export function outboundClusterNamesOf(snap: PushSnapshot, p: Proxy, hosts: ReadonlySet<string>, scoped = true): string[] {
  const ctx = snap.pushContext;
  const scope = scoped ? sidecarScope(ctx, p) : undefined;
  const out: string[] = [];
  for (const host of hosts) {
    const svc = scopedServiceFor(ctx, p, host);
    if (!svc || (scope && !scope.includes(svc))) continue;
    const subsets = ['', ...subsetsOf(scopedDestinationRule(ctx, p, host)).map((s) => s.name)];
    for (const port of svc.ports) {
      if (scope && !scope.includesPort(svc, port.port)) continue;
      for (const subset of subsets) out.push(outboundClusterName(port.port, subset, host));
    }
  }
  return out;
}

/**
 * The snapshot each proxy's resources of each type were last built from, to tell which services a later
 * push changed for it (see changedServiceHosts). Held weakly by proxy; one snapshot per proxy and type.
 */
export class BuiltSnapshots {
  readonly #byProxy = new WeakMap<Proxy, Map<string, PushSnapshot>>();

  /** The snapshot p's resources of `typeUrl` were last built from, if known. */
  get(p: Proxy, typeUrl: string): PushSnapshot | undefined {
    return this.#byProxy.get(p)?.get(typeUrl);
  }

  /** Records that p's resources of `typeUrl` now reflect `snap` (a newer one is never replaced by an older one). */
  record(p: Proxy, typeUrl: string, snap: PushSnapshot): void {
    let byType = this.#byProxy.get(p);
    if (!byType) this.#byProxy.set(p, (byType = new Map()));
    const known = byType.get(typeUrl);
    if (!known || known.token <= snap.token) byType.set(typeUrl, snap);
  }
}
