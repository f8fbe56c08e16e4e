import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy to 127.0.0.1:`targetPort` that a test can cut (drop every connection and refuse new
 * ones) and restore, to take one client off the network while the server stays up.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;
  #port = 0;

  private constructor(targetPort: number) {
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.#sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.#sockets.delete(a);
          b.destroy();
        });
        a.pipe(b);
      }
    });
  }

  /** Starts a proxy on 127.0.0.1 (a free port) to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = proxy.#server.address();
    proxy.#port = typeof address === 'object' && address ? address.port : 0;
    return proxy;
  }

  /** The proxy's port on 127.0.0.1. */
  get port(): number {
    return this.#port;
  }

  /** Drops every open connection and refuses new ones until {@link TcpProxy.restore}. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Accepts connections again. */
  restore(): void {
    this.#cut = false;
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
