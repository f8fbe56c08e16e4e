/**
 * compareProxyConfigs: two servers' configurations for the same sidecar, compared by what matters to a
 * user: the routing outcome of each request through the request simulator (outcome, clusters with their
 * weights, the endpoints each cluster would pick from) and the name sets of listeners, clusters and route
 * configurations, the shapes of the load assignments (localities, priorities, weights, endpoints), of
 * the clusters' load balancing and upstream TLS secrets and parameters, the listeners' TLS parameters and the addresses of the listeners both send,
 * the consistent-hash policies and retry host predicates of the routes of the virtual hosts both send, and the
 * tcp_proxy hash policies of the listeners both send. Names a difference may be explained by are reported apart.
 * Pure functions.
 */
import { simulateRequest, type ProxyConfig, type SimulatedRequest, type SimulationResult } from '../../xds/index.js';

/** A request with a label for the report. */
export interface LabelledRequest {
  readonly label: string;
  readonly request: SimulatedRequest;
}

/** One request's outcome on both servers. */
export interface OutcomeDiff {
  readonly label: string;
  readonly meshd: string;
  readonly istiod: string;
  readonly same: boolean;
}

/** Names one server sends and the other does not, per type. */
export interface NameDiff {
  readonly type: 'listener' | 'cluster' | 'route';
  readonly onlyMeshd: readonly string[];
  readonly onlyIstiod: readonly string[];
  /** Names both send. */
  readonly common: number;
}

/** A resource both servers send whose compared shape differs. */
export interface ShapeDiff {
  readonly name: string;
  readonly meshd: string;
  readonly istiod: string;
}

/** The comparison of one proxy. */
export interface ProxyComparison {
  readonly outcomes: readonly OutcomeDiff[];
  readonly names: readonly NameDiff[];
  /** Load assignments (by cluster name) both send: how many have the same {@link assignmentShape}, and those that differ. */
  readonly assignments: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Clusters both send: how many have the same {@link clusterLbShape}, and those that differ. */
  readonly clusterLb: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Listeners both send with HCMs on both sides: how many have the same {@link hcmShape}, and those that differ. */
  readonly hcm: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Clusters both send: how many have the same {@link clusterTlsShape}, and those that differ. */
  readonly clusterTls: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Listeners both send: how many have the same {@link listenerTlsShape}, and those that differ. */
  readonly listenerTls: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Listeners both send: how many bind the same {@link listenerAddressShape}, and those that differ. */
  readonly listenerAddresses: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Virtual hosts both send (`<route configuration>/<virtual host>`): how many have the same {@link routeHashShape}, and those that differ. */
  readonly routeHash: { readonly same: number; readonly differ: readonly ShapeDiff[] };
  /** Listeners both send with a tcp_proxy on both sides: how many have the same {@link tcpHashShape}, and those that differ. */
  readonly tcpHash: { readonly same: number; readonly differ: readonly ShapeDiff[] };
}

type Obj = Record<string, unknown>;
// NOTE: a wrapper or Percent holding 0 decodes to `{}` (proto3 leaves the zero out).
const wrappedNumber = (v: unknown): number => Number(v !== null && typeof v === 'object' ? ((v as { value?: unknown }).value ?? 0) : (v ?? 0));

/**
 * A load assignment in one line: per locality group, sorted, `priority:region/zone/subzone(weight)=ip:port[+mtls],...`.
 * Groups with no endpoints count (a `distribute` that drops a locality keeps it empty).
 */
export function assignmentShape(la: Obj): string {
  const groups = ((la['endpoints'] as Obj[] | undefined) ?? []).map((g) => {
    const l = (g['locality'] as Obj | undefined) ?? {};
    const loc = [l['region'], l['zone'], l['subZone']].map((x) => String(x ?? '')).join('/').replace(/\/+$/, '');
    const eps = ((g['lbEndpoints'] as Obj[] | undefined) ?? [])
      .map((e) => {
        const a = ((e['endpoint'] as Obj | undefined)?.['address'] as Obj | undefined)?.['socketAddress'] as Obj | undefined;
        // NOTE: `+mtls` marks an endpoint auto mTLS sends mTLS to (transport socket match metadata `tlsMode`).
        const tlsMode = (((e['metadata'] as Obj | undefined)?.['filterMetadata'] as Obj | undefined)?.['envoy.transport_socket_match'] as Obj | undefined)?.['tlsMode'];
        return `${String(a?.['address'])}:${String(a?.['portValue'])}${tlsMode !== undefined ? '+mtls' : ''}`;
      })
      .sort();
    return `${wrappedNumber(g['priority'])}:${loc}(${wrappedNumber(g['loadBalancingWeight'])})=${eps.join(',')}`;
  });
  return groups.sort().join(' ');
}

