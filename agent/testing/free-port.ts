/** A loopback port that was free a moment ago (for a "nothing listens here" case). */
import { createServer, type AddressInfo } from 'node:net';

/** Binds 127.0.0.1:0, reads the port, releases it. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const port = (s.address() as AddressInfo).port;
  await new Promise((res) => s.close(res));
  return port;
}
