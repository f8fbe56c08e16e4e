/**
 * compareProxyConfigs: two servers' configurations for the same sidecar, compared by what matters to a
 * user: the routing outcome of each request through the request simulator (outcome, clusters with their
 * weights, the endpoints each cluster would pick from) and the name sets of listeners, clusters and route
 * configurations. Names a difference may be explained by (`knownDifferences`) are reported apart.
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

/** The comparison of one proxy. */
export interface ProxyComparison {
  readonly outcomes: readonly OutcomeDiff[];
  readonly names: readonly NameDiff[];
}

/**
 * A routing outcome in one line: `routed outbound|9080|v1|reviews...(80)[10.0.1.1:9080] ...`. Clusters are
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
  return [r.outcome, ...clusters].join(' ');
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