/**
 * A cluster's load-balancing shape: discovery type (with the DNS lookup family of a DNS cluster), policy,
 * locality-weighted LB, outlier detection (its JSON), panic threshold; for an inbound cluster also its
 * connection pool (inboundPoolShape).
 */
export function clusterLbShape(c: Obj): string {
  const common = (c['commonLbConfig'] as Obj | undefined) ?? {};
  const type = String(c['type'] ?? 'STATIC');
  return [
    `type=${type}${type.endsWith('_DNS') ? `/${String(c['dnsLookupFamily'] ?? 'AUTO')}` : ''}`,
    `lb=${String(c['lbPolicy'] ?? 'ROUND_ROBIN')}`,
    `localityWeighted=${common['localityWeightedLbConfig'] !== undefined}`,
    `outlierDetection=${c['outlierDetection'] !== undefined ? JSON.stringify(c['outlierDetection']) : 'none'}`,
    `panicThreshold=${common['healthyPanicThreshold'] !== undefined ? wrappedNumber(common['healthyPanicThreshold']) : 'unset'}`,
    ...(String(c['name'] ?? '').startsWith('inbound|') ? [inboundPoolShape(c)] : []),
  ].join(' ');
}

/**
 * What a Sidecar connection pool makes of an inbound cluster (inboundConnectionPool, ingress[].connectionPool):
 * the circuit breaker limits (connections/pending/requests/retries), the connect timeout and the HTTP idle timeout.
 */
function inboundPoolShape(c: Obj): string {
  const t = (((c['circuitBreakers'] as Obj | undefined)?.['thresholds'] as Obj[] | undefined) ?? [])[0] ?? {};
  const limits = ['maxConnections', 'maxPendingRequests', 'maxRequests', 'maxRetries'].map((k) => (t[k] === undefined ? 'default' : String(wrappedNumber(t[k]))));
  const seconds = (d: unknown): string => {
    if (d === undefined || d === null) return 'unset';
    if (typeof d === 'string') return d;
    const o = d as { seconds?: unknown; nanos?: unknown };
    return `${Number(o.seconds ?? 0) + Number(o.nanos ?? 0) / 1e9}s`;
  };
  const http = ((c['typedExtensionProtocolOptions'] as Obj | undefined)?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'] as Obj | undefined) ?? {};
  const idle = (http['commonHttpProtocolOptions'] as Obj | undefined)?.['idleTimeout'];
  return `limits=${limits.join('/')} connectTimeout=${seconds(c['connectTimeout'])} idle=${seconds(idle)}`;
}

/**
 * What the sidecar listener options make of a listener's HTTP connection managers, in one line: the
 * distinct settings of its HCMs (`use_remote_address`, `accept_http_10`, the internal address CIDRs, and
 * whether an `*.alpn` filter (Istio's `istio.alpn`, meshd's `mesh.alpn`) is there), sorted; empty without HCM.
 */
export function hcmShape(l: Obj): string {
  const chains = [...((l['filterChains'] as Obj[] | undefined) ?? []), ...(l['defaultFilterChain'] ? [l['defaultFilterChain'] as Obj] : [])];
  const out = new Set<string>();
  for (const c of chains) {
    for (const f of (c['filters'] as Obj[] | undefined) ?? []) {
      if (f['name'] !== 'envoy.filters.network.http_connection_manager') continue;
      const h = (f['typedConfig'] as Obj | undefined) ?? {};
      const iac = ((h['internalAddressConfig'] as Obj | undefined)?.['cidrRanges'] as Obj[] | undefined) ?? [];
      const filters = ((h['httpFilters'] as Obj[] | undefined) ?? []).map((x) => String(x['name']));
      out.add(
        [
          // NOTE: a BoolValue is a bare boolean in protobuf JSON.
          `useRemoteAddress=${h['useRemoteAddress'] === true || (h['useRemoteAddress'] as { value?: boolean } | undefined)?.value === true}`,
          // NOTE: the JSON name (`acceptHttp10`) on the wire, protobufjs's (`acceptHttp_10`) in built objects.
          `http10=${[(h['httpProtocolOptions'] as Obj | undefined)?.['acceptHttp10'], (h['httpProtocolOptions'] as Obj | undefined)?.['acceptHttp_10']].includes(true)}`,
          `internal=[${iac.map((r) => `${String(r['addressPrefix'])}/${wrappedNumber(r['prefixLen'])}`).join(',')}]`,
          `alpn=${filters.some((n) => n.endsWith('.alpn'))}`,
        ].join(' '),
      );
    }
  }
  return [...out].sort().join(' | ');
}

/** The SDS secret names under `v` (objects with `name` and `sdsConfig`), in document order. */
function sdsNames(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) {
    for (const x of v) sdsNames(x, out);
  } else if (v !== null && typeof v === 'object') {
    const o = v as Obj;
    if (typeof o['name'] === 'string' && o['sdsConfig'] !== undefined) out.push(o['name']);
    for (const x of Object.values(o)) if (x !== null && typeof x === 'object') sdsNames(x, out);
  }
  return out;
}

