/**
 * simulateRequest: walks one request through the configuration an Envoy proxy holds, as Envoy does:
 * listener (outbound traffic arrives on `virtualOutbound` and is handed to the listener of its original
 * destination, exact address first (or an additional address), then the wildcard of its family on the port
 * (`0.0.0.0`, `::`); inbound traffic arrives on
 * `virtualInbound`) -> filter chain (Envoy's filter chain match order: destination port, destination IP,
 * server name, transport protocol, application protocols; most specific wins at each step) -> for HTTP
 * the route configuration (RDS or inline) -> virtual host (exact domain, then longest suffix wildcard,
 * then prefix wildcard, then `*`; the port ignored when the route configuration says
 * `ignorePortInHostMatching`; a virtual host that requires TLS redirects plaintext requests to https)
 * -> first matching route (path, headers, query parameters) -> cluster(s) with weights -> endpoints. A
 * TLS request (`tls`) reaching a filter chain that terminates TLS (a transport socket, as gateways'
 * HTTPS servers) and runs an HTTP connection manager is routed as the HTTPS request it carries; a chain
 * with the sni_cluster filter sends a TLS connection to the cluster its SNI names (AUTO_PASSTHROUGH); a chain
 * that terminates TLS reports the SDS secrets it serves (`tlsSecrets`). It reads plain objects (built or decoded), so meshd tests and
 * `meshctl x simulate` share it. Outcomes, not proto text, are what tests assert.
 */
import type { ProxyConfig } from '../generators/sidecar/consistency-checker.js';

/** A request to simulate. */
export interface SimulatedRequest {
  /** `outbound` (from the app, via 15001) or `inbound` (to the app, via 15006). Default outbound. */
  readonly direction?: 'outbound' | 'inbound';
  /** `http` (default), `tcp`, or `tls` (raw TLS with an SNI, not terminated by the proxy). */
  readonly protocol?: 'http' | 'tcp' | 'tls';
  /** The destination IP the connection goes to (a VIP or pod IP); unset: the host resolved to no known VIP. */
  readonly address?: string;
  readonly port: number;
  /**
   * The unix domain socket the app connects to instead of an address (a Sidecar egress `bind: unix://<path>`): the
   * listener on that pipe takes the connection; `port` then only fills the default authority.
   */
  readonly unixSocket?: string;
  /** The HTTP authority (Host header), e.g. `reviews:9080`; default the address and port. */
  readonly host?: string;
  readonly method?: string;
  /** The path with query string, default `/`. */
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** TLS SNI (for `tls`, or mTLS from a peer sidecar). */
  readonly sni?: string;
  /** Whether the connection is TLS at the transport (mTLS from a peer sidecar, or `tls`). */
  readonly tls?: boolean;
  /** ALPN offered (mesh mTLS offers `mesh-peer-exchange`, `mesh`). */
  readonly alpn?: readonly string[];
}

/** One cluster the request may go to, with its share and endpoints. */
export interface SimulatedCluster {
  readonly name: string;
  /** Weight among the route's clusters (100 for a single cluster). */
  readonly weight: number;
  /** `ip:port` of the endpoints Envoy would pick from: the first priority level with endpoints (ORIGINAL_DST: the original destination). */
  readonly endpoints: readonly string[];
}

/** Where the request goes, step by step. */
export interface SimulationResult {
  readonly outcome: 'routed' | 'redirect' | 'direct-response' | 'no-listener' | 'no-filter-chain' | 'no-route-config' | 'no-virtual-host' | 'no-route' | 'no-cluster';
  readonly listener?: string;
  readonly filterChain?: string;
  readonly routeConfig?: string;
  readonly virtualHost?: string;
  readonly route?: string;
  readonly clusters?: readonly SimulatedCluster[];
  /** For redirects and direct responses: the status (or redirect code) Envoy answers with. */
  readonly response?: Readonly<Record<string, unknown>>;
  /** The mesh.io objects that shaped the steps (from provenance metadata), in walk order. */
  readonly sources: readonly string[];
  /**
   * When the matched filter chain terminates TLS (mesh mTLS, a gateway's HTTPS server, Sidecar ingress
   * TLS): the SDS secrets it is served with, in order (certificates, then the CA that verifies clients),
   * e.g. `default`, `ROOTCA` or `file-cert:<chain>~<key>`.
   */
  readonly tlsSecrets?: readonly string[];
}

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const wrapped = (v: unknown): unknown => (obj(v) && 'value' in obj(v)! ? obj(v)!['value'] : v);
const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const TCP_PROXY = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
const REDIS_PROXY = 'type.googleapis.com/envoy.extensions.filters.network.redis_proxy.v3.RedisProxy';
const SNI_CLUSTER = 'envoy.filters.network.sni_cluster';

