import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../metrics/index.js';
import type { ListenAddress } from './listen-address.js';
import { listenHttp, requestPath, type HttpListener, type HttpListenerLimits } from './listen.js';

/** A route handler of the monitoring server. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Options of `startMonitoringServer`. */
export interface MonitoringServerOptions {
  /** `:15014`-style address, or parsed. */
  address: string | ListenAddress;
  /** The flag the address came from, for errors (`monitoringAddr`). */
  flagName: string;
  metrics: Metrics;
  /** More routes by exact path, e.g. `{ '/ready': handler }`. */
  extraRoutes?: Readonly<Record<string, RouteHandler>>;
  /** Serves every path no route matches (meshd: its debug interface, as istiod serves `/debug/*` here too); 404 without. */
  fallback?: RouteHandler;
  /** Connection bounds of the listener (defaults `DEFAULT_HTTP_LIMITS`). */
  limits?: Partial<HttpListenerLimits>;
}

/**
 * Serves `GET /metrics` (Prometheus text) and the extra routes on the self-monitoring address. Other paths
 * go to the fallback, or get 404; a failing handler gets 500 with its message.
 */
export function startMonitoringServer(options: MonitoringServerOptions): Promise<HttpListener> {
  const routes: Record<string, RouteHandler> = { ...options.extraRoutes, '/metrics': (req, res) => serveMetrics(options.metrics, req, res) };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = requestPath(req.url);
    if ('error' in target) return sendText(res, 400, `${target.error}\n`);
    const { path } = target;
    const route = Object.hasOwn(routes, path) ? routes[path] : options.fallback;
    if (!route) return sendText(res, 404, `no route for ${path}\n`);
    try {
      await route(req, res);
    } catch (err) {
      if (!res.headersSent) sendText(res, 500, `${(err as Error).message}\n`);
      else res.end();
    }
  };
  return listenHttp((req, res) => void handle(req, res), options.address, options.flagName, options.limits);
}

async function serveMetrics(metrics: Metrics, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'use GET\n');
  const text = await metrics.text();
  res.writeHead(200, { 'content-type': metrics.contentType });
  res.end(req.method === 'HEAD' ? undefined : text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