/** The `commonTlsContext` objects under `v`, in document order. */
function commonTlsContexts(v: unknown, out: Obj[] = []): Obj[] {
  if (Array.isArray(v)) {
    for (const x of v) commonTlsContexts(x, out);
  } else if (v !== null && typeof v === 'object') {
    const o = v as Obj;
    if (o['commonTlsContext'] !== null && typeof o['commonTlsContext'] === 'object') out.push(o['commonTlsContext'] as Obj);
    for (const [k, x] of Object.entries(o)) if (k !== 'commonTlsContext' && x !== null && typeof x === 'object') commonTlsContexts(x, out);
  }
  return out;
}

/** A TLS context's `tls_params` in one token: `min-max`, then `curves=` and `ciphers=` when set; `unset` without. */
function tlsParamsToken(common: Obj): string {
  const p = common['tlsParams'] as Obj | undefined;
  if (!p) return 'unset';
  const list = (k: string): string => (((p[k] as unknown[] | undefined) ?? []).length > 0 ? ` ${k}=${(p[k] as unknown[]).join(':')}` : '');
  return `${String(p['tlsMinimumProtocolVersion'] ?? 'TLS_AUTO')}-${String(p['tlsMaximumProtocolVersion'] ?? 'TLS_AUTO')}${list('ecdhCurves')}${list('cipherSuites')}`;
}

/**
 * A cluster's upstream TLS (transport socket and socket matches) in one line: the SDS secrets it reads,
 * distinct, sorted (a file certificate's `file-cert:`/`file-root:` names compare without the files
 * existing), then `params=` and the distinct `tls_params` of its TLS contexts (protocol versions, ECDH
 * curves, cipher suites). Empty without TLS.
 */
export function clusterTlsShape(c: Obj): string {
  const sockets = [c['transportSocket'], c['transportSocketMatches']];
  const secrets = [...new Set(sdsNames(sockets))].sort().join(',');
  const params = [...new Set(commonTlsContexts(sockets).map(tlsParamsToken))].sort().join('|');
  return params === '' ? secrets : `${secrets} params=${params}`;
}

/**
 * The TLS parameters of the TLS a listener terminates (its filter chains' transport sockets: inbound mesh
 * mTLS, Sidecar ingress TLS), distinct, sorted, `|`-separated (see clusterTlsShape); empty without TLS.
 */
export function listenerTlsShape(l: Obj): string {
  const chains = [...((l['filterChains'] as Obj[] | undefined) ?? []), ...(l['defaultFilterChain'] ? [l['defaultFilterChain'] as Obj] : [])];
  return [...new Set(commonTlsContexts(chains.map((c) => c['transportSocket'])).map(tlsParamsToken))].sort().join('|');
}

/** The addresses a listener binds, `ip:port`: its address, then its additional addresses, sorted. */
export function listenerAddressShape(l: Obj): string {
  const one = (a: unknown): string => {
    const s = ((a as Obj | undefined)?.['socketAddress'] as Obj | undefined) ?? {};
    return `${String(s['address'] ?? '')}:${wrappedNumber(s['portValue'])}`;
  };
  const extra = ((l['additionalAddresses'] as Obj[] | undefined) ?? []).map((x) => one(x['address'])).sort();
  return [one(l['address']), ...extra].join(' ');
}

