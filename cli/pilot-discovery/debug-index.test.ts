import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouteHandler } from '../../core/index.js';
import { addDebugIndex } from './debug-index.js';

function get(port: number, path: string, accept?: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, headers: accept ? { accept } : {} }, (r) => {
      let body = '';
      r.on('data', (d: Buffer) => (body += d.toString()));
      r.on('end', () => res({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), body }));
    });
    req.on('error', rej);
    req.end();
  });
}

describe('meshd /debug index', () => {
  let server: Server;
  let port: number;
  const routes = new Map<string, RouteHandler>([
    ['/ready', (_q, r) => void r.end('ready')],
    ['/debug/syncz', (_q, r) => void r.end('[]')],
    ['/debug/x<y>', (_q, r) => void r.end('{}')],
  ]);
  before(async () => {
    addDebugIndex(routes);
    server = createServer((req, res) => void routes.get(new URL(req.url ?? '/', 'http://h').pathname)?.(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('given a route added after the index should list it (the index reads the routes per request)', async () => {
    routes.set('/debug/late', (_q, r) => void r.end('{}'));
    const text = await get(port, '/debug');
    assert.equal(text.status, 200);
    assert.match(text.type, /^text\/plain/);
    assert.deepEqual(
      text.body.trimEnd().split('\n').map((l) => l.split(/ +/)[0]),
      ['/debug/late', '/debug/list', '/debug/syncz', '/debug/x<y>'],
    );
    assert.ok(!text.body.includes('/ready'), 'only /debug/* paths are listed');
  });

  it('given a browser (Accept: text/html) should answer an HTML page of links with paths escaped', async () => {
    const html = await get(port, '/debug/', 'text/html,application/xhtml+xml');
    assert.match(html.type, /^text\/html/);
    assert.match(html.body, /<a href="\/debug\/syncz">\/debug\/syncz<\/a><\/td><td>Synchronization status/);
    assert.ok(html.body.includes('/debug/x&#60;y&#62;') && !html.body.includes('x<y>'));
  });

  it('given /debug/list should answer the paths as a sorted JSON array', async () => {
    const list = await get(port, '/debug/list');
    assert.match(list.type, /^application\/json/);
    const paths = JSON.parse(list.body) as string[];
    assert.deepEqual(paths, [...paths].sort());
    assert.ok(paths.includes('/debug/syncz'));
  });
});
