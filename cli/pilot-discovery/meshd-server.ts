/**
 * The listeners of meshd, assembled: self-monitoring HTTP (`/metrics`), the debug HTTP listener
 * (`/ready`, `/version`, plus routes other parts register), the discovery gRPC server with the
 * standard health service, and ControlZ. Every listener is registered on the lifecycle as soon as it
 * is up, so a later failure (a port in use) still closes the earlier ones.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import {
  buildInfo,
  closeGrpcServer,
  formatListenAddress,
  limitHttpWork,
  listenHttp,
  ListenError,
  parseListenAddress,
  requestPath,
  startCtrlz,
  startMonitoringServer,
  type Env,
  type HttpListener,
  type HttpListenerLimits,
  type Lifecycle,
  type ListenAddress,
  type Logging,
  type Metrics,
  type RouteHandler,
  WorkLimiter,
  type WorkLimits,
} from '../../core/index.js';
import { HEALTH_SERVICE_DEFINITION, HealthService } from './health-service.js';

/** A gRPC service to serve on the discovery port (ADS registers itself this way). */
export interface GrpcServiceRegistration {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
}

/** What the assembly needs to know, already parsed from flags and environment. */
export interface MeshdServerOptions {
  readonly grpcAddr: string;
  readonly httpAddr: string;
  readonly monitoringAddr: string;
  readonly ctrlz: { readonly address: string; readonly port: number };
  readonly keepalive: { readonly intervalMs: number; readonly timeoutMs: number; readonly maxServerConnectionAgeMs: number };
  /** MESH_GPRC_MAXRECVMSGSIZE. */
  readonly maxRecvMsgSize: number;
  /** MESH_GPRC_MAXSTREAMS. */
  readonly maxConcurrentStreams: number;
  /** How long a graceful gRPC shutdown may take before open streams are cut. */
  readonly shutdownMs: number;
  /** Extra services on the discovery gRPC server, registered before it binds. */
  readonly grpcServices?: readonly GrpcServiceRegistration[];
  /** Connection bounds of the monitoring, debug and introspection listeners (defaults `DEFAULT_HTTP_LIMITS`). */
  readonly httpLimits?: Partial<HttpListenerLimits>;
  /** Bounds on concurrent `/debug/*` requests (defaults `DEFAULT_DEBUG_WORK_LIMITS`). */
  readonly debugWork?: Partial<WorkLimits>;
}

/** The shared parts the assembly serves from. */
export interface MeshdServerDeps {
  readonly logging: Logging;
  readonly metrics: Metrics;
  readonly env: Env;
  readonly lifecycle: Lifecycle;
}

/** Handles to the running listeners. */
export interface MeshdServer {
  readonly monitoring: HttpListener;
  readonly http: HttpListener;
  /**
   * Routes of the debug HTTP listener; add to it to serve more paths (looked up per request). Paths under
   * `/debug/` run within `debugWork`; `/ready` and `/version` are never limited (probes must not be refused).
   */
  readonly debugRoutes: Map<string, RouteHandler>;
  /** The bound on concurrent `/debug/*` requests (503 with Retry-After beyond its queue). */
  readonly debugWork: WorkLimiter;
  readonly grpc: grpc.Server;
  readonly grpcAddress: ListenAddress;
  readonly health: HealthService;
  readonly ctrlz: HttpListener;
  /**
   * Decides `/ready`: `notReady` returns why meshd is not ready yet (answered with 503), or undefined (200).
   * Until it is called, `/ready` answers 503: start-up is still wiring meshd together.
   */
  setReadiness(notReady: () => string | undefined): void;
}

// NOTE: Node timers overflow past 2^31-1 ms, so "forever" (Go's max duration) means "no limit".
const MAX_TIMER_MS = 2 ** 31 - 1;

/** grpc-js options of meshd's discovery servers (keepalive, limits); the secure server uses the same. */
export function serverOptions(o: MeshdServerOptions): grpc.ServerOptions {
  return {
    'grpc.keepalive_time_ms': Math.min(o.keepalive.intervalMs, MAX_TIMER_MS),
    'grpc.keepalive_timeout_ms': Math.min(o.keepalive.timeoutMs, MAX_TIMER_MS),
    ...(o.keepalive.maxServerConnectionAgeMs < MAX_TIMER_MS ? { 'grpc.max_connection_age_ms': o.keepalive.maxServerConnectionAgeMs } : {}),
    'grpc.max_receive_message_length': o.maxRecvMsgSize,
    'grpc.max_concurrent_streams': o.maxConcurrentStreams,
    // NOTE: channelz bookkeeping costs CPU on every call (measured by bench:ca: ~1.9 -> ~1.4 ms of server
    // CPU per certificate without it); meshd serves no channelz service.
    'grpc.enable_channelz': 0,
  };
}