/**
 * What a DestinationRule's consistent hash makes of a virtual host's routes, in one line: per route in order,
 * its route action's `hashPolicy` (protobuf JSON, `none` without) and the names of its retry host predicates
 * (`none` without: a single hashed destination retries on the same host) and its retry priority plugin with its update
 * frequency, if any; `-` for a redirect or direct response.
 */
export function routeHashShape(vh: Obj): string {
  return ((vh['routes'] as Obj[] | undefined) ?? [])
    .map((r) => {
      const action = r['route'] as Obj | undefined;
      if (!action) return '-';
      const hash = action['hashPolicy'] as unknown[] | undefined;
      const retry = action['retryPolicy'] as Obj | undefined;
      const predicates = ((retry?.['retryHostPredicate'] as Obj[] | undefined) ?? []).map((p) => String(p['name']));
      const priority = retry?.['retryPriority'] as Obj | undefined;
      const prio = priority ? ` retryPriority=${String(priority['name'])}/${String((priority['typedConfig'] as Obj | undefined)?.['updateFrequency'] ?? 'unset')}` : '';
      return `hash=${hash && hash.length > 0 ? JSON.stringify(hash) : 'none'} retryHosts=${predicates.length > 0 ? predicates.join(',') : 'none'}${prio}`;
    })
    .join(' ; ');
}

/**
 * The tcp_proxy hash policies of a listener (a DestinationRule's source-IP hash), distinct, sorted, `|`-separated:
 * `none` for a tcp_proxy without one; empty without tcp_proxy.
 */
export function tcpHashShape(l: Obj): string {
  const chains = [...((l['filterChains'] as Obj[] | undefined) ?? []), ...(l['defaultFilterChain'] ? [l['defaultFilterChain'] as Obj] : [])];
  const out = new Set<string>();
  for (const c of chains) {
    for (const f of (c['filters'] as Obj[] | undefined) ?? []) {
      if (f['name'] !== 'envoy.filters.network.tcp_proxy') continue;
      const hash = ((f['typedConfig'] as Obj | undefined)?.['hashPolicy'] as unknown[] | undefined) ?? [];
      out.add(hash.length > 0 ? JSON.stringify(hash) : 'none');
    }
  }
  return [...out].sort().join('|');
}

/** {@link routeHashShape} of the virtual hosts both sides send in the route configurations both send. */
function routeHashes(meshd: readonly Obj[], istiod: readonly Obj[]): { same: number; differ: ShapeDiff[] } {
  const hosts = (rcs: readonly Obj[]): Obj[] =>
    rcs.flatMap((rc) => ((rc['virtualHosts'] as Obj[] | undefined) ?? []).map((vh) => ({ ...vh, key: `${String(rc['name'])}/${String(vh['name'])}` })));
  return shapes(hosts(meshd), hosts(istiod), 'key', routeHashShape);
}

function shapes(meshd: readonly Obj[], istiod: readonly Obj[], key: string, shape: (o: Obj) => string, skipEmpty = false): { same: number; differ: ShapeDiff[] } {
  const theirs = new Map(istiod.map((o) => [String(o[key]), o]));
  let same = 0;
  const differ: ShapeDiff[] = [];
  for (const m of meshd) {
    const name = String(m[key]);
    const i = theirs.get(name);
    if (!i) continue;
    const [a, b] = [shape(m), shape(i)];
    if (skipEmpty && (a === '' || b === '')) continue;
    if (a === b) same++;
    else differ.push({ name, meshd: a, istiod: b });
  }
  return { same, differ: differ.sort((x, y) => x.name.localeCompare(y.name)) };
}

/**
 * A routing outcome in one line: `routed outbound|9080|v1|reviews...(80)[10.0.1.1:9080] ...`, with
 * `tls{<secrets>}` after the outcome when the matched chain terminates TLS. Clusters are
 * sorted by name, endpoints by address; listener, filter chain and route names are left out (they are
 * the servers' own choices; the outcome is what a user sees).
 */
