/**
 * The debug HTTP interface of meshd (`--httpAddr`, when ENABLE_DEBUG_ON_HTTP): `/debug/syncz`,
 * `/debug/configz`, `/debug/adsz`, `/debug/connections`, `/debug/registryz`, `/debug/endpointz`,
 * `/debug/push_status` and `/debug/config_dump?proxyID=...` (Envoy ConfigDump JSON). Returned as a
 * route table that the CLI assembly mounts next to `/ready` and `/version` (which bounds how many run at
 * once). Node metadata and NACK details are shown with credentials redacted (`redact.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nextTurn, proxyRequestPush, pushPathSlicer, type PushSnapshot } from '../../core/index.js';
import type { ConnectionInfo } from '../server/connection.js';
import { TYPE_URL, type ResourceGenerator } from '../server/contracts.js';
import { toJson } from '../protos/json.js';
import type { PushStatus } from './push-status.js';
import { redactCredentials } from './redact.js';

/** A route handler (the shape of core's RouteHandler). */
export type DebugHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** What the debug routes read: the generator contract and the newest published snapshot, nothing concrete. */
export interface DebugDeps<P = unknown> {
  /** The newest published snapshot (what a proxy connecting now would be served from). */
  readonly snapshot: () => PushSnapshot;
  readonly generator: ResourceGenerator<P>;
  /** Entries in the xDS cache. */
  readonly cacheSize: () => number;
  readonly connections: () => readonly ConnectionInfo<P>[];
  readonly pushStatus: PushStatus;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

const DUMP_TYPES = [
  { typeUrl: TYPE_URL.listener, dump: 'envoy.admin.v3.ListenersConfigDump', message: 'envoy.config.listener.v3.Listener', wrap: (j: unknown) => ({ active_state: { listener: j } }), field: 'dynamic_listeners' },
  { typeUrl: TYPE_URL.route, dump: 'envoy.admin.v3.RoutesConfigDump', message: 'envoy.config.route.v3.RouteConfiguration', wrap: (j: unknown) => ({ route_config: j }), field: 'dynamic_route_configs' },
  { typeUrl: TYPE_URL.cluster, dump: 'envoy.admin.v3.ClustersConfigDump', message: 'envoy.config.cluster.v3.Cluster', wrap: (j: unknown) => ({ cluster: j }), field: 'dynamic_active_clusters' },
  { typeUrl: TYPE_URL.endpoint, dump: 'envoy.admin.v3.EndpointsConfigDump', message: 'envoy.config.endpoint.v3.ClusterLoadAssignment', wrap: (j: unknown) => ({ endpoint_config: j }), field: 'dynamic_endpoint_configs' },
] as const;

/**
 * Envoy's ConfigDump of what meshd would send a connected proxy for everything it watches. Converting
 * thousands of resources to JSON yields the event loop in turns with pushes (the push path's fair TurnSlicer).
 */
export async function configDump<P>(deps: DebugDeps<P>, conn: ConnectionInfo<P>): Promise<unknown> {
  const configs: unknown[] = [];
  const push = proxyRequestPush(deps.snapshot());
  for (const t of DUMP_TYPES) {
    const watch = conn.types.find((w) => w.typeUrl === t.typeUrl);
    const entries: unknown[] = [];
    if (watch) {
      const res = await deps.generator.generate(conn.proxy, { typeUrl: t.typeUrl, names: new Set(watch.names), wildcard: watch.wildcard }, push);
      for (const r of res?.resources ?? []) {
        entries.push({ version_info: watch.versionSent, ...t.wrap(toJson(t.message, r.body)) });
        // NOTE: the push path's slicer takes turns fairly between chains: the dump and pushes share the turns.
        if (pushPathSlicer.overBudget()) await nextTurn();
      }
    }
    configs.push({ '@type': `type.googleapis.com/${t.dump}`, [t.field]: entries });
  }
  return { configs };
}

/** The debug routes, keyed by path. */
export function debugRoutes<P>(deps: DebugDeps<P>): Map<string, DebugHandler> {
  const routes = new Map<string, DebugHandler>();
  routes.set('/debug/configz', (_req, res) => {
    const snap = deps.snapshot().pushContext.configs;
    sendJson(res, 200, [...snap.values()]);
  });
  routes.set('/debug/registryz', (_req, res) => sendJson(res, 200, deps.snapshot().pushContext.services));
  routes.set('/debug/endpointz', (_req, res) => {
    const out: Record<string, unknown> = {};
    const snap = deps.snapshot();
    for (const s of snap.pushContext.services) out[s.hostname] = snap.endpoints.instances(s.hostname);
    sendJson(res, 200, out);
  });
  routes.set('/debug/connections', (_req, res) =>
    sendJson(
      res,
      200,
      deps.connections().map((c) => ({ id: c.id, node: c.nodeId, peer: c.peer, connectedAt: c.connectedAt, protocol: c.protocol })),
    ),
  );
  routes.set('/debug/adsz', (_req, res) =>
    sendJson(
      res,
      200,
      deps.connections().map((c) => ({
        id: c.id,
        node: { ...c.node, metadata: redactCredentials(c.node.metadata) },
        peer: c.peer,
        connectedAt: c.connectedAt,
        watches: c.types.map((t) => (t.lastNack ? { ...t, lastNack: redactCredentials(t.lastNack) } : t)),
      })),
    ),
  );
  routes.set('/debug/syncz', (_req, res) =>
    sendJson(
      res,
      200,
      deps.connections().map((c) => ({
        proxy: c.nodeId,
        connection: c.id,
        // NOTE: the proxy's version as it says in its node metadata (Istio's syncz istio_version); meshctl version reads it.
        mesh_version: typeof c.node.metadata['MESH_VERSION'] === 'string' ? c.node.metadata['MESH_VERSION'] : '',
        types: c.types.map((t) => ({
          type: t.typeUrl,
          sent: t.versionSent,
          acked: t.versionAcked,
          status: t.lastNack && t.nonceAcked !== t.nonceSent ? 'NACKED' : t.nonceSent === '' ? 'NOT SENT' : t.nonceAcked === t.nonceSent ? 'SYNCED' : 'STALE',
          ...(t.lastNack ? { lastNack: redactCredentials(t.lastNack) } : {}),
        })),
      })),
    ),
  );
  routes.set('/debug/push_status', (_req, res) => {
    const snap = deps.snapshot();
    const ctx = snap.pushContext;
    sendJson(res, 200, {
      pushContextVersion: ctx.version,
      snapshot: snap.token,
      services: ctx.services.length,
      virtualServices: ctx.virtualServiceCount,
      cacheSize: deps.cacheSize(),
      pushes: deps.pushStatus.total,
      recent: deps.pushStatus.recent(),
    });
  });
  routes.set('/debug/config_dump', async (req, res) => {
    const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('proxyID');
    if (!id) return sendJson(res, 400, { error: 'proxyID is required: /debug/config_dump?proxyID=<node id or connection id>' });
    const conn = deps.connections().find((c) => c.nodeId === id || c.id === id || c.node.podName + '.' + c.node.namespace === id);
    if (!conn) return sendJson(res, 404, { error: `no connected proxy ${id} (see /debug/connections)` });
    sendJson(res, 200, await configDump(deps, conn));
  });
  return routes;
}
