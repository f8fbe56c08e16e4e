import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:net';
import { ListenError } from './listen-address.js';
import { listenHttp, listenOn, type HttpListener } from './listen.js';

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

  it('given an HTTP handler should serve it and close with open keep-alive connections', async () => {
    const listener = await listenHttp((_req, res) => res.end('hello'), '127.0.0.1:0', 'httpAddr');
    listeners.push(listener);
    const res = await fetch(`http://127.0.0.1:${listener.address.port}/`);
    assert.equal(await res.text(), 'hello');
    await listener.close();
    assert.equal(listener.server.listening, false);
  });
});