/** The SDS secret names under a transport socket (objects with `name` and `sdsConfig`), in document order. */
function sdsSecretNames(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) {
    for (const x of v) sdsSecretNames(x, out);
    return out;
  }
  const o = obj(v);
  if (!o) return out;
  if (typeof o['name'] === 'string' && o['sdsConfig'] !== undefined) out.push(o['name']);
  for (const x of Object.values(o)) if (x && typeof x === 'object') sdsSecretNames(x, out);
  return out;
}

/** The provenance sources of a resource (`metadata.filterMetadata.mesh.sources`), in either object form. */
function sourcesOf(r: Obj | undefined): string[] {
  const mesh = obj(obj(obj(r?.['metadata'])?.['filterMetadata'])?.['mesh']);
  const s = obj(mesh?.['fields'])?.['sources'] ?? mesh?.['sources'];
  if (Array.isArray(s)) return s.map(String);
  const values = arr(obj(obj(s)?.['listValue'])?.['values']);
  return values.map((v) => String(v['stringValue']));
}

function socketOf(a: unknown): { address: string; port: number } {
  const s = obj(obj(a)?.['socketAddress']);
  return { address: String(s?.['address'] ?? ''), port: Number(s?.['portValue'] ?? 0) };
}

/** Every address a listener binds: its address, then its `additional_addresses`. */
function sockets(l: Obj): { address: string; port: number }[] {
  return [socketOf(l['address']), ...arr(l['additionalAddresses']).map((a) => socketOf(a['address']))];
}

/** `ip:port`, the IPv6 address in brackets. */
function hostPort(ip: string, port: number | string): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/**
 * The listener a connection reaches. Inbound: a listener bound to the destination address (or the wildcard)
 * and port (a Sidecar ingress port with captureMode NONE), else `virtualInbound` (iptables redirects the rest).
 * Outbound (Envoy's original_dst): one bound to the destination address and port (its address or an additional
 * address), else one bound to the wildcard of the destination's family on the port (`0.0.0.0` for IPv4, `::`
 * for IPv6; either without an address), else `virtualOutbound` itself. A unix socket request: the listener on its pipe.
 */
function pickListener(cfg: ProxyConfig, req: SimulatedRequest): Obj | undefined {
  // NOTE: a unix socket connection reaches only the listener on that pipe (no original destination, no fallback).
  if (req.unixSocket !== undefined) return cfg.listeners.find((l) => obj(obj(l['address'])?.['pipe'])?.['path'] === req.unixSocket);
  const byName = (n: string): Obj | undefined => cfg.listeners.find((l) => l['name'] === n);
  const inbound = req.direction === 'inbound';
  const candidates = cfg.listeners.filter((l) => l['name'] !== 'virtualOutbound' && l['name'] !== 'virtualInbound' && (l['trafficDirection'] === 'INBOUND') === inbound);
  const binds = (l: Obj, address: (a: string) => boolean): boolean => sockets(l).some((s) => address(s.address) && s.port === req.port);
  const exact = req.address ? candidates.find((l) => binds(l, (a) => a === req.address)) : undefined;
  const v6 = req.address?.includes(':');
  const wild = (a: string): boolean => (v6 === undefined ? a === '0.0.0.0' || a === '::' : a === (v6 ? '::' : '0.0.0.0'));
  return exact ?? candidates.find((l) => binds(l, wild)) ?? byName(inbound ? 'virtualInbound' : 'virtualOutbound');
}

/** The bits of an IPv4 or IPv6 address, or undefined when it is neither. */
function ipBits(ip: string): string | undefined {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return ip.split('.').map((x) => Number(x).toString(2).padStart(8, '0')).join('');
  if (!ip.includes(':') || !/^[0-9a-fA-F:]+$/.test(ip)) return undefined;
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...new Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return groups.length === 8 ? groups.map((g) => Number.parseInt(g || '0', 16).toString(2).padStart(16, '0')).join('') : undefined;
}

function ipInRange(ip: string, range: Obj): boolean {
  const prefix = String(range['addressPrefix'] ?? '');
  const [a, p] = [ipBits(ip), ipBits(prefix)];
  if (a === undefined || p === undefined || a.length !== p.length) return ip === prefix;
  const len = Number(wrapped(range['prefixLen']) ?? a.length);
  return a.slice(0, len) === p.slice(0, len);
}

