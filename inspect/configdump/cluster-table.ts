/** proxy-config cluster: istioctl's columns `SERVICE FQDN  PORT  SUBSET  DIRECTION  TYPE  DESTINATION RULE`. */
import { configRef, pick, type Json } from './config-dump.js';
import { formatTable } from './text-table.js';

/** Filters of `proxy-config cluster` (empty / 0 means no filter). */
export interface ClusterFilter {
  readonly fqdn?: string;
  readonly port?: number;
  readonly subset?: string;
  readonly direction?: string;
}

/** A cluster name's parts: `direction|port|subset|fqdn`, or the whole name as the FQDN for others. */
export function parseClusterName(name: string): { direction: string; port: number; subset: string; fqdn: string } {
  const parts = name.split('|');
  if (parts.length === 4 && (parts[0] === 'inbound' || parts[0] === 'outbound')) {
    return { direction: parts[0], port: Number(parts[1]) || 0, subset: parts[2]!, fqdn: parts[3]! };
  }
  return { direction: '', port: 0, subset: '', fqdn: name };
}

/** The clusters that pass the filter, in dump order. */
export function filterClusters(clusters: readonly Json[], f: ClusterFilter): Json[] {
  return clusters.filter((c) => {
    const p = parseClusterName(String(c['name'] ?? ''));
    if (f.fqdn && !p.fqdn.includes(f.fqdn)) return false;
    if (f.port && p.port !== f.port) return false;
    if (f.subset && !p.subset.includes(f.subset)) return false;
    if (f.direction && p.direction !== f.direction) return false;
    return true;
  });
}

function clusterType(c: Json): string {
  const t = c['type'];
  if (typeof t === 'string') return t;
  const custom = pick(c, 'cluster_type', 'name');
  return typeof custom === 'string' ? custom : 'EDS';
}

/** The short table, sorted by FQDN, port, subset and direction as istioctl sorts it. */
export function clusterTable(clusters: readonly Json[]): string {
  const rows = clusters.map((c) => {
    const p = parseClusterName(String(c['name'] ?? ''));
    return { p, row: [p.fqdn, p.port ? String(p.port) : '-', p.subset || '-', p.direction || '-', clusterType(c), configRef(c['metadata'])] };
  });
  rows.sort((a, b) => a.p.fqdn.localeCompare(b.p.fqdn) || a.p.port - b.p.port || a.p.subset.localeCompare(b.p.subset) || a.p.direction.localeCompare(b.p.direction));
  return formatTable(['SERVICE FQDN', 'PORT', 'SUBSET', 'DIRECTION', 'TYPE', 'DESTINATION RULE'], rows.map((r) => r.row));
}
