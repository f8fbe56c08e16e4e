/**
 * `meshctl experimental simulate` (an extra command, not in the spec): from mesh.io files alone, where a
 * request from one sidecar would go and why. The files go through meshd's parser and model, the sidecar's
 * configuration through meshd's sidecar generators, and the request through the request simulator
 * (Envoy's matching: listener -> filter chain -> route configuration -> virtual host -> route -> clusters
 * -> endpoints), each step with the mesh.io objects that shaped it.
 */
import { stringify } from 'yaml';
import type { Config } from '../../core/index.js';
import { simulateRequest, type SimulatedRequest, type SimulationResult } from '../../xds/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { offlineMeshFromFlags, type OfflineMesh } from './offline-sidecar.js';

const PROTOCOLS = ['http', 'tcp', 'tls'] as const;
type Protocol = (typeof PROTOCOLS)[number];

/** A request as the user wrote it, before the destination is resolved against the files. */
export interface RequestSpec {
  method: string;
  protocol: Protocol;
  host: string;
  /** The port from the URL or `--port`; undefined: the scheme's default. */
  port?: number;
  path: string;
  headers: Record<string, string>;
  /** Whether the URL named the port (then the Host header carries it, as curl sends it). */
  explicitPort: boolean;
  /** curl's `--unix-socket <path>`: the app connects to a Sidecar egress listener on that socket. */
  unixSocket?: string;
}

/** Splits a command-line-like string into words, honouring single and double quotes. */
export function shellWords(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let any = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (cur !== '' || any) out.push(cur);
      cur = '';
      any = false;
    } else cur += ch;
  }
  if (quote) throw new CliError(`--request: unterminated ${quote} quote in "${text}"`);
  if (cur !== '' || any) out.push(cur);
  return out;
}

function header(text: string, where: string): [string, string] {
  const i = text.indexOf(':');
  if (i <= 0) throw new CliError(`${where}: header "${text}" is not <name>: <value>`);
  return [text.slice(0, i).trim(), text.slice(i + 1).trim()];
}

/** Parses `[METHOD] <scheme>://<host>[:<port>][/path][?query] [-H 'name: value']... [--unix-socket <path>]` (schemes http, https, tcp, tls). */
export function parseRequest(text: string): RequestSpec {
  const words = shellWords(text);
  const spec: RequestSpec = { method: 'GET', protocol: 'http', host: '', path: '/', headers: {}, explicitPort: false };
  let url: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-H' || w === '--header') {
      const v = words[++i];
      if (v === undefined) throw new CliError(`--request: ${w} needs a value`);
      const [k, val] = header(v, '--request');
      spec.headers[k] = val;
    } else if (w === '--unix-socket') {
      const v = words[++i];
      if (v === undefined || v === '') throw new CliError(`--request: ${w} needs a socket path`);
      spec.unixSocket = v.replace(/^unix:\/\//, '');
    } else if (w === '-X' || w === '--method') {
      spec.method = words[++i] ?? '';
    } else if (/^[A-Z]+$/.test(w) && url === undefined) spec.method = w;
    else if (url === undefined) url = w;
    else throw new CliError(`--request: unexpected "${w}" (syntax: [METHOD] URL [-H 'name: value']...)`);
  }
  if (url === undefined) throw new CliError(`--request "${text}": no URL (e.g. "GET http://reviews:9080/ -H 'end-user: jason'")`);
  const m = /^(?:([a-z]+):\/\/)?([^/:?]+|\[[^\]]+\])(?::(\d+))?([/?].*)?$/.exec(url);
  if (!m) throw new CliError(`--request: cannot read URL "${url}"`);
  const scheme = m[1] ?? 'http';
  if (scheme === 'http') spec.protocol = 'http';
  else if (scheme === 'tcp') spec.protocol = 'tcp';
  else if (scheme === 'tls' || scheme === 'https') spec.protocol = 'tls';
  else throw new CliError(`--request: unknown scheme "${scheme}" (use http, https, tls or tcp)`);
  spec.host = m[2]!;
  if (m[3] !== undefined) {
    spec.port = Number(m[3]);
    spec.explicitPort = true;
    if (spec.port < 1 || spec.port > 65535) throw new CliError(`--request: port ${m[3]} is out of range`);
  } else spec.port = scheme === 'http' ? 80 : scheme === 'https' ? 443 : undefined;
  if (m[4]) spec.path = m[4].startsWith('/') ? m[4] : `/${m[4]}`;
  return spec;
}

const isIp = (h: string): boolean => /^\d+\.\d+\.\d+\.\d+$/.test(h) || h.includes(':');

