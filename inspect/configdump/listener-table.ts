/** proxy-config listener: istioctl's columns `ADDRESSES  PORT  MATCH  DESTINATION` (verbose) or `ADDRESSES  PORT  TYPE`. */
import { pick, type Json } from './config-dump.js';
import { formatTable } from './text-table.js';

/** Filters of `proxy-config listener`. */
export interface ListenerFilter {
  readonly address?: string;
  readonly port?: number;
  /** HTTP, TCP or HTTP+TCP (case-insensitive). */
  readonly type?: string;
}

const HCM = 'envoy.filters.network.http_connection_manager';
const TCP = 'envoy.filters.network.tcp_proxy';

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

/** The listener's addresses (the main and additional ones) and port. */
export function listenerAddress(l: Json): { addresses: string[]; port: number } {
  const main = pick(l, 'address', 'socket_address') as Json | undefined;
  const extra = arr(l['additional_addresses']).map((a) => pick(a, 'address', 'socket_address') as Json | undefined);
  const addresses = [main, ...extra].flatMap((s) => (s && typeof s['address'] === 'string' ? [s['address']] : []));
  return { addresses, port: Number(main?.['port_value'] ?? 0) };
}

/** HTTP, TCP or HTTP+TCP from the filter chains' network filters. */
export function listenerType(l: Json): string {
  const names = new Set(arr(l['filter_chains']).flatMap((fc) => arr(fc['filters']).map((f) => String(f['name']))));
  const http = names.has(HCM);
  const tcp = names.has(TCP);
  return http && tcp ? 'HTTP+TCP' : http ? 'HTTP' : tcp ? 'TCP' : 'UNKNOWN';
}

/** The listeners that pass the filter. */
export function filterListeners(listeners: readonly Json[], f: ListenerFilter): Json[] {
  return listeners.filter((l) => {
    const a = listenerAddress(l);
    if (f.address && !a.addresses.includes(f.address)) return false;
    if (f.port && a.port !== f.port) return false;
    if (f.type && listenerType(l).toLowerCase() !== f.type.toLowerCase()) return false;
    return true;
  });
}

/** istioctl's description of a filter chain match: `Addr:`, `SNI:`, `Trans:`, `App:` parts, or `ALL`. */
export function describeChainMatch(m: Json | undefined): string {
  if (!m) return 'ALL';
  const parts: string[] = [];
  const ranges = arr(m['prefix_ranges']).map((r) => `${String(r['address_prefix'])}/${String(r['prefix_len'] ?? 32)}`);
  if (ranges.length > 0) parts.push(`Addr: ${ranges.join(',')}`);
  if (m['destination_port'] !== undefined) parts.push(`DstPort: ${String(m['destination_port'])}`);
  const sni = arr(m['server_names']) as unknown as string[];
  if (sni.length > 0) parts.push(`SNI: ${sni.join(',')}`);
  if (typeof m['transport_protocol'] === 'string') parts.push(`Trans: ${m['transport_protocol']}`);
  const alpn = arr(m['application_protocols']) as unknown as string[];
  if (alpn.length > 0) parts.push(`App: ${alpn.join(',')}`);
  return parts.length === 0 ? 'ALL' : parts.join('; ');
}

/** Where a filter chain sends traffic: `Route: <name>`, `Inline Route: ...`, `Cluster: <name>` or `Non-HTTP/Non-TCP`. */
export function describeDestination(fc: Json): string {
  for (const f of arr(fc['filters'])) {
    if (f['name'] === HCM) {
      const rds = pick(f, 'typed_config', 'rds', 'route_config_name');
      if (typeof rds === 'string') return `Route: ${rds}`;
      const vhosts = arr(pick(f, 'typed_config', 'route_config', 'virtual_hosts'));
      const first = arr(vhosts[0]?.['routes'])[0];
      const cluster = pick(first, 'route', 'cluster');
      return typeof cluster === 'string' ? `Inline Route: ${cluster}` : 'Inline Route';
    }
    if (f['name'] === TCP) {
      const cluster = pick(f, 'typed_config', 'cluster');
      if (typeof cluster === 'string') return `Cluster: ${cluster}`;
      const weighted = arr(pick(f, 'typed_config', 'weighted_clusters', 'clusters')).map((c) => String(c['name']));
      return `Cluster: ${weighted.join(', ')}`;
    }
  }
  return 'Non-HTTP/Non-TCP';
}

/** The verbose table (a row per filter chain, and the default chain) or the short one (a row per listener). */
export function listenerTable(listeners: readonly Json[], verbose: boolean): string {
  const sorted = [...listeners].sort((a, b) => listenerAddress(a).port - listenerAddress(b).port || String(a['name']).localeCompare(String(b['name'])));
  if (!verbose) {
    return formatTable(['ADDRESSES', 'PORT', 'TYPE'], sorted.map((l) => [listenerAddress(l).addresses.join(','), String(listenerAddress(l).port), listenerType(l)]));
  }
  const rows: string[][] = [];
  for (const l of sorted) {
    const a = listenerAddress(l);
    const chains = arr(l['filter_chains']);
    const def = l['default_filter_chain'] as Json | undefined;
    for (const fc of chains) rows.push([a.addresses.join(','), String(a.port), describeChainMatch(fc['filter_chain_match'] as Json | undefined), describeDestination(fc)]);
    if (def) rows.push([a.addresses.join(','), String(a.port), 'ALL', describeDestination(def)]);
    if (chains.length === 0 && !def) rows.push([a.addresses.join(','), String(a.port), 'ALL', 'Non-HTTP/Non-TCP']);
  }
  return formatTable(['ADDRESSES', 'PORT', 'MATCH', 'DESTINATION'], rows);
}