/** Binds a grpc-js server; a failure is a ListenError naming the flag and the address. */
export function bindGrpc(server: grpc.Server, address: string, flagName: string): Promise<ListenAddress> {
  const parsed = parseListenAddress(address, flagName);
  const target = parsed.host === '' ? `[::]:${parsed.port}` : formatListenAddress(parsed);
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err) {
        const reason = /EADDRINUSE/.test(err.message) ? 'address already in use' : err.message;
        reject(new ListenError(`--${flagName} ${address}: ${reason}`, /EADDRINUSE/.test(err.message) ? 'EADDRINUSE' : undefined));
      } else {
        resolve({ host: parsed.host, port });
      }
    });
  });
}

/**
 * The share of the shutdown budget a gRPC server gets to finish gracefully. meshd closes two gRPC
 * servers one after the other within `--shutdownDuration`, so each must cut its calls well before the
 * whole budget is spent.
 */
const GRPC_GRACE_SHARE = 0.4;

/** Shuts a grpc-js server down within `budgetMs`: gracefully at first, then cutting remaining calls. */
export function shutdownGrpc(server: grpc.Server, budgetMs: number): Promise<void> {
  return closeGrpcServer(server, budgetMs * GRPC_GRACE_SHARE);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

/** Starts every meshd listener; rejects (after registering what did start) when one cannot bind. */
export async function startMeshdServer(o: MeshdServerOptions, deps: MeshdServerDeps): Promise<MeshdServer> {
  const { lifecycle, metrics, logging, env } = deps;

  let notReady = (): string | undefined => 'meshd is starting';
  const debugRoutes = new Map<string, RouteHandler>([
    [
      '/ready',
      (_req, res) => {
        const reason = notReady();
        void (reason === undefined
          ? res.writeHead(200, { 'content-type': 'text/plain' }).end('ready\n')
          : res.writeHead(503, { 'content-type': 'text/plain' }).end(`not ready: ${reason}\n`));
      },
    ],
    ['/version', (_req, res) => sendJson(res, 200, buildInfo())],
  ]);
  const debugWork = new WorkLimiter(o.debugWork);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = requestPath(req.url);
    if ('error' in target) return sendJson(res, 400, { error: target.error });
    const { path } = target;
    const route = debugRoutes.get(path);
    if (!route) return sendJson(res, 404, { error: `no route for ${req.url ?? '/'}` });
    try {
      await (path.startsWith('/debug/') ? limitHttpWork(debugWork, route)(req, res) : route(req, res));
    } catch (e) {
      if (!res.headersSent) sendJson(res, 500, { error: (e as Error).message });
      else res.end();
    }
  };
  // NOTE: istiod serves its debug interface on the monitoring port too (`pilot-discovery request GET /debug/syncz`
  // talks to 15014), with /version and /ready: the same routes, the same work limit as on --httpAddr.
  const monitoring = await startMonitoringServer({ address: o.monitoringAddr, flagName: 'monitoringAddr', metrics, limits: o.httpLimits, fallback: handle });
  lifecycle.add('monitoring', () => monitoring.close());
  const http = await listenHttp((req, res) => void handle(req, res), o.httpAddr, 'httpAddr', o.httpLimits);
  lifecycle.add('http', () => http.close());

  const health = new HealthService();
  const server = new grpc.Server(serverOptions(o));
  server.addService(HEALTH_SERVICE_DEFINITION, health.handlers());
  for (const s of o.grpcServices ?? []) server.addService(s.definition, s.implementation);
  lifecycle.add('grpc', () => {
    health.shutdown();
    return shutdownGrpc(server, o.shutdownMs);
  });
  const grpcAddress = await bindGrpc(server, o.grpcAddr, 'grpcAddr');

  const ctrlz = await startCtrlz({ address: o.ctrlz.address, port: o.ctrlz.port, logging, metrics, program: 'pilot-discovery', env, limits: o.httpLimits });
  lifecycle.add('ctrlz', () => ctrlz.close());

  return { monitoring, http, debugRoutes, debugWork, grpc: server, grpcAddress, health, ctrlz, setReadiness: (check) => void (notReady = check) };
}