/**
 * The VIP a name resolves to, as the mesh's DNS (Kubernetes search domains and ServiceEntry addresses)
 * would answer the proxy's app: `reviews` in the proxy's namespace, `reviews.ns`, `reviews.ns.svc`, the
 * FQDN, or any ServiceEntry host. Undefined when no ServiceEntry with an address has the name.
 */
export function resolveVip(host: string, proxyNamespace: string, domain: string, configs: readonly Config[]): { fqdn?: string; address?: string } {
  if (isIp(host)) return { address: host };
  const dots = host.split('.').length - 1;
  const candidates = [host];
  if (dots === 0) candidates.unshift(`${host}.${proxyNamespace}.svc.${domain}`);
  if (dots === 1) candidates.unshift(`${host}.svc.${domain}`);
  if (dots === 2 && host.endsWith('.svc')) candidates.unshift(`${host}.${domain}`);
  for (const name of candidates) {
    for (const c of configs) {
      if (c.kind !== 'ServiceEntry') continue;
      const s = (c.spec ?? {}) as { hosts?: string[]; addresses?: string[] };
      if (!(s.hosts ?? []).includes(name)) continue;
      const address = (s.addresses ?? []).find((a) => !a.includes('/'));
      return { fqdn: name, ...(address ? { address } : {}) };
    }
  }
  return {};
}

function sourcesOf(r: Record<string, unknown> | undefined): string[] {
  const mesh = ((r?.['metadata'] as { filterMetadata?: Record<string, unknown> } | undefined)?.filterMetadata?.['mesh'] ?? {}) as {
    fields?: { sources?: { listValue?: { values?: { stringValue?: string }[] } } };
  };
  return (mesh.fields?.sources?.listValue?.values ?? []).map((v) => String(v.stringValue));
}

/** The simulation, plus the request as resolved and the objects behind each chosen cluster. */
export interface SimulateReport {
  readonly proxy: { readonly id: string; readonly namespace: string; readonly labels: Readonly<Record<string, string>> };
  readonly request: SimulatedRequest & { readonly resolved: string };
  readonly result: SimulationResult;
  /** Cluster name -> the mesh.io objects (ServiceEntry, DestinationRule, ...) that shaped it. */
  readonly clusterSources: Readonly<Record<string, readonly string[]>>;
}

/** Simulates `spec` from the offline mesh (exported for tests and scripting). */
export function simulate(mesh: OfflineMesh, spec: RequestSpec, over: { address?: string; sni?: string; inbound?: boolean; plaintext?: boolean }): SimulateReport {
  // NOTE: a request to a router (gateway) arrives at the gateway itself, on the port its service maps the URL's port to.
  const router = mesh.proxy.type === 'router';
  const vip = over.address
    ? { address: over.address }
    : over.inbound || router
      ? { address: mesh.proxy.ipAddresses[0]! }
      : resolveVip(spec.host, mesh.proxy.namespace, mesh.domain, mesh.configs);
  if (spec.port === undefined) throw new CliError(`--request: ${spec.protocol}:// needs a port`);
  const port = router ? (mesh.listenPorts.get(spec.port) ?? spec.port) : spec.port;
  const req: SimulatedRequest = {
    direction: over.inbound ? 'inbound' : 'outbound',
    protocol: spec.protocol,
    port,
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    host: spec.explicitPort ? `${spec.host}:${port}` : spec.host,
    ...(spec.unixSocket !== undefined ? { unixSocket: spec.unixSocket } : vip.address ? { address: vip.address } : {}),
    ...(spec.protocol === 'tls' ? { tls: true, sni: over.sni || spec.host } : over.sni ? { sni: over.sni } : {}),
    // NOTE: a peer sidecar sends mesh mTLS, offering mesh ALPN (`mesh-http/1.1` first for HTTP, as Istio's ALPN
    // override); --plaintext simulates a client without a sidecar.
    ...(over.inbound && !over.plaintext ? { tls: true, alpn: spec.protocol === 'http' ? ['mesh-http/1.1', 'mesh'] : ['mesh-peer-exchange', 'mesh'] } : {}),
  };
  const resolved = spec.unixSocket !== undefined
    ? `${spec.host} over the unix socket ${spec.unixSocket}`
    : router
    ? `${spec.host}:${spec.port} -> the gateway ${vip.address ?? ''}:${port}`
    : vip.address
    ? `${vip.fqdn ?? spec.host} -> ${vip.address}`
    : `${spec.host}: no ServiceEntry address in the files (the app's DNS would pick the IP; simulated without a destination IP)`;
  const result = simulateRequest(mesh.config, req);
  const clusterSources: Record<string, readonly string[]> = {};
  for (const c of result.clusters ?? []) clusterSources[c.name] = sourcesOf(mesh.config.clusters.find((x) => x['name'] === c.name));
  return { proxy: { id: mesh.proxy.id, namespace: mesh.proxy.namespace, labels: mesh.proxy.labels }, request: { ...req, resolved }, result, clusterSources };
}

