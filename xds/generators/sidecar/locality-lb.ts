/**
 * Locality load balancing of a sidecar's ClusterLoadAssignment, as istiod applies it (Istio's
 * loadbalancer.ApplyLocalityLoadBalancer), from the DestinationRule's
 * `trafficPolicy.loadBalancer.localityLbSetting` (else the mesh config's):
 * - `distribute` (whose `from` matches the proxy's locality): each `to` locality's share becomes the
 *   load-balancing weight of the locality groups it matches (split by their own weights, rounded up);
 *   groups no `to` entry matches lose their endpoints. The cluster gets `localityWeightedLbConfig`
 *   whenever a setting is in effect.
 * - otherwise, with outlier detection (without it Envoy never leaves priority 0) and `enabled` not
 *   false: failover priorities. `failoverPriority` labels first split each group by how many of the
 *   listed labels (`label` or `label=value`) the endpoint shares with the proxy, in order; then, with no
 *   `failoverPriority` or with `failover` also set, proximity: same region/zone/subzone 0, same
 *   region/zone 1, same region 2, other regions 3, and 4 for regions other than the `to` of a
 *   `failover` entry whose `from` is the proxy's region. Priorities are made contiguous from 0.
 * A proxy without a region gets neither (as before). Pure functions on locality groups.
 */
import { localityString, type Locality, type MeshConfig, type Proxy, type ServiceInstance } from '../../../core/index.js';
import type { LocalityLoadBalancerSetting, TrafficPolicy } from '../../../crds/index.js';

/** One locality's endpoints at one priority, with the locality's load-balancing weight. */
export interface LocalityGroup {
  readonly locality: Locality;
  readonly priority: number;
  readonly weight: number;
  readonly instances: readonly ServiceInstance[];
}

/** Endpoint label keys of an endpoint's locality, as Istio adds them for `failoverPriority`. */
const TOPOLOGY = { region: 'topology.kubernetes.io/region', zone: 'topology.kubernetes.io/zone', subZone: 'topology.mesh.io/subzone' } as const;

/** The locality LB setting in effect: the DestinationRule's, else the mesh config's; none when `enabled: false`. */
export function localityLbSettingFor(policy: TrafficPolicy, mesh: MeshConfig): LocalityLoadBalancerSetting | undefined {
  const own = policy.loadBalancer?.localityLbSetting;
  const setting = own ?? (mesh.localityLbSetting as LocalityLoadBalancerSetting | undefined);
  return setting && setting.enabled === false ? undefined : setting;
}

/** How locality LB applies to a proxy: `distribute`, `failover`, or `none`; and whether it reads the proxy's labels. */
export function localityLbMode(policy: TrafficPolicy, mesh: MeshConfig, proxy: Proxy): { mode: 'distribute' | 'failover' | 'none'; usesLabels: boolean } {
  if (proxy.locality.region === '') return { mode: 'none', usesLabels: false };
  const s = localityLbSettingFor(policy, mesh);
  if (s?.distribute && s.distribute.length > 0) return { mode: 'distribute', usesLabels: false };
  // NOTE: an explicit `enabled: false` on the DestinationRule turns the default proximity failover off too.
  const off = policy.loadBalancer?.localityLbSetting?.enabled === false;
  if (policy.outlierDetection === undefined || off) return { mode: 'none', usesLabels: false };
  return { mode: 'failover', usesLabels: (s?.failoverPriority ?? []).length > 0 };
}

/** Istio's util.LocalityMatch: `region[/zone[/subzone]]`, `*` for any part, missing parts match anything. */
export function localityMatches(l: Locality, rule: string): boolean {
  const [region = '', zone = '', subZone = ''] = rule.split('/');
  const part = (want: string, have: string, optional: boolean): boolean => want === '*' || (optional && want === '') || want === have;
  return part(region, l.region, false) && part(zone, l.zone, true) && part(subZone, l.subZone, true);
}

/** Istio's util.LbPriority: 0 same subzone, 1 same zone, 2 same region, 3 elsewhere. */
function proximity(proxy: Locality, ep: Locality): number {
  if (proxy.region !== ep.region) return 3;
  if (proxy.zone !== ep.zone) return 2;
  return proxy.subZone === ep.subZone ? 0 : 1;
}

function labelsOf(i: ServiceInstance): Readonly<Record<string, string>> {
  return { ...i.labels, [TOPOLOGY.region]: i.locality.region, [TOPOLOGY.zone]: i.locality.zone, [TOPOLOGY.subZone]: i.locality.subZone };
}

/** Renumbers priorities to 0..n-1 in their order. */
function contiguous(groups: readonly LocalityGroup[]): LocalityGroup[] {
  const rank = new Map([...new Set(groups.map((g) => g.priority))].sort((a, b) => a - b).map((p, n) => [p, n]));
  return groups.map((g) => ({ ...g, priority: rank.get(g.priority)! }));
}

