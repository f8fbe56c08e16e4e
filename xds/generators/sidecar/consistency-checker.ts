/**
 * checkConsistency: the cross-reference check of the configuration one Envoy proxy holds (what
 * go-control-plane's snapshot consistency check does, extended): names are unique per type; every
 * route configuration a listener's HCM names over RDS exists; every cluster a route, weighted cluster,
 * mirror policy, tcp_proxy or Redis proxy catch-all route names exists; every EDS cluster's service name has a load assignment; and
 * every SDS secret a transport socket names is served (by the agent, `default` / `ROOTCA` /
 * `kubernetes://...`, or in the given secrets). Works on plain objects, built or decoded (Any expanded
 * with `@type`), so meshd tests, `meshctl x translate` and the simulator can all use it.
 */

/** The resources of one proxy by type, as plain objects. */
export interface ProxyConfig {
  readonly listeners: readonly Record<string, unknown>[];
  readonly routes: readonly Record<string, unknown>[];
  readonly clusters: readonly Record<string, unknown>[];
  readonly endpoints: readonly Record<string, unknown>[];
  /** Secrets sent over SDS by the control plane itself (none for sidecars: the agent serves them). */
  readonly secrets?: readonly Record<string, unknown>[];
}

/** Options of the check. */
export interface ConsistencyOptions {
  /** Whether an SDS secret name is served by the agent (default: `default`, `ROOTCA`, `kubernetes://...`, `file-cert:<chain>~<key>`, `file-root:<ca>`). */
  readonly agentSecret?: (name: string) => boolean;
}

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const TCP_PROXY = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
const REDIS_PROXY = 'type.googleapis.com/envoy.extensions.filters.network.redis_proxy.v3.RedisProxy';

/**
 * The names pilot-agent's SDS server serves: `default`, `ROOTCA`, `kubernetes://<credential>` and files,
 * `file-cert:<chain>~<key>` (both paths) and `file-root:<ca>` (agent/sds/file-secrets.ts).
 */
function defaultAgentSecret(name: string): boolean {
  return name === 'default' || name === 'ROOTCA' || name.startsWith('kubernetes://') || /^file-cert:[^~]+~.+$/.test(name) || /^file-root:.+$/.test(name);
}

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** Calls `fn` for every object under `v` that names an SDS secret (`{ name, sdsConfig }`), with its path. */
function eachSdsSecret(v: unknown, path: string, fn: (name: string, path: string) => void): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => eachSdsSecret(x, `${path}[${i}]`, fn));
    return;
  }
  const o = obj(v);
  if (!o) return;
  if (typeof o['name'] === 'string' && o['sdsConfig'] !== undefined) fn(o['name'], path);
  for (const [k, x] of Object.entries(o)) if (x && typeof x === 'object') eachSdsSecret(x, `${path}.${k}`, fn);
}

/** The clusters a route configuration's routes name (route, weighted clusters, mirrors), with where. */
export function routeClusterRefs(rc: Obj): { cluster: string; where: string }[] {
  const out: { cluster: string; where: string }[] = [];
  for (const vh of arr(rc['virtualHosts'])) {
    for (const r of arr(vh['routes'])) {
      const where = `virtual host ${String(vh['name'])} route ${String(r['name'] ?? '(unnamed)')}`;
      const action = obj(r['route']);
      if (!action) continue;
      if (typeof action['cluster'] === 'string') out.push({ cluster: action['cluster'], where });
      for (const w of arr(obj(action['weightedClusters'])?.['clusters'])) if (typeof w['name'] === 'string') out.push({ cluster: w['name'], where: `${where} weighted cluster` });
      for (const m of arr(action['requestMirrorPolicies'])) if (typeof m['cluster'] === 'string') out.push({ cluster: m['cluster'], where: `${where} mirror` });
    }
  }
  return out;
}

function duplicateDomains(rc: Obj): string[] {
  const seen = new Map<string, string>();
  const issues: string[] = [];
  for (const vh of arr(rc['virtualHosts'])) {
    for (const d of (vh['domains'] as string[] | undefined) ?? []) {
      const first = seen.get(d);
      if (first !== undefined) issues.push(`route configuration ${String(rc['name'])}: domain "${d}" is in virtual hosts ${first} and ${String(vh['name'])}`);
      else seen.set(d, String(vh['name']));
    }
  }
  return issues;
}

