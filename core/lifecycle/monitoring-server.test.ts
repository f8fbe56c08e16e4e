import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { createMetrics } from '../metrics/index.js';
import { ListenError } from './listen-address.js';
import type { HttpListener } from './listen.js';
import { startMonitoringServer } from './monitoring-server.js';

/** A GET of `path` as written (fetch would normalise it). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startMonitoringServer', () => {
  const listeners: HttpListener[] = [];
  afterEach(async () => Promise.all(listeners.splice(0).map((l) => l.close())));
  const start = async (extraRoutes = {}): Promise<string> => {
    const metrics = createMetrics('operator', { tag: '9.9.9', processMetrics: false });
    metrics.counter('reconcile_request_total').inc();
    const l = await startMonitoringServer({ address: '127.0.0.1:0', flagName: 'monitoring-port', metrics, extraRoutes });
    listeners.push(l);
    return `http://127.0.0.1:${l.address.port}`;
  };

  it('given GET /metrics should serve Prometheus text with its content type', async () => {
    const res = await fetch(`${await start()}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^reconcile_request_total 1$/m);
    assert.match(text, /^mesh_build\{component="operator",tag="9\.9\.9"\} 1$/m);
  });

  it('given extra routes should serve them, 404 unknown paths and 500 failing handlers', async () => {
    const base = await start({
      '/ready': (_req: unknown, res: { end: (t: string) => void }) => res.end('ok'),
      '/broken': () => Promise.reject(new Error('not ready yet')),
    });
    assert.equal(await (await fetch(`${base}/ready`)).text(), 'ok');
    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const broken = await fetch(`${base}/broken`);
    assert.equal(broken.status, 500);
    assert.equal(await broken.text(), 'not ready yet\n');
  });

  it('given the request target "//", which is no URL path, should answer 400 naming it and keep serving (new URL threw in the listener and ended the process)', async () => {
    const base = new URL(await start());
    const status = await rawGet(Number(base.port), '//');
    assert.deepEqual(status, { status: 400, body: 'the request target "//" is not a URL path\n' });
    assert.equal((await fetch(`${base.origin}/metrics`)).status, 200);
  });

  it('given a port in use should reject with ListenError', async () => {
    const base = await start();
    const port = new URL(base).port;
    const metrics = createMetrics('operator', { processMetrics: false });
    await assert.rejects(startMonitoringServer({ address: `127.0.0.1:${port}`, flagName: 'monitoring-port', metrics }), ListenError);
  });
});