/**
 * Envoy's filter chain selection: narrow by each criterion in order, preferring chains that name it;
 * application protocols by the first ALPN value (client order) a chain names, http_inspector's on
 * plaintext HTTP when the listener sniffs.
 */
function pickFilterChain(l: Obj, req: SimulatedRequest): Obj | undefined {
  let chains = arr(l['filterChains']);
  const match = (c: Obj): Obj => obj(c['filterChainMatch']) ?? {};
  const step = (has: (m: Obj) => boolean, ok: (m: Obj) => boolean): void => {
    const specific = chains.filter((c) => has(match(c)) && ok(match(c)));
    chains = specific.length > 0 ? specific : chains.filter((c) => !has(match(c)));
  };
  step((m) => wrapped(m['destinationPort']) !== undefined, (m) => Number(wrapped(m['destinationPort'])) === req.port);
  step((m) => arr(m['prefixRanges']).length > 0, (m) => req.address !== undefined && arr(m['prefixRanges']).some((r) => ipInRange(req.address!, r)));
  step((m) => Array.isArray(m['serverNames']) && (m['serverNames'] as unknown[]).length > 0, (m) => req.sni !== undefined && (m['serverNames'] as string[]).includes(req.sni));
  const tls = req.tls === true || req.protocol === 'tls';
  const transport = tls ? 'tls' : 'raw_buffer';
  step((m) => typeof m['transportProtocol'] === 'string' && m['transportProtocol'] !== '', (m) => m['transportProtocol'] === transport);
  // NOTE: on plaintext, http_inspector (when the listener has it) sets the ALPN Envoy matches on.
  const sniffs = arr(l['listenerFilters']).some((f) => f['name'] === 'envoy.filters.listener.http_inspector');
  const alpn = req.alpn ?? (!tls && sniffs && (req.protocol ?? 'http') === 'http' ? ['http/1.1'] : []);
  const protocols = (m: Obj): string[] => (Array.isArray(m['applicationProtocols']) ? (m['applicationProtocols'] as string[]) : []);
  // NOTE: as Envoy, the first ALPN value (in the client's order) that some chain names decides.
  const first = alpn.find((a) => chains.some((c) => protocols(match(c)).includes(a)));
  chains = first !== undefined ? chains.filter((c) => protocols(match(c)).includes(first)) : chains.filter((c) => protocols(match(c)).length === 0);
  return chains[0] ?? obj(l['defaultFilterChain']);
}

/** Envoy's virtual host selection by the Host header. */
export function pickVirtualHost(rc: Obj, host: string): Obj | undefined {
  const h = host.toLowerCase();
  const vhs = arr(rc['virtualHosts']);
  const domains = (v: Obj): string[] => ((v['domains'] as string[] | undefined) ?? []).map((d) => d.toLowerCase());
  const exact = vhs.find((v) => domains(v).includes(h));
  if (exact) return exact;
  let best: { v: Obj; len: number } | undefined;
  for (const v of vhs) for (const d of domains(v)) if (d.startsWith('*') && d !== '*' && h.endsWith(d.slice(1)) && (!best || d.length > best.len)) best = { v, len: d.length };
  if (best) return best.v;
  for (const v of vhs) for (const d of domains(v)) if (d.endsWith('*') && d !== '*' && h.startsWith(d.slice(0, -1)) && (!best || d.length > best.len)) best = { v, len: d.length };
  if (best) return best.v;
  return vhs.find((v) => domains(v).includes('*'));
}

function stringMatches(m: Obj, value: string | undefined): boolean {
  if (value === undefined) return false;
  const ic = m['ignoreCase'] === true;
  const v = ic ? value.toLowerCase() : value;
  const c = (x: unknown): string => (ic ? String(x).toLowerCase() : String(x));
  if (m['exact'] !== undefined) return v === c(m['exact']);
  if (m['prefix'] !== undefined) return v.startsWith(c(m['prefix']));
  if (m['suffix'] !== undefined) return v.endsWith(c(m['suffix']));
  if (m['contains'] !== undefined) return v.includes(c(m['contains']));
  const re = obj(m['safeRegex'])?.['regex'];
  if (re !== undefined) return new RegExp(`^(?:${String(re)})$`).test(value);
  return false;
}

function headerValue(req: SimulatedRequest, name: string): string | undefined {
  if (name === ':method') return req.method ?? 'GET';
  if (name === ':authority') return req.host;
  if (name === ':path') return req.path ?? '/';
  if (name === ':scheme') return 'http';
  const key = Object.keys(req.headers ?? {}).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : req.headers![key];
}

