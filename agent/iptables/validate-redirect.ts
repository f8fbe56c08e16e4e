/**
 * `--run-validation`: proves the outbound redirect works by listening on the proxy port and connecting
 * to an arbitrary outbound address on the probe port; the connection must arrive at the listener within
 * the probe timeout (so it was redirected, as Istio's iptables validation does).
 */
import { connect, createServer } from 'node:net';

/** The outbound address the probe dials (any routable address outside the pod would do). */
export const VALIDATION_ADDRESS = '10.255.255.254';

/** Resolves when a connection to `VALIDATION_ADDRESS:probePort` reaches `127.0.0.1:proxyPort`; rejects after `timeoutMs`. */
export function validateRedirect(proxyPort: number, probePort: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => {
      s.destroy();
      finish();
    });
    let done = false;
    const client = { socket: undefined as ReturnType<typeof connect> | undefined };
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client.socket?.destroy();
      server.close();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`no connection to ${VALIDATION_ADDRESS}:${probePort} reached the proxy port ${proxyPort} within ${timeoutMs}ms: outbound traffic is not redirected`)), timeoutMs);
    server.once('error', (e) => finish(new Error(`cannot listen on the proxy port ${proxyPort}: ${e.message}`)));
    server.listen(proxyPort, '127.0.0.1', () => {
      client.socket = connect({ host: VALIDATION_ADDRESS, port: probePort });
      client.socket.on('error', () => undefined);
    });
  });
}
