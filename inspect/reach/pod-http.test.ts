import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { directDialer } from './pod-dialer.js';
import { podHttpGet, podHttpRequest } from './pod-http.js';
import { ReachError } from './reach-error.js';

describe('podHttpRequest over a direct dialer', () => {
  // NOTE: a local HTTP server stands in for a pod's port; the dialer maps pod web-0.ns port 15000 to it.
  let server: Server;
  let port = 0;
  const seen: { method: string; url: string; body: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        if (req.url === '/missing') {
          res.writeHead(404).end('no such page');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${body}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const dial = directDialer((pod, p) => (pod.name === 'web-0' && p === 15000 ? { host: '127.0.0.1', port } : undefined));
  const pod = { namespace: 'ns', name: 'web-0' };

  it('given a GET should return the body', async () => {
    assert.equal(await podHttpGet(dial, pod, 15000, '/config_dump?include_eds'), 'GET /config_dump?include_eds ');
  });
  it('given a POST with a body should send it and return status and body', async () => {
    const res = await podHttpRequest(dial, pod, 15000, { method: 'POST', path: '/logging?level=debug', body: 'x=1' });
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'POST /logging?level=debug x=1');
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/logging?level=debug', body: 'x=1' });
  });
  it('given a 404 should throw a ReachError with the path, pod, status and body', async () => {
    await assert.rejects(podHttpGet(dial, pod, 15000, '/missing'), (e: unknown) => e instanceof ReachError && e.message === 'GET /missing on pod web-0.ns port 15000: HTTP 404: no such page');
  });
  it('given a pod the dialer does not know should throw naming pod and port', async () => {
    await assert.rejects(podHttpGet(dial, { namespace: 'ns', name: 'other' }, 15000, '/'), /cannot reach pod other.ns port 15000: no address known for it/);
  });
  it('given a closed port should throw naming the pod and address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const d = directDialer(() => ({ host: '127.0.0.1', port: closedPort }));
    await assert.rejects(podHttpGet(d, pod, 15000, '/'), new RegExp(`cannot reach pod web-0.ns port 15000 at 127.0.0.1:${closedPort}: .*ECONNREFUSED`));
  });
});
