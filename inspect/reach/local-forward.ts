/**
 * A local port forward: a TCP listener whose every connection is piped to a port of a pod through a
 * {@link PodDialer} (what `kubectl port-forward` and istioctl's dashboards do).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { PodDialer } from './pod-dialer.js';
import type { PodRef } from './pod-target.js';
import { ReachError } from './reach-error.js';

/** A running forward. */
export interface LocalForward {
  /** The local port (the one asked for, or the one the system picked for 0). */
  readonly port: number;
  /** The addresses listened on. */
  readonly addresses: readonly string[];
  /** Errors of dials made for connections (each closes its connection); for the caller to report. */
  onDialError(listener: (err: Error) => void): void;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : port);
    });
  });
}

/**
 * Listens on `address` (an IP, or `localhost` for both 127.0.0.1 and ::1, failing only when neither binds)
 * and `port` (0 picks one), and pipes each connection to `podPort` of `pod`.
 * @throws ReachError when no address can be bound
 */
export async function forwardLocalPort(dial: PodDialer, pod: PodRef, podPort: number, options: { readonly address: string; readonly port: number }): Promise<LocalForward> {
  const sockets = new Set<Socket>();
  const errorListeners: ((err: Error) => void)[] = [];
  const onConnection = (local: Socket): void => {
    sockets.add(local);
    local.once('close', () => sockets.delete(local));
    local.pause();
    dial(pod, podPort).then(
      (remote) => {
        // NOTE: half-closes pass through (the servers allow half-open sockets and pipe ends the other side);
        // a stream that goes away without ending, or fails, takes the other one with it.
        local.once('close', () => remote.destroy());
        remote.once('close', () => local.end());
        remote.on('error', () => local.destroy());
        local.on('error', () => remote.destroy());
        local.pipe(remote).pipe(local);
        local.resume();
      },
      (err: Error) => {
        for (const l of errorListeners) l(err);
        local.destroy();
      },
    );
  };
  const hosts = options.address === 'localhost' ? ['127.0.0.1', '::1'] : [options.address];
  const servers: Server[] = [];
  const bound: string[] = [];
  const failures: string[] = [];
  let port = options.port;
  for (const host of hosts) {
    const server = createServer({ allowHalfOpen: true }, onConnection);
    try {
      port = await listen(server, host, port);
      servers.push(server);
      bound.push(host);
    } catch (e) {
      failures.push(`${host}: ${(e as Error).message}`);
    }
  }
  if (servers.length === 0) throw new ReachError(`cannot listen on ${options.address} port ${options.port}: ${failures.join('; ')}`);
  return {
    port,
    addresses: bound,
    onDialError: (l) => errorListeners.push(l),
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
