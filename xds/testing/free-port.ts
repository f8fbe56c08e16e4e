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

/**
 * `n` distinct free ports on 127.0.0.1: every listener stays open until all are bound, so the kernel cannot
 * hand out one port twice (sequential freePort calls may get the same port back once it is closed).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve(s));
    })),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}
