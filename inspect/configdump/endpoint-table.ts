/**
 * proxy-config endpoint: istioctl's columns `ENDPOINT  STATUS  OUTLIER CHECK  CLUSTER`, from a live proxy's
 * `/clusters?format=json` or from a config dump's load assignments (`-f`).
 */
import { pick, type Json } from './config-dump.js';
import { formatTable } from './text-table.js';

/** One endpoint of one cluster. */
export interface EndpointRow {
  readonly address: string;
  readonly port: number;
  readonly status: string;
  readonly outlierCheck: string;
  readonly cluster: string;
}

/** Filters of `proxy-config endpoint`. */
export interface EndpointFilter {
  readonly address?: string;
  readonly port?: number;
  readonly cluster?: string;
  readonly status?: string;
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

function socket(a: unknown): { address: string; port: number } {
  const s = pick(a, 'socket_address') as Json | undefined;
  if (s) return { address: String(s['address'] ?? ''), port: Number(s['port_value'] ?? 0) };
  const pipe = pick(a, 'pipe', 'path');
  return { address: typeof pipe === 'string' ? `unix://${pipe}` : '', port: 0 };
}

/** Rows from a config dump's load assignments (health from the EDS status; outlier detection is not in a dump). */
export function endpointsFromDump(assignments: readonly Json[]): EndpointRow[] {
  return assignments.flatMap((cla) =>
    arr(cla['endpoints']).flatMap((loc) =>
      arr(loc['lb_endpoints']).map((e) => {
        const s = socket(pick(e, 'endpoint', 'address'));
        const status = typeof e['health_status'] === 'string' && e['health_status'] !== 'UNKNOWN' ? e['health_status'] : 'HEALTHY';
        return { ...s, status, outlierCheck: 'OK', cluster: String(cla['cluster_name'] ?? '') };
      }),
    ),
  );
}

/** Rows from Envoy's `/clusters?format=json` (`cluster_statuses[].host_statuses[]`). */
export function endpointsFromClusters(clusters: Json): EndpointRow[] {
  return arr(clusters['cluster_statuses']).flatMap((c) =>
    arr(c['host_statuses']).map((h) => {
      const hs = (h['health_status'] ?? {}) as Json;
      const eds = typeof hs['eds_health_status'] === 'string' ? hs['eds_health_status'] : undefined;
      const failedActive = hs['failed_active_health_check'] === true;
      const status = eds ?? (failedActive ? 'UNHEALTHY' : 'HEALTHY');
      return { ...socket(h['address']), status, outlierCheck: hs['failed_outlier_check'] === true ? 'FAILED' : 'OK', cluster: String(c['name'] ?? '') };
    }),
  );
}

/** The rows that pass the filter. */
export function filterEndpoints(rows: readonly EndpointRow[], f: EndpointFilter): EndpointRow[] {
  return rows.filter(
    (r) => (!f.address || r.address === f.address) && (!f.port || r.port === f.port) && (!f.cluster || r.cluster === f.cluster) && (!f.status || r.status === f.status),
  );
}

/** The short table, sorted by cluster then endpoint. */
export function endpointTable(rows: readonly EndpointRow[]): string {
  const sorted = [...rows].sort((a, b) => a.cluster.localeCompare(b.cluster) || a.address.localeCompare(b.address) || a.port - b.port);
  return formatTable(['ENDPOINT', 'STATUS', 'OUTLIER CHECK', 'CLUSTER'], sorted.map((r) => [r.port ? `${r.address}:${r.port}` : r.address, r.status, r.outlierCheck, r.cluster]));
}
