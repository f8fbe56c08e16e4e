import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createLogging, createMetrics, DEFAULT_LOG_OPTIONS, Lifecycle, loadEnv, SCOPES } from '../../core/index.js';
import { startMeshdServer, type MeshdServer, type MeshdServerOptions } from './meshd-server.js';

/** Polls `check` until it holds, failing after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('meshd listeners', () => {
  let lifecycle: Lifecycle;
  beforeEach(() => (lifecycle = new Lifecycle()));
  afterEach(() => lifecycle.close(5000));

  const start = (extra: Partial<MeshdServerOptions> = {}): Promise<MeshdServer> => {
    const logging = createLogging({ ...DEFAULT_LOG_OPTIONS, outputLevels: 'all:none' }, SCOPES['pilot-discovery']);
    lifecycle.add('logging', () => logging.close());
    return startMeshdServer(
      {
        grpcAddr: '127.0.0.1:0',
        httpAddr: '127.0.0.1:0',
        monitoringAddr: '127.0.0.1:0',
        ctrlz: { address: '127.0.0.1', port: 0 },
        keepalive: { intervalMs: 30_000, timeoutMs: 10_000, maxServerConnectionAgeMs: Infinity },
        maxRecvMsgSize: 4 << 20,
        maxConcurrentStreams: 100,
        shutdownMs: 1000,
        ...extra,
      },
      { logging, metrics: createMetrics('pilot-discovery', { processMetrics: false }), env: loadEnv('pilot-discovery', {}), lifecycle },
    );
  };

  it('given start-up not finished or sources not synced should answer /ready with 503 saying why, then 200', async () => {
    const server = await start();
    const url = `http://127.0.0.1:${server.http.address.port}/ready`;
    const before = await fetch(url);
    assert.equal(before.status, 503);
    assert.match(await before.text(), /starting/);
    let waiting = 'waiting for the first sync of crd-config';
    server.setReadiness(() => waiting || undefined);
    const syncing = await fetch(url);
    assert.equal(syncing.status, 503);
    assert.equal(await syncing.text(), 'not ready: waiting for the first sync of crd-config\n');
    waiting = '';
    assert.equal((await fetch(url)).status, 200);
  });

  it('given the request target "//" (no URL path) on the debug and monitoring listeners should answer 400 naming it and keep serving (it ended meshd)', async () => {
    const server = await start();
    for (const port of [server.http.address.port, server.monitoring.address.port]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('GET // HTTP/1.1\r\nHost: meshd\r\nConnection: close\r\n\r\n'));
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /the request target \\?"\/\/\\?" is not a URL path/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/ready`)).status, 503, 'still serving');
    }
  });

  it('given 20 concurrent expensive debug requests should run 2, queue 4, refuse 14 with 503 and keep answering /ready', async () => {
    const server = await start({ debugWork: { maxConcurrent: 2, maxQueued: 4 } });
    server.setReadiness(() => undefined);
    let inside = 0;
    let maxInside = 0;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    server.debugRoutes.set('/debug/config_dump', async (_req, res) => {
      maxInside = Math.max(maxInside, ++inside);
      await gate;
      inside--;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const base = `http://127.0.0.1:${server.http.address.port}`;
    const statuses: number[] = [];
    const calls = Array.from({ length: 20 }, async () => {
      const res = await fetch(`${base}/debug/config_dump?proxyID=x`);
      statuses.push(res.status);
      if (res.status === 503) assert.equal(res.headers.get('retry-after'), '1');
      await res.body?.cancel();
    });
    await until(() => statuses.length === 14, 'the refused requests answered');
    assert.ok(statuses.every((s) => s === 503));
    assert.deepEqual([server.debugWork.running, server.debugWork.queued, inside], [2, 4, 2]);
    const ready = await fetch(`${base}/ready`);
    assert.equal(ready.status, 200, '/ready is never limited');
    await ready.body?.cancel();
    open();
    await Promise.all(calls);
    assert.deepEqual(statuses.slice(14), [200, 200, 200, 200, 200, 200]);
    assert.equal(maxInside, 2);
  });

  it('given slow-header sockets on the debug, monitoring and introspection listeners should cut every one off', async () => {
    const server = await start({ httpLimits: { headersTimeoutMs: 100, requestTimeoutMs: 100, checkIntervalMs: 20 } });
    const ports = [server.http.address.port, server.monitoring.address.port, server.ctrlz.address.port];
    const sockets = ports.flatMap((port) =>
      Array.from({ length: 10 }, () => {
        const s = { closed: false, socket: connect(port, '127.0.0.1') };
        s.socket.on('connect', () => s.socket.write('GET /debug/adsz HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
        s.socket.on('error', () => undefined);
        // NOTE: read what the server sends (its 408), or the socket never sees the server's FIN.
        s.socket.resume();
        s.socket.on('close', () => void (s.closed = true));
        return s;
      }),
    );
    try {
      await until(() => sockets.every((s) => s.closed), 'every slow-header socket closed');
    } finally {
      for (const s of sockets) s.socket.destroy();
    }
  });
});
