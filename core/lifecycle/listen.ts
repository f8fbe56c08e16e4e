import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { ListenError, formatListenAddress, parseListenAddress, type ListenAddress } from './listen-address.js';

const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this host',
  EACCES: 'permission denied',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'unknown host',
};

/**
 * Binds `server` to `address` (text like `:15014`, or parsed) and resolves with the bound address
 * (the real port when 0 was asked). Rejects with ListenError `--<flag> <addr>: address already in use`
 * (and likewise for EADDRNOTAVAIL, EACCES and unknown hosts).
 */
export async function listenOn(server: Server, address: string | ListenAddress, flagName: string): Promise<ListenAddress> {
  const parsed = typeof address === 'string' ? parseListenAddress(address, flagName) : address;
  const text = typeof address === 'string' ? address : formatListenAddress(address);
  return await new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      const reason = REASONS[err.code ?? ''] ?? err.message;
      reject(new ListenError(`--${flagName} ${text}: ${reason}`, err.code));
    };
    const onListening = (): void => {
      server.off('error', onError);
      const bound = server.address() as AddressInfo;
      resolve({ host: parsed.host === '' ? '' : bound.address, port: bound.port });
    };
    server.once('error', onError);
    server.once('listening', onListening);
    if (parsed.host === '') server.listen(parsed.port);
    else server.listen(parsed.port, parsed.host);
  });
}

/** An HTTP server bound by `listenHttp`. */
export interface HttpListener {
  readonly server: HttpServer;
  /** The bound address (empty host = every address). */
  readonly address: ListenAddress;
  /** Stops accepting, ends open connections, and resolves when the server has closed. */
  close(): Promise<void>;
}

/**
 * Bounds on an HTTP listener's connections, so that clients that connect and never finish a request (slow
 * headers, silent sockets) or that open thousands of sockets cannot hold the process's file descriptors.
 */
export interface HttpListenerLimits {
  /** Time a client has to send the complete request headers, from its first byte; then 408 and close. */
  readonly headersTimeoutMs: number;
  /** Time a client has to send the whole request (headers and body); at least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number;
  /** Time an idle keep-alive connection is kept between requests. */
  readonly keepAliveTimeoutMs: number;
  /** Time a socket may stay without any traffic in either direction (a reader that stopped reading). */
  readonly idleTimeoutMs: number;
  /** Open connections at most; connections beyond it are closed as soon as they are accepted. */
  readonly maxConnections: number;
  /** How often the headers and request timeouts are checked (Node's connectionsCheckingInterval). */
  readonly checkIntervalMs: number;
}

/**
 * Limits of meshd's and the operator's small HTTP listeners (monitoring, debug, introspection).
 * NOTE: Node's own defaults (60 s headers, 300 s request, no connection cap, timeouts checked every 30 s)
 * let 2,000 slow-header sockets stay open on :8080; no client of these listeners (probes, Prometheus,
 * meshctl) needs more than a few seconds to send a request or more than a few hundred connections.
 */
export const DEFAULT_HTTP_LIMITS: HttpListenerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 120_000,
  maxConnections: 512,
  checkIntervalMs: 1_000,
};

/**
 * Serves `handler` on `address` within `limits` (defaults `DEFAULT_HTTP_LIMITS`); see `listenOn` for errors.
 * Throws RangeError for limits that are not positive or a request timeout below the headers timeout.
 */
export async function listenHttp(
  handler: RequestListener,
  address: string | ListenAddress,
  flagName: string,
  limits: Partial<HttpListenerLimits> = {},
): Promise<HttpListener> {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  for (const [name, value] of Object.entries(l)) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`HTTP listener --${flagName}: ${name} must be a positive integer, got ${value}`);
  }
  if (l.requestTimeoutMs < l.headersTimeoutMs) {
    throw new RangeError(`HTTP listener --${flagName}: requestTimeoutMs (${l.requestTimeoutMs}) must be at least headersTimeoutMs (${l.headersTimeoutMs})`);
  }
  const server = createServer(
    {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
      connectionsCheckingInterval: l.checkIntervalMs,
    },
    handler,
  );
  server.maxConnections = l.maxConnections;
  // NOTE: destroys a socket without traffic for idleTimeoutMs: a client that stopped reading a response
  // otherwise holds its socket (and the response's buffered bytes) forever.
  server.setTimeout(l.idleTimeoutMs, (socket) => socket.destroy());
  const bound = await listenOn(server, address, flagName);
  return { server, address: bound, close: () => closeHttp(server) };
}

function closeHttp(server: HttpServer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) return resolve();
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

/**
 * The path of a request target (`/inject?timeout=10s` -> `/inject`), or why it has none: a target such as `//`
 * or `//[` is no URL path. NOTE: `new URL` throws on those; in a request listener that ended the process.
 */
export function requestPath(target: string | undefined): { readonly path: string } | { readonly error: string } {
  try {
    return { path: new URL(target ?? '/', 'http://localhost').pathname };
  } catch {
    return { error: `the request target ${JSON.stringify(target)} is not a URL path` };
  }
}
