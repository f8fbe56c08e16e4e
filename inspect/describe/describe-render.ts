/**
 * The pieces of `meshctl x describe` output shared by `pod` and `service`, in istioctl's wording and indents
 * (level 0, 3 and 6 spaces): object names, DestinationRules with their subsets, VirtualService routes, the
 * simulated traffic split.
 */
import { labelsMatch, resolveShortName, type Config } from '../../core/index.js';
import type { OrchMeta, ServiceObject, ServicePortObject } from './describe-cluster.js';

/** istioctl's indent levels. */
export const LEVEL = [0, 3, 6] as const;
/** The separator between sections. */
export const SEPARATOR = '--------------------';

const pad = (n: number): string => ' '.repeat(n);

/** `name` in the described namespace, `name.namespace` elsewhere (Istio's `kname`). */
export function kname(meta: Pick<OrchMeta, 'name' | 'namespace'>, describedNamespace: string): string {
  return meta.namespace === describedNamespace ? meta.name : `${meta.name}.${meta.namespace ?? ''}`;
}

/** The FQDN of a Service. */
export function serviceHost(svc: ServiceObject, domain: string): string {
  return `${svc.metadata.name}.${svc.metadata.namespace ?? ''}.svc.${domain}`;
}

interface Subset {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** The subsets of a DestinationRule some pod matches, and the others. */
export function subsetsOf(dr: Config | undefined, podsLabels: readonly Readonly<Record<string, string>>[]): { matching: string[]; nonMatching: string[] } {
  const matching: string[] = [];
  const nonMatching: string[] = [];
  for (const s of ((dr?.spec as { subsets?: Subset[] } | undefined)?.subsets ?? [])) {
    if (podsLabels.some((l) => labelsMatch(s.labels ?? {}, l))) matching.push(s.name);
    else nonMatching.push(s.name);
  }
  return { matching, nonMatching };
}

interface TrafficPolicy {
  readonly tls?: { readonly mode?: string };
  readonly loadBalancer?: unknown;
  readonly connectionPool?: unknown;
  readonly outlierDetection?: unknown;
  readonly portLevelSettings?: readonly (TrafficPolicy & { readonly port?: { readonly number?: number } })[];
}

function shortPolicies(p: TrafficPolicy): string | undefined {
  const extra = [p.loadBalancer ? 'load balancer' : '', p.connectionPool ? 'connection pool' : '', p.outlierDetection ? 'outlier detection' : ''].filter((s) => s !== '');
  return extra.length > 0 ? `Policies: ${extra.join('/')}` : undefined;
}

/** The DestinationRule block. */
export function destinationRuleLines(indent: number, dr: Config, podsLabels: readonly Readonly<Record<string, string>>[], ns: string): string[] {
  const spec = dr.spec as { host?: string; trafficPolicy?: TrafficPolicy };
  const out = [`${pad(indent + LEVEL[0])}DestinationRule: ${kname(dr.metadata, ns)} for "${spec.host ?? ''}"`];
  const { matching, nonMatching } = subsetsOf(dr, podsLabels);
  if (matching.length > 0 || nonMatching.length > 0) {
    if (matching.length === 0) out.push(`${pad(indent + LEVEL[1])}WARNING POD DOES NOT MATCH ANY SUBSETS.  (Non matching subsets ${nonMatching.join(',')})`);
    out.push(`${pad(indent + LEVEL[1])}Matching subsets: ${matching.join(',')}`);
    if (nonMatching.length > 0) out.push(`${pad(indent + LEVEL[2])}(Non-matching subsets ${nonMatching.join(',')})`);
  }
  const tp = spec.trafficPolicy;
  if (!tp) {
    out.push(`${pad(indent + LEVEL[1])}No Traffic Policy`);
    return out;
  }
  if (tp.tls) out.push(`${pad(indent + LEVEL[1])}Traffic Policy TLS Mode: ${tp.tls.mode ?? 'DISABLE'}`);
  const sp = shortPolicies(tp);
  if (sp) out.push(`${pad(indent + LEVEL[1])}${sp}`);
  if (tp.portLevelSettings) {
    out.push(`${pad(indent + LEVEL[1])}Port Level Settings:`);
    for (const ps of tp.portLevelSettings) {
      out.push(`${pad(4)}${ps.port?.number ?? 0}:`);
      if (ps.tls) out.push(`${pad(indent + LEVEL[2])}TLS Mode: ${ps.tls.mode ?? 'DISABLE'}`);
      const psp = shortPolicies(ps);
      if (psp) out.push(`${pad(indent + LEVEL[2])}${psp}`);
    }
  }
  return out;
}

type StringMatch = { readonly exact?: string; readonly prefix?: string; readonly regex?: string } | undefined;
interface HttpMatch {
  readonly uri?: StringMatch;
  readonly ignoreUriCase?: boolean;
  readonly headers?: Readonly<Record<string, StringMatch>>;
}
interface RouteDestination {
  readonly destination?: { readonly host?: string; readonly subset?: string };
  readonly weight?: number;
}
interface HttpRoute {
  readonly match?: readonly HttpMatch[];
  readonly route?: readonly RouteDestination[];
  readonly fault?: unknown;
}

function stringMatch(m: StringMatch): string {
  if (!m) return '';
  if (m.exact !== undefined) return m.exact;
  if (m.prefix !== undefined) return `${m.prefix}*`;
  if (m.regex !== undefined) return `regex ${m.regex}`;
  return JSON.stringify(m);
}

/** One request match, as istioctl renders it (`Match: /prefix* when headers are end-user=jason`). */
export function renderMatch(m: HttpMatch): string {
  const parts: string[] = [];
  if (m.uri) parts.push(stringMatch(m.uri) + (m.ignoreUriCase ? ' uncased' : ''));
  const headers = Object.entries(m.headers ?? {});
  if (headers.length > 0) parts.push(`when headers are ${headers.map(([k, v]) => `${k}=${stringMatch(v)}`).join('; ')}`);
  // NOTE: istioctl prints two spaces after "Match:" when there is no URI; one here.
  return ['Match:', ...parts].join(' ');
}

function renderMatches(ms: readonly HttpMatch[] | undefined): string {
  return !ms || ms.length === 0 ? 'everything' : ms.map(renderMatch).join(', ');
}

/** Whether one HTTP route sends traffic to `svc` (a subset the pods match), and what to say about it. */
function httpRouteFacts(vs: Config, route: HttpRoute, svcHost: string, domain: string, sub: { matching: string[]; nonMatching: string[] }, dr: Config | undefined, ns: string): { match: boolean; facts: string[] } {
  const facts: string[] = [];
  const mismatch: string[] = [];
  let match = false;
  for (const dest of route.route ?? []) {
    const host = dest.destination?.host ?? '';
    const subset = dest.destination?.subset ?? '';
    if (resolveShortName(host, vs.metadata.namespace, domain) === svcHost) {
      if (subset !== '') {
        if (sub.nonMatching.includes(subset)) {
          mismatch.push(`Route to non-matching subset ${subset} for (${renderMatches(route.match)})`);
          continue;
        }
        if (!sub.matching.includes(subset)) {
          mismatch.push(dr ? `Warning: Route to UNKNOWN subset ${subset}; check DestinationRule ${kname(dr.metadata, ns)}` : `Warning: Route to subset ${subset} but NO DESTINATION RULE defining subsets!`);
          continue;
        }
      }
      match = true;
      if ((dest.weight ?? 0) > 0) facts.push(`Route to host "${host}"${subset ? ` subset "${subset}"` : ''} with weight ${dest.weight}%`);
    } else if (subset === '') facts.push(`Route to host "${host}" with weight ${dest.weight ?? 0}%`);
    else facts.push(`Route to ${host} with invalid config`);
  }
  if (match) {
    const req = [...(route.fault ? [`Fault injection ${JSON.stringify(route.fault)}`] : []), ...(route.match ?? []).map(renderMatch)];
    if (req.length > 0) facts.push(req.join(', '));
  }
  return { match, facts: match ? facts : [...facts, ...mismatch] };
}

/** Whether a VirtualService routes any HTTP or TCP traffic to `svc`. */
export function routesTo(vs: Config, svcHost: string, domain: string): boolean {
  const spec = vs.spec as { http?: HttpRoute[]; tcp?: HttpRoute[]; tls?: HttpRoute[] };
  return [...(spec.http ?? []), ...(spec.tcp ?? []), ...(spec.tls ?? [])].some((r) => (r.route ?? []).some((d) => resolveShortName(d.destination?.host ?? '', vs.metadata.namespace, domain) === svcHost));
}

/** The VirtualService block: the routes that reach the pods' subsets, with their matches and weights. */
export function virtualServiceLines(indent: number, vs: Config, svc: ServiceObject, domain: string, sub: { matching: string[]; nonMatching: string[] }, dr: Config | undefined, ns: string): string[] {
  const out = [`${pad(indent + LEVEL[0])}VirtualService: ${kname(vs.metadata, ns)}`];
  const spec = vs.spec as { http?: HttpRoute[]; tcp?: HttpRoute[]; tls?: HttpRoute[] };
  const svcHost = serviceHost(svc, domain);
  let matches = 0;
  let facts = 0;
  const mismatch: string[] = [];
  for (const r of spec.http ?? []) {
    const f = httpRouteFacts(vs, r, svcHost, domain, sub, dr, ns);
    if (f.match) {
      matches++;
      for (const fact of f.facts) out.push(`${pad(indent + LEVEL[1])}${fact}`);
      facts += f.facts.length;
    } else mismatch.push(...f.facts);
  }
  for (const r of spec.tcp ?? []) {
    if ((r.route ?? []).some((d) => resolveShortName(d.destination?.host ?? '', vs.metadata.namespace, domain) === svcHost)) matches++;
  }
  const http = spec.http?.length ?? 0;
  const tcp = spec.tcp?.length ?? 0;
  if (matches === 0) {
    if (http > 0) out.push(`${pad(indent + LEVEL[1])}WARNING: No destinations match pod subsets (checked ${http} HTTP routes)`);
    if (tcp > 0) out.push(`${pad(indent + LEVEL[1])}WARNING: No destinations match pod subsets (checked ${tcp} TCP routes)`);
    for (const m of mismatch) out.push(`${pad(indent + LEVEL[2])}${m}`);
    return out;
  }
  const possible = http + tcp + (spec.tls?.length ?? 0);
  if (matches < possible) {
    out.push(`${pad(indent + LEVEL[1])}${possible - matches} additional destination(s) that will not reach this pod`);
    if (facts === 0) for (const m of mismatch) out.push(`${pad(indent + LEVEL[2])}${m}`);
    return out;
  }
  if (facts === 0) {
    if (http > 0) out.push(`${pad(indent + LEVEL[1])}${http} HTTP route(s)`);
    if (tcp > 0) out.push(`${pad(indent + LEVEL[1])}${tcp} TCP route(s)`);
  }
  return out;
}

/** Istio's protocol of a Service port from its name or appProtocol (`auto-detect` when neither says). */
export function portProtocolName(p: ServicePortObject): string {
  if (p.protocol === 'UDP') return 'UDP';
  const known: Record<string, string> = { http: 'HTTP', http2: 'HTTP2', https: 'HTTPS', grpc: 'GRPC', 'grpc-web': 'GRPC-Web', tcp: 'TCP', tls: 'TLS', mongo: 'Mongo', redis: 'Redis', mysql: 'MySQL', h2c: 'HTTP2' };
  const app = p.appProtocol?.toLowerCase();
  if (app && known[app]) return known[app];
  const name = (p.name ?? '').toLowerCase();
  if (name === '' && !app) return 'auto-detect';
  const prefix = name.includes('-') && !name.startsWith('grpc-web') ? name.slice(0, name.indexOf('-')) : name;
  return known[prefix] ?? (name.startsWith('grpc-web') ? 'GRPC-Web' : 'auto-detect');
}

/** Whether the port carries HTTP (the request simulator then shows where requests go). */
export function isHttpProtocol(protocol: string): boolean {
  return ['HTTP', 'HTTP2', 'GRPC', 'GRPC-Web'].includes(protocol);
}

/** One destination of a simulated request and its share. */
export interface SimulatedSplit {
  readonly host: string;
  readonly subset: string;
  readonly weight: number;
}

/** What the request simulator said about a request to a Service port. */
export interface SimulatedRoute {
  /** The simulator's outcome (`routed`, `no-route`, ...). */
  readonly outcome: string;
  readonly splits: readonly SimulatedSplit[];
}

/**
 * Simulates `GET http://<svc>.<ns>:<port>/` from a sidecar (no labels) in `fromNamespace` through the
 * configuration meshd would send it. Injected by the command, which owns the offline sidecar build.
 */
export type RouteSimulator = (fromNamespace: string, svc: ServiceObject, port: number) => SimulatedRoute;

/** Reads `outbound|<port>|<subset>|<host>` cluster names. */
export function splitsOf(clusters: readonly { readonly name: string; readonly weight: number }[]): SimulatedSplit[] {
  return clusters.map((c) => {
    const parts = c.name.split('|');
    return parts.length === 4 ? { host: parts[3]!, subset: parts[2]!, weight: c.weight } : { host: c.name, subset: '', weight: c.weight };
  });
}

/** The simulated split line (`Requests to reviews:9080 from default (simulated): 80% subset v1, 20% subset v3`). */
export function simulationLines(indent: number, r: SimulatedRoute, svc: ServiceObject, port: number, from: string, domain: string, podSubsets?: readonly string[]): string[] {
  const name = kname(svc.metadata, from);
  const head = `${pad(indent + LEVEL[1])}Requests to ${name}:${port} from ${from} (simulated GET /):`;
  if (r.outcome !== 'routed' || r.splits.length === 0) return [`${head} not routed (${r.outcome})`];
  const total = r.splits.reduce((n, s) => n + s.weight, 0) || 1;
  const pct = (w: number): string => `${Math.round((w * 1000) / total) / 10}%`;
  const own = serviceHost(svc, domain);
  const parts = r.splits.map((s) => `${pct(s.weight)} ${s.host === own ? (s.subset ? `subset ${s.subset}` : 'all endpoints') : `${s.host}${s.subset ? ` subset ${s.subset}` : ''}`}`);
  const out = [`${head} ${parts.join(', ')}`];
  if (podSubsets) {
    const mine = r.splits.filter((s) => s.host === own && (s.subset === '' || podSubsets.includes(s.subset))).reduce((n, s) => n + s.weight, 0);
    out.push(`${pad(indent + LEVEL[2])}${pct(mine)} of them reach this pod`);
  }
  return out;
}