/** Whether a route's match accepts the request (Envoy's RouteMatch: path, headers, query parameters). */
export function routeMatches(match: Obj, req: SimulatedRequest): boolean {
  const full = req.path ?? '/';
  const [path = '/', query = ''] = full.split('?', 2);
  const cs = wrapped(match['caseSensitive']) !== false;
  const p = cs ? path : path.toLowerCase();
  const c = (x: unknown): string => (cs ? String(x) : String(x).toLowerCase());
  if (match['prefix'] !== undefined && !p.startsWith(c(match['prefix']))) return false;
  if (match['path'] !== undefined && p !== c(match['path'])) return false;
  const re = obj(match['safeRegex'])?.['regex'];
  if (re !== undefined && !new RegExp(`^(?:${String(re)})$`, cs ? '' : 'i').test(path)) return false;
  for (const h of arr(match['headers'])) {
    const v = headerValue(req, String(h['name']));
    const sm = obj(h['stringMatch']);
    const ok = h['presentMatch'] === true ? v !== undefined : sm ? stringMatches(sm, v) : v !== undefined;
    if (ok === (h['invertMatch'] === true)) return false;
  }
  const params = new URLSearchParams(query);
  for (const q of arr(match['queryParameters'])) {
    const v = params.get(String(q['name'])) ?? undefined;
    const sm = obj(q['stringMatch']);
    if (q['presentMatch'] === true ? v === undefined : sm ? !stringMatches(sm, v) : v === undefined) return false;
  }
  return true;
}

function endpointsOf(cfg: ProxyConfig, name: string, req: SimulatedRequest): string[] | undefined {
  const cluster = cfg.clusters.find((c) => c['name'] === name);
  if (!cluster) return undefined;
  const la =
    cluster['type'] === 'EDS'
      ? cfg.endpoints.find((e) => e['clusterName'] === (String(obj(cluster['edsClusterConfig'])?.['serviceName'] ?? '') || name))
      : obj(cluster['loadAssignment']);
  if (cluster['type'] === 'ORIGINAL_DST') {
    const override = wrapped(obj(cluster['originalDstLbConfig'])?.['upstreamPortOverride']);
    return req.address ? [hostPort(req.address, override !== undefined ? Number(override) : req.port)] : [];
  }
  // NOTE: as Envoy with every endpoint healthy, all traffic goes to the first priority level (0 first)
  // that has endpoints; lower levels take over only when it has none (locality failover).
  const byPriority = new Map<number, string[]>();
  for (const loc of arr(la?.['endpoints'])) {
    const priority = Number(wrapped(loc['priority']) ?? 0);
    for (const e of arr(loc['lbEndpoints'])) {
      if (e['healthStatus'] === 'UNHEALTHY') continue;
      const s = obj(obj(obj(e['endpoint'])?.['address'])?.['socketAddress']);
      if (s) byPriority.set(priority, [...(byPriority.get(priority) ?? []), hostPort(String(s['address']), String(s['portValue']))]);
    }
  }
  const first = [...byPriority.keys()].sort((a, b) => a - b)[0];
  return first === undefined ? [] : byPriority.get(first)!;
}

function toClusters(cfg: ProxyConfig, refs: { name: string; weight: number }[], req: SimulatedRequest): SimulatedCluster[] | undefined {
  const out: SimulatedCluster[] = [];
  for (const r of refs) {
    const endpoints = endpointsOf(cfg, r.name, req);
    if (!endpoints) return undefined;
    out.push({ name: r.name, weight: r.weight, endpoints });
  }
  return out;
}