function distribute(groups: readonly LocalityGroup[], proxy: Proxy, rules: NonNullable<LocalityLoadBalancerSetting['distribute']>): LocalityGroup[] {
  const rule = rules.find((r) => localityMatches(proxy.locality, r.from ?? ''));
  if (!rule) return [...groups];
  const out = groups.map((g) => ({ ...g }));
  const unmatched = new Set(out.map((_, i) => i));
  for (const [to, share] of Object.entries(rule.to ?? {})) {
    const hit = [...unmatched].filter((i) => localityMatches(out[i]!.locality, to));
    const total = hit.reduce((n, i) => n + out[i]!.weight, 0);
    for (const i of hit) {
      unmatched.delete(i);
      // NOTE: as Istio, a wildcard `to` matching several localities splits the share by their weights, rounded up.
      const w = total > 0 ? Math.ceil((out[i]!.weight * share) / total) : 0;
      if (w > 0) out[i] = { ...out[i]!, weight: w };
    }
  }
  for (const i of unmatched) out[i] = { ...out[i]!, instances: [] };
  return out;
}

function splitByFailoverPriority(groups: readonly LocalityGroup[], proxy: Proxy, labels: readonly string[]): LocalityGroup[] {
  const keys = labels.map((l) => {
    const eq = l.indexOf('=');
    return eq < 0 ? { key: l, value: undefined } : { key: l.slice(0, eq), value: l.slice(eq + 1) };
  });
  const proxyLabels: Record<string, string> = { ...proxy.labels, [TOPOLOGY.region]: proxy.locality.region, [TOPOLOGY.zone]: proxy.locality.zone, [TOPOLOGY.subZone]: proxy.locality.subZone };
  const out: LocalityGroup[] = [];
  for (const g of groups) {
    const byPriority = new Map<number, ServiceInstance[]>();
    for (const i of g.instances) {
      const el = labelsOf(i);
      const miss = keys.findIndex((k) => (k.value ?? proxyLabels[k.key]) !== el[k.key]);
      const p = miss < 0 ? 0 : keys.length - miss;
      byPriority.set(p, [...(byPriority.get(p) ?? []), i]);
    }
    for (const [p, eps] of [...byPriority].sort(([a], [b]) => a - b)) {
      out.push({ locality: g.locality, priority: p, weight: eps.reduce((n, e) => n + e.weight, 0), instances: eps });
    }
  }
  return contiguous(out);
}

function failoverByProximity(groups: readonly LocalityGroup[], proxy: Proxy, failover: NonNullable<LocalityLoadBalancerSetting['failover']>): LocalityGroup[] {
  const rule = failover.find((f) => f.from === proxy.locality.region);
  return contiguous(
    groups.map((g) => {
      let p = proximity(proxy.locality, g.locality);
      if (p === 3 && rule && g.locality.region !== rule.to) p = 4;
      // NOTE: as Istio, failoverPriority's levels stay major: at most 5 proximity levels (0-4) under each.
      return { ...g, priority: g.priority * 5 + p };
    }),
  );
}

/**
 * Applies locality LB to `groups` (one per locality, priority 0, weight the sum of its endpoints')
 * for `proxy`, given the effective traffic policy. Returns the groups sorted by priority, then locality.
 */
export function applyLocalityLb(groups: readonly LocalityGroup[], proxy: Proxy, policy: TrafficPolicy, mesh: MeshConfig): LocalityGroup[] {
  const { mode } = localityLbMode(policy, mesh, proxy);
  const s = localityLbSettingFor(policy, mesh);
  let out: LocalityGroup[] = [...groups];
  if (mode === 'distribute') out = distribute(out, proxy, s!.distribute!);
  else if (mode === 'failover') {
    const fp = s?.failoverPriority ?? [];
    if (fp.length > 0) out = splitByFailoverPriority(out, proxy, fp);
    if (fp.length === 0 || (s?.failover ?? []).length > 0) out = failoverByProximity(out, proxy, s?.failover ?? []);
  }
  return out.sort((a, b) => a.priority - b.priority || (localityString(a.locality) < localityString(b.locality) ? -1 : localityString(a.locality) > localityString(b.locality) ? 1 : 0));
}

/**
 * Whether the cluster carries `commonLbConfig.localityWeightedLbConfig`: as istiod (checked with
 * `npm run diff:istiod`), whenever a locality LB setting is in effect (distribute, failover or
 * failoverPriority; not with `enabled: false`, not for outlier detection's default failover alone).
 * NOTE: it does not depend on the proxy (clusters are shared across proxies).
 */
export function usesLocalityWeights(policy: TrafficPolicy, mesh: MeshConfig): boolean {
  return localityLbSettingFor(policy, mesh) !== undefined;
}