function uniqueNames(kind: string, list: readonly Obj[], key: string): { names: Set<string>; issues: string[] } {
  const names = new Set<string>();
  const issues: string[] = [];
  for (const r of list) {
    const n = r[key];
    if (typeof n !== 'string' || n === '') issues.push(`${kind}: a resource has no ${key}`);
    else if (names.has(n)) issues.push(`${kind} ${n}: name is not unique`);
    else names.add(n);
  }
  return { names, issues };
}

/** Every consistency problem of one proxy's configuration, as sentences naming the resource and the missing name; empty when consistent. */
export function checkConsistency(cfg: ProxyConfig, opts: ConsistencyOptions = {}): string[] {
  const agentSecret = opts.agentSecret ?? defaultAgentSecret;
  const l = uniqueNames('listener', cfg.listeners, 'name');
  const r = uniqueNames('route configuration', cfg.routes, 'name');
  const c = uniqueNames('cluster', cfg.clusters, 'name');
  const e = uniqueNames('load assignment', cfg.endpoints, 'clusterName');
  const s = uniqueNames('secret', cfg.secrets ?? [], 'name');
  const issues = [...l.issues, ...r.issues, ...c.issues, ...e.issues, ...s.issues];
  const needCluster = (name: string, where: string): void => {
    if (!c.names.has(name)) issues.push(`${where}: cluster "${name}" is not in CDS`);
  };
  const needSecret = (name: string, where: string): void => {
    if (!s.names.has(name) && !agentSecret(name)) issues.push(`${where}: secret "${name}" is neither sent nor served by the agent`);
  };
  for (const lis of cfg.listeners) {
    const ln = `listener ${String(lis['name'])}`;
    const chains = [...arr(lis['filterChains']), ...(obj(lis['defaultFilterChain']) ? [obj(lis['defaultFilterChain'])!] : [])];
    for (const fc of chains) {
      const where = `${ln} filter chain ${String(fc['name'] ?? '(unnamed)')}`;
      eachSdsSecret(fc['transportSocket'], where, (n, p) => needSecret(n, p));
      for (const f of arr(fc['filters'])) {
        const tc = obj(f['typedConfig']);
        if (!tc) continue;
        if (tc['@type'] === TCP_PROXY) {
          if (typeof tc['cluster'] === 'string') needCluster(tc['cluster'], where);
          for (const w of arr(obj(tc['weightedClusters'])?.['clusters'])) if (typeof w['name'] === 'string') needCluster(w['name'], where);
        }
        if (tc['@type'] === REDIS_PROXY) {
          const cluster = obj(obj(tc['prefixRoutes'])?.['catchAllRoute'])?.['cluster'];
          if (typeof cluster === 'string') needCluster(cluster, `${where} redis catch-all route`);
        }
        if (tc['@type'] === HCM) {
          const rds = obj(tc['rds']);
          const name = rds?.['routeConfigName'];
          if (typeof name === 'string' && !r.names.has(name)) issues.push(`${where}: route configuration "${name}" is not in RDS`);
          const inline = obj(tc['routeConfig']);
          if (inline) {
            for (const ref of routeClusterRefs(inline)) needCluster(ref.cluster, `${where} inline ${ref.where}`);
            issues.push(...duplicateDomains(inline));
          }
        }
      }
    }
  }
  for (const rc of cfg.routes) {
    for (const ref of routeClusterRefs(rc)) needCluster(ref.cluster, `route configuration ${String(rc['name'])} ${ref.where}`);
    issues.push(...duplicateDomains(rc));
  }
  for (const cl of cfg.clusters) {
    const where = `cluster ${String(cl['name'])}`;
    if (cl['type'] === 'EDS') {
      const service = obj(cl['edsClusterConfig'])?.['serviceName'];
      const name = typeof service === 'string' && service !== '' ? service : String(cl['name']);
      if (!e.names.has(name)) issues.push(`${where}: load assignment "${name}" is not in EDS`);
    }
    eachSdsSecret(cl['transportSocket'], where, (n, p) => needSecret(n, p));
    eachSdsSecret(cl['transportSocketMatches'], where, (n, p) => needSecret(n, p));
  }
  for (const la of cfg.endpoints) {
    const name = String(la['clusterName']);
    if (!cfg.clusters.some((cl) => cl['type'] === 'EDS' && ((obj(cl['edsClusterConfig'])?.['serviceName'] as string | undefined) || cl['name']) === name)) {
      issues.push(`load assignment ${name}: no EDS cluster uses it`);
    }
  }
  return issues;
}
