/**
 * The agent's status server (ProxyConfig statusPort, 15020): `/healthz/ready` (the proxy is live and has
 * its first config), `/stats/prometheus` (the agent's metrics, the proxy's and, when configured, the
 * app's, merged), `/app-health/...` (rewritten application probes), `POST /quitquitquit` (drain the proxy
 * and exit), `/debug/ndsz` (the name table meshd last sent, as JSON, when the agent captures DNS). The readiness listener on 15021
 * is the proxy's own (the bootstrap routes it here).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { requestPath, type Metrics } from '../../core/index.js';
import { runAppProbe, type AppProber } from './app-probers.js';
import { httpGet } from './http-get.js';
import { proxyNotReadyReason } from './proxy-readiness.js';
import type { NameInfo } from '../dns/name-table.js';

/** Options of the status server. */
export interface StatusServerOptions {
  readonly host: string;
  readonly port: number;
  /** The proxy's admin port; undefined for proxyless gRPC (no proxy to check or scrape). */
  readonly proxyAdminPort?: number;
  readonly metrics: Metrics;
  readonly probers: ReadonlyMap<string, AppProber>;
  /** The app's own metrics (prometheus.io annotations), merged into /stats/prometheus. */
  readonly appMetrics?: { readonly port: number; readonly path: string };
  /** Called by `POST /quitquitquit`. */
  readonly onQuit: () => void;
  /** Extra readiness conditions of the agent (e.g. the first certificate); undefined = ready. */
  readonly agentNotReadyReason?: () => string | undefined;
  /** The name table meshd last sent (NDS) for `/debug/ndsz`; absent when the agent does not capture DNS. */
  readonly nameTable?: () => Readonly<Record<string, NameInfo>>;
  readonly logger: Logger;
}

/** A running status server. */
export class StatusServer {
  readonly #server: Server;
  readonly #o: StatusServerOptions;

  private constructor(o: StatusServerOptions) {
    this.#o = o;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((e: unknown) => {
        o.logger.error({ err: (e as Error).message, path: req.url }, 'status request failed');
        if (!res.headersSent) res.writeHead(500).end(`${(e as Error).message}\n`);
      });
    });
  }

  /** Listens on `host:port` (port 0 picks one). */
  static async start(o: StatusServerOptions): Promise<StatusServer> {
    const s = new StatusServer(o);
    await new Promise<void>((res, rej) => {
      s.#server.once('error', rej);
      s.#server.listen(o.port, o.host, () => res());
    });
    return s;
  }

  /** The bound port. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestPath(req.url);
    if ('error' in target) {
      res.writeHead(400).end(`${target.error}\n`);
      return;
    }
    const { path } = target;
    if (path === '/healthz/ready' && req.method === 'GET') {
      const admin = this.#o.proxyAdminPort;
      const reason = this.#o.agentNotReadyReason?.() ?? (admin === undefined ? undefined : await proxyNotReadyReason(admin));
      if (reason) res.writeHead(503).end(`${reason}\n`);
      else res.writeHead(200).end();
      return;
    }
    if (path === '/stats/prometheus' && req.method === 'GET') {
      const parts = [await this.#o.metrics.text()];
      if (this.#o.proxyAdminPort !== undefined) {
        try {
          parts.push((await httpGet(`http://127.0.0.1:${this.#o.proxyAdminPort}/stats/prometheus`, 2_000)).body);
        } catch (e) {
          this.#o.logger.warn({ err: (e as Error).message }, 'proxy metrics could not be scraped');
        }
      }
      if (this.#o.appMetrics) {
        try {
          parts.push((await httpGet(`http://127.0.0.1:${this.#o.appMetrics.port}${this.#o.appMetrics.path}`, 2_000)).body);
        } catch (e) {
          this.#o.logger.warn({ err: (e as Error).message }, 'app metrics could not be scraped');
        }
      }
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join(''));
      return;
    }
    if (path.startsWith('/app-health/')) {
      const prober = this.#o.probers.get(path);
      if (!prober) {
        res.writeHead(404).end(`no probe configured for ${path}\n`);
        return;
      }
      const r = await runAppProbe(prober);
      res.writeHead(r.status).end(`${r.reason}\n`);
      return;
    }
    if (path === '/quitquitquit') {
      if (req.method !== 'POST') {
        res.writeHead(405).end('use POST\n');
        return;
      }
      res.writeHead(200).end('OK\n');
      this.#o.onQuit();
      return;
    }
    if (path === '/debug/ndsz') {
      if (!this.#o.nameTable) {
        res.writeHead(503).end('the agent does not capture DNS (MESH_META_DNS_CAPTURE is not true): no name table\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify({ table: this.#o.nameTable() }, null, 2)}\n`);
      return;
    }
    res.writeHead(404).end('not found\n');
  }

  /** Stops listening and closes open connections. */
  close(): Promise<void> {
    return new Promise((res) => {
      this.#server.close(() => res());
      this.#server.closeAllConnections();
    });
  }
}