export function outcomeLine(r: SimulationResult): string {
  if (r.outcome === 'redirect' || r.outcome === 'direct-response') {
    const resp = r.response ?? {};
    const status = resp['status'] ?? resp['responseCode'] ?? '';
    const where = resp['pathRedirect'] ?? resp['prefixRewrite'] ?? resp['hostRedirect'] ?? (resp['httpsRedirect'] ? 'https' : '');
    return `${r.outcome} ${String(status)} ${String(where)}`.trim();
  }
  const clusters = [...(r.clusters ?? [])]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => `${c.name}(${c.weight})[${[...c.endpoints].sort().join(',')}]`);
  // NOTE: the secrets a terminating chain serves are what a client's handshake meets (mesh identity or the user's certificate).
  const tls = r.tlsSecrets && r.tlsSecrets.length > 0 ? [`tls{${r.tlsSecrets.join(',')}}`] : [];
  return [r.outcome, ...tls, ...clusters].join(' ');
}

function names(items: readonly Record<string, unknown>[]): Set<string> {
  return new Set(items.map((i) => String(i['name'])));
}

/** Sorted set differences of the two sides' names. */
export function nameDiff(type: NameDiff['type'], meshd: readonly Record<string, unknown>[], istiod: readonly Record<string, unknown>[]): NameDiff {
  const m = names(meshd);
  const i = names(istiod);
  return {
    type,
    onlyMeshd: [...m].filter((n) => !i.has(n)).sort(),
    onlyIstiod: [...i].filter((n) => !m.has(n)).sort(),
    common: [...m].filter((n) => i.has(n)).length,
  };
}

/** Options of {@link compareProxyConfigs}. */
export interface CompareOptions {
  /** The request as istiod's proxy would make it (mesh mTLS ALPN `mesh*` is Istio's `istio*`). Default {@link istioRequest}. */
  readonly istiodRequest?: (r: SimulatedRequest) => SimulatedRequest;
}

/** A request renamed for istiod's sidecar: ALPN values `mesh-peer-exchange`, `mesh` -> `istio-peer-exchange`, `istio`. */
export function istioRequest(r: SimulatedRequest): SimulatedRequest {
  return r.alpn ? { ...r, alpn: r.alpn.map((a) => a.replace(/^mesh/, 'istio')) } : r;
}

/** Simulates every request on both configurations and compares the outcomes, then the name sets. */
export function compareProxyConfigs(meshd: ProxyConfig, istiod: ProxyConfig, requests: readonly LabelledRequest[], opts: CompareOptions = {}): ProxyComparison {
  const forIstiod = opts.istiodRequest ?? istioRequest;
  const outcomes = requests.map(({ label, request }) => {
    const m = outcomeLine(simulateRequest(meshd, request));
    const i = outcomeLine(simulateRequest(istiod, forIstiod(request)));
    return { label, meshd: m, istiod: i, same: m === i };
  });
  return {
    outcomes,
    names: [nameDiff('listener', meshd.listeners, istiod.listeners), nameDiff('cluster', meshd.clusters, istiod.clusters), nameDiff('route', meshd.routes, istiod.routes)],
    assignments: shapes(meshd.endpoints, istiod.endpoints, 'clusterName', assignmentShape),
    clusterLb: shapes(meshd.clusters, istiod.clusters, 'name', clusterLbShape),
    // NOTE: only listeners with HCMs on both sides: istiod's virtualInbound has catch-all HTTP chains even
    // without inbound ports (meshd's catch-all is TCP only), a shape difference the options do not make.
    hcm: shapes(meshd.listeners, istiod.listeners, 'name', hcmShape, true),
    clusterTls: shapes(meshd.clusters, istiod.clusters, 'name', clusterTlsShape),
    listenerTls: shapes(meshd.listeners, istiod.listeners, 'name', listenerTlsShape),
    listenerAddresses: shapes(meshd.listeners, istiod.listeners, 'name', listenerAddressShape),
    routeHash: routeHashes(meshd.routes, istiod.routes),
    tcpHash: shapes(meshd.listeners, istiod.listeners, 'name', tcpHashShape, true),
  };
}

/** A known, explained difference: names matching `pattern` are listed with `why` instead of as unexplained. */
export interface KnownDifference {
  readonly pattern: RegExp;
  readonly why: string;
}

/** Splits a name list into explained (with the reason) and unexplained names. */
export function explain(list: readonly string[], known: readonly KnownDifference[]): { explained: string[]; unexplained: string[] } {
  const explained: string[] = [];
  const unexplained: string[] = [];
  for (const n of list) {
    const k = known.find((d) => d.pattern.test(n));
    if (k) explained.push(`${n} (${k.why})`);
    else unexplained.push(n);
  }
  return { explained, unexplained };
}