/** What a routed outcome means when it ends in one of the catch-all clusters. */
function verdict(res: SimulationResult): string {
  const names = (res.clusters ?? []).map((c) => c.name);
  if (names.length === 1 && names[0] === 'BlackHoleCluster') return ' (dropped: BlackHoleCluster, outboundTrafficPolicy REGISTRY_ONLY or no route)';
  if (names.length === 1 && names[0]!.startsWith('PassthroughCluster')) return ' (passed through to the original destination: outboundTrafficPolicy ALLOW_ANY)';
  if (names.length === 1 && names[0]!.startsWith('InboundPassthroughCluster')) return ' (passed through to the app: no inbound port matched)';
  return '';
}

/** The human-readable walk. */
export function formatShort(r: SimulateReport): string {
  const q = r.request;
  const lines: string[] = [];
  const row = (k: string, v: string | undefined): void => {
    if (v !== undefined) lines.push(`${`${k}:`.padEnd(14)}${v}`);
  };
  row('Proxy', `${r.proxy.id} (${Object.entries(r.proxy.labels).map(([k, v]) => `${k}=${v}`).join(',') || 'no labels'})`);
  const hdrs = Object.entries(q.headers ?? {}).map(([k, v]) => ` -H '${k}: ${v}'`).join('');
  row('Request', `${q.direction} ${q.protocol === 'http' ? `${q.method} http://${q.host}${q.path}${hdrs}` : `${q.protocol} port ${q.port}${q.sni ? ` sni ${q.sni}` : ''}`}`);
  row('Destination', q.resolved);
  const res = r.result;
  row('Listener', res.listener);
  row('Filter chain', res.filterChain === '' ? '(unnamed)' : res.filterChain);
  row('Route config', res.routeConfig);
  row('Virtual host', res.virtualHost);
  row('Route', res.route === '' ? '(unnamed)' : res.route);
  row('Outcome', `${res.outcome}${verdict(res)}`);
  if (res.response) row('Response', JSON.stringify(res.response));
  for (const c of res.clusters ?? []) {
    row('Cluster', `${c.name} weight ${c.weight}`);
    row('  endpoints', c.endpoints.length > 0 ? c.endpoints.join(', ') : '(none)');
    const s = r.clusterSources[c.name] ?? [];
    if (s.length > 0) row('  shaped by', s.join(', '));
  }
  row('Shaped by', res.sources.length > 0 ? res.sources.join(', ') : '(defaults only: no mesh.io object changed the listener or route)');
  return `${lines.join('\n')}\n`;
}

function merge(ctx: RunContext): RequestSpec {
  const f = ctx.flags;
  const text = f.string('request') || ctx.args.join(' ');
  if (text === '') throw new CliError('no request: give --request "GET http://reviews:9080/path -H \'k: v\'" (or the URL as an argument)');
  const spec = parseRequest(text);
  if (f.changed('method')) spec.method = f.string('method');
  if (f.changed('port')) {
    spec.port = f.number('port');
    spec.explicitPort = true;
  }
  if (f.changed('protocol')) {
    const p = f.string('protocol');
    if (!(PROTOCOLS as readonly string[]).includes(p)) throw new CliError(`--protocol: unknown protocol "${p}" (use http, tcp or tls)`);
    spec.protocol = p as Protocol;
  }
  for (const h of f.strings('header')) {
    const [k, v] = header(h, '--header');
    spec.headers[k] = v;
  }
  return spec;
}

/** Runs `meshctl simulate` (the tree is in simulate-command.ts). */
export async function runSimulate(ctx: RunContext): Promise<number> {
  const output = ctx.flags.string('output');
  if (!['short', 'json', 'yaml'].includes(output)) throw new CliError(`--output: unknown format "${output}" (use short, json or yaml)`);
  const spec = merge(ctx);
  const mesh = await offlineMeshFromFlags(ctx);
  const report = simulate(mesh, spec, { address: ctx.flags.string('address'), sni: ctx.flags.string('sni'), inbound: ctx.flags.bool('inbound'), plaintext: ctx.flags.bool('plaintext') });
  for (const w of mesh.warnings) ctx.io.stderr.write(`warning: ${w}\n`);
  if (output === 'json') ctx.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (output === 'yaml') ctx.io.stdout.write(stringify(report));
  else ctx.io.stdout.write(formatShort(report));
  return 0;
}
