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

/** Serves `handler` on `address`; see `listenOn` for errors. */
export async function listenHttp(handler: RequestListener, address: string | ListenAddress, flagName: string): Promise<HttpListener> {
  const server = createServer(handler);
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
