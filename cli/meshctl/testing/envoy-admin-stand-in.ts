/**
 * A local HTTP server that stands in for Envoy's admin API (15000) in tests, since Envoy cannot run here:
 * it serves a given config dump, `/clusters` (text and JSON) built from the dump's load assignments,
 * `/stats` (text and JSON), `/stats/prometheus`, and `/logging` with Envoy's level semantics (POST
 * `?level=` sets every logger, `?<logger>=` one; an unknown logger or level is a 404 as in Envoy).
 * `agent` stands in for pilot-agent's status port (15020) and its merged `/stats/prometheus`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const LEVELS = ['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'];

/** A running stand-in. */
export interface EnvoyAdminStandIn {
  readonly adminPort: number;
  readonly agentPort: number;
  /** Current levels by logger. */
  readonly levels: Map<string, string>;
  close(): Promise<void>;
}

function loggingText(levels: Map<string, string>): string {
  return `active loggers:\n${[...levels].map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`;
}

function clustersJson(dump: { configs: Record<string, unknown>[] }): unknown {
  const eds = dump.configs.find((c) => String(c['@type']).endsWith('EndpointsConfigDump')) as { dynamic_endpoint_configs?: { endpoint_config: { cluster_name: string; endpoints?: { lb_endpoints?: { endpoint: { address: unknown } }[] }[] } }[] } | undefined;
  return {
    cluster_statuses: (eds?.dynamic_endpoint_configs ?? []).map((e, i) => ({
      name: e.endpoint_config.cluster_name,
      host_statuses: (e.endpoint_config.endpoints ?? []).flatMap((l) => l.lb_endpoints ?? []).map((h) => ({
        address: h.endpoint.address,
        health_status: { eds_health_status: 'HEALTHY', ...(i === 0 ? { failed_outlier_check: true } : {}) },
      })),
    })),
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Starts the admin and agent stand-ins on 127.0.0.1. */
export async function startEnvoyAdminStandIn(dump: { configs: Record<string, unknown>[] }): Promise<EnvoyAdminStandIn> {
  const levels = new Map([['admin', 'warning'], ['http', 'warning'], ['rbac', 'warning'], ['upstream', 'warning']]);
  const admin = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const send = (status: number, body: string, type = 'text/plain'): void => void res.writeHead(status, { 'content-type': type }).end(body);
    if (url.pathname === '/config_dump') return send(200, JSON.stringify(dump), 'application/json');
    if (url.pathname === '/clusters') {
      if (url.searchParams.get('format') === 'json') return send(200, JSON.stringify(clustersJson(dump)), 'application/json');
      return send(200, 'outbound|9080||reviews.default.svc.cluster.local::10.0.1.1:9080::health_flags::healthy\n');
    }
    if (url.pathname === '/stats') {
      if (url.searchParams.get('format') === 'json') return send(200, JSON.stringify({ stats: [{ name: 'server.live', value: 1 }] }), 'application/json');
      return send(200, 'server.live: 1\ncluster.outbound|9080||reviews.default.svc.cluster.local.upstream_cx_total: 3\n');
    }
    if (url.pathname === '/stats/prometheus') return send(200, '# TYPE envoy_server_live gauge\nenvoy_server_live{} 1\n');
    if (url.pathname === '/logging') {
      if (req.method !== 'POST') return send(405, 'This endpoint requires POST\n');
      for (const [k, v] of url.searchParams) {
        if (!LEVELS.includes(v) || (k !== 'level' && !levels.has(k))) return send(404, `error: invalid logger or level ${k}=${v}\n`);
        const level = v === 'warn' ? 'warning' : v;
        if (k === 'level') for (const name of levels.keys()) levels.set(name, level);
        else levels.set(k, level);
      }
      return send(200, loggingText(levels));
    }
    return send(404, 'invalid path\n');
  });
  const agent = createServer((req, res) => {
    if (req.url === '/stats/prometheus') return void res.end('# merged by the agent stand-in\napp_requests_total 7\nenvoy_server_live{} 1\nmesh_agent_up 1\n');
    res.writeHead(404).end();
  });
  const adminPort = await listen(admin);
  const agentPort = await listen(agent);
  return {
    adminPort,
    agentPort,
    levels,
    close: async () => {
      admin.closeAllConnections();
      agent.closeAllConnections();
      await Promise.all([admin, agent].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
