import { strict as assert } from 'node:assert';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ListenError } from './listen-address.js';
import { listenHttp, listenOn, type HttpListener } from './listen.js';

/** Polls `check` until it holds, failing after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A raw client socket that records what it received and whether the server closed it. */
interface RawClient {
  readonly socket: Socket;
  received: string;
  closed: boolean;
}
function rawClient(port: number, send?: string): RawClient {
  const socket = connect(port, '127.0.0.1');
  const c: RawClient = { socket, received: '', closed: false };
  socket.on('connect', () => void (send !== undefined && socket.write(send)));
  socket.on('data', (d: Buffer) => void (c.received += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => void (c.closed = true));
  return c;
}

describe('listenOn / listenHttp', () => {
  const servers: Server[] = [];
  const listeners: HttpListener[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.listening ? s.close(resolve) : resolve(undefined)))));
  });
  const tcp = (): Server => {
    const s = createServer();
    servers.push(s);
    return s;
  };

  it('given port 0 should bind and report the real port', async () => {
    const bound = await listenOn(tcp(), '127.0.0.1:0', 'grpcAddr');
    assert.equal(bound.host, '127.0.0.1');
    assert.ok(bound.port > 0);
  });

  it('given a port in use should reject with ListenError naming flag and address', async () => {
    const { port } = await listenOn(tcp(), '127.0.0.1:0', 'grpcAddr');
    await assert.rejects(listenOn(tcp(), `127.0.0.1:${port}`, 'monitoringAddr'), (err: unknown) => {
      assert.ok(err instanceof ListenError);
      assert.equal(err.message, `--monitoringAddr 127.0.0.1:${port}: address already in use`);
      assert.equal(err.code, 'EADDRINUSE');
      return true;
    });
  });

  it('given an address not on this host should reject with address not available', async () => {
    await assert.rejects(listenOn(tcp(), '192.0.2.1:0', 'httpAddr'), /^ListenError: --httpAddr 192\.0\.2\.1:0: address not available on this host$/);
  });

  it('given a bad address should reject before binding', async () => {
    await assert.rejects(listenOn(tcp(), ':http', 'httpAddr'), ListenError);
  });

  describe('limits', () => {
    const clients: RawClient[] = [];
    afterEach(() => {
      for (const c of clients.splice(0)) c.socket.destroy();
    });
    const open = (port: number, send?: string): RawClient => {
      const c = rawClient(port, send);
      clients.push(c);
      return c;
    };

    it('given slow-header and silent sockets should answer 408 and close every one after the headers timeout', async () => {
      const listener = await listenHttp((_req, res) => res.end('hello'), '127.0.0.1:0', 'httpAddr', { headersTimeoutMs: 100, requestTimeoutMs: 200, checkIntervalMs: 20 });
      listeners.push(listener);
      const { port } = listener.address;
      const slow = Array.from({ length: 20 }, (_, i) => open(port, i % 2 === 0 ? 'GET /debug/adsz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' : undefined));
      await until(() => slow.every((c) => c.closed), 'every slow socket closed by the server');
      assert.ok(slow.every((c) => c.received.startsWith('HTTP/1.1 408 ')), 'each got 408 Request Timeout');
      const res = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(await res.text(), 'hello', 'a prompt client is still served');
    });

    it('given more connections than maxConnections should close the extra ones at once and keep serving the others', async () => {
      const listener = await listenHttp((_req, res) => res.end('hello'), '127.0.0.1:0', 'httpAddr', { maxConnections: 3 });
      listeners.push(listener);
      const { port } = listener.address;
      let dropped = 0;
      listener.server.on('drop', () => void dropped++);
      const held = [open(port), open(port), open(port)];
      const connections = (): Promise<number> => new Promise((resolve, reject) => listener.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
      for (let n = 0; n < 3; n = await connections()) await new Promise((r) => setTimeout(r, 10));
      const extra = Array.from({ length: 10 }, () => open(port));
      await until(() => extra.every((c) => c.closed), 'every connection beyond the cap closed');
      assert.equal(dropped, 10);
      assert.ok(held.every((c) => !c.closed), 'the connections within the cap stay open');
      held[0]!.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await until(() => held[0]!.closed, 'the held connection answered');
      assert.match(held[0]!.received, /^HTTP\/1\.1 200 OK[\s\S]*hello$/);
    });

    const bad = [
      { name: 'a zero header timeout', limits: { headersTimeoutMs: 0 }, message: /headersTimeoutMs must be a positive integer, got 0/ },
      { name: 'a request timeout below the header timeout', limits: { headersTimeoutMs: 500, requestTimeoutMs: 100 }, message: /requestTimeoutMs \(100\) must be at least headersTimeoutMs \(500\)/ },
    ];
    for (const c of bad) {
      it(`given ${c.name} should throw RangeError naming the limit`, async () => {
        await assert.rejects(listenHttp((_req, res) => res.end(), '127.0.0.1:0', 'httpAddr', c.limits), (err: unknown) => err instanceof RangeError && c.message.test(err.message));
      });
    }
  });

  it('given an HTTP handler should serve it and close with open keep-alive connections', async () => {
    const listener = await listenHttp((_req, res) => res.end('hello'), '127.0.0.1:0', 'httpAddr');
    listeners.push(listener);
    const res = await fetch(`http://127.0.0.1:${listener.address.port}/`);
    assert.equal(await res.text(), 'hello');
    await listener.close();
    assert.equal(listener.server.listening, false);
  });
});