/** See the file comment. */
export function simulateRequest(cfg: ProxyConfig, req: SimulatedRequest): SimulationResult {
  const sources: string[] = [];
  const listener = pickListener(cfg, req);
  if (!listener) return { outcome: 'no-listener', sources };
  sources.push(...sourcesOf(listener));
  const base = { listener: String(listener['name']) };
  const chain = pickFilterChain(listener, req);
  if (!chain) return { outcome: 'no-filter-chain', ...base, sources };
  const socket = obj(chain['transportSocket']);
  const at = { ...base, filterChain: String(chain['name'] ?? ''), ...(socket ? { tlsSecrets: sdsSecretNames(socket) } : {}) };
  // NOTE: Envoy's sni_cluster filter (before tcp_proxy) makes a TLS connection's SNI the upstream cluster.
  const sniCluster = arr(chain['filters']).some((f) => f['name'] === SNI_CLUSTER) && req.sni !== undefined && (req.tls === true || req.protocol === 'tls') ? req.sni : undefined;
  for (const f of arr(chain['filters'])) {
    const tc = obj(f['typedConfig']);
    // NOTE: the Redis proxy terminates the chain (no tcp_proxy after it); its catch-all route names the cluster.
    const redisCluster = tc?.['@type'] === REDIS_PROXY ? obj(obj(tc['prefixRoutes'])?.['catchAllRoute'])?.['cluster'] : undefined;
    if (typeof redisCluster === 'string') {
      for (const s of sourcesOf(chain)) if (!sources.includes(s)) sources.push(s);
      const refs = [{ name: redisCluster, weight: 100 }];
      const clusters = toClusters(cfg, refs, req);
      return clusters ? { outcome: 'routed', ...at, clusters, sources } : { outcome: 'no-cluster', ...at, clusters: refs.map((r) => ({ ...r, endpoints: [] })), sources };
    }
    if (tc?.['@type'] === TCP_PROXY) {
      for (const s of sourcesOf(chain)) if (!sources.includes(s)) sources.push(s);
      const refs =
        sniCluster !== undefined
          ? [{ name: sniCluster, weight: 100 }]
          : typeof tc['cluster'] === 'string'
          ? [{ name: tc['cluster'], weight: 100 }]
          : arr(obj(tc['weightedClusters'])?.['clusters']).map((w) => ({ name: String(w['name']), weight: Number(wrapped(w['weight']) ?? 0) }));
      const clusters = toClusters(cfg, refs, req);
      return clusters ? { outcome: 'routed', ...at, clusters, sources } : { outcome: 'no-cluster', ...at, clusters: refs.map((r) => ({ ...r, endpoints: [] })), sources };
    }
    for (const s of sourcesOf(chain)) if (!sources.includes(s)) sources.push(s);
    const terminates = socket !== undefined;
    if (tc?.['@type'] !== HCM || req.protocol === 'tcp' || (req.protocol === 'tls' && !terminates)) continue;
    const rdsName = obj(tc['rds'])?.['routeConfigName'];
    const rc = typeof rdsName === 'string' ? cfg.routes.find((r) => r['name'] === rdsName) : obj(tc['routeConfig']);
    if (!rc) return { outcome: 'no-route-config', ...at, ...(typeof rdsName === 'string' ? { routeConfig: rdsName } : {}), sources };
    const withRc = { ...at, routeConfig: String(rc['name'] ?? '') };
    const authority = req.host ?? hostPort(req.address ?? '', req.port);
    // NOTE: Envoy's ignore_port_in_host_matching (gateways set it): `host:port` matches domain `host`.
    const host = wrapped(rc['ignorePortInHostMatching']) === true ? authority.replace(/:\d+$/, '') : authority;
    const vh = pickVirtualHost(rc, host);
    if (!vh) return { outcome: 'no-virtual-host', ...withRc, sources };
    sources.push(...sourcesOf(vh));
    const withVh = { ...withRc, virtualHost: String(vh['name']) };
    const secure = req.protocol === 'tls' || req.tls === true;
    if (vh['requireTls'] === 'ALL' && !secure) return { outcome: 'redirect', ...withVh, response: { httpsRedirect: true, responseCode: 'MOVED_PERMANENTLY' }, sources };
    const route = arr(vh['routes']).find((r) => routeMatches(obj(r['match']) ?? {}, req));
    if (!route) return { outcome: 'no-route', ...withVh, sources };
    for (const s of sourcesOf(route)) if (!sources.includes(s)) sources.push(s);
    const withRoute = { ...withVh, route: String(route['name'] ?? '') };
    if (route['redirect']) return { outcome: 'redirect', ...withRoute, response: obj(route['redirect'])!, sources };
    if (route['directResponse']) return { outcome: 'direct-response', ...withRoute, response: obj(route['directResponse'])!, sources };
    const action = obj(route['route']) ?? {};
    const refs =
      typeof action['cluster'] === 'string'
        ? [{ name: action['cluster'], weight: 100 }]
        : arr(obj(action['weightedClusters'])?.['clusters']).map((w) => ({ name: String(w['name']), weight: Number(wrapped(w['weight']) ?? 0) }));
    const clusters = toClusters(cfg, refs, req);
    return clusters ? { outcome: 'routed', ...withRoute, clusters, sources } : { outcome: 'no-cluster', ...withRoute, clusters: refs.map((r) => ({ ...r, endpoints: [] })), sources };
  }
  return { outcome: 'no-filter-chain', ...at, sources };
}
