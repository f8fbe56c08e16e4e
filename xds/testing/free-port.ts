// A free TCP port on 127.0.0.1, for tests, e2e and benchmarks: free when returned, bound by the caller soon after.
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (XdsServer listeners must name their real port, so they cannot bind :0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
