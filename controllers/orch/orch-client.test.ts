import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../core/index.js';
import { OrchKubeConfig } from './kubeconfig.js';
import { OrchApiError, OrchClient, type RawWatchEvent } from './orch-client.js';

/** A real HTTP server on 127.0.0.1 standing in for the API server: each test sets `handler`. */
class LoopbackApi {
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('{}');
  readonly requests: { method: string; url: string; auth: string | undefined; body: string }[] = [];
  readonly open = new Set<ServerResponse>();
  readonly server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      this.handler(req, res);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function kubeConfigFor(server: string): OrchKubeConfig {
  return OrchKubeConfig.fromYaml(
    `clusters: [{name: loopback, cluster: {server: "${server}"}}]\nusers: [{name: u, user: {token: secret-token}}]\ncontexts: [{name: c, context: {cluster: loopback, user: u}}]\ncurrent-context: c\n`,
    'test',
  );
}

/** Lets pending callbacks and I/O run until `check` holds (real time bounded; no timers involved). */
async function until(what: string, check: () => boolean, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('OrchClient (loopback HTTP server)', () => {
  const api = new LoopbackApi();
  let server: string;

  before(async () => {
    server = await api.start();
  });
  after(() => api.stop());
  beforeEach(() => {
    api.requests.length = 0;
  });

  it('given a JSON answer, should send the bearer token and the query and parse the body', async () => {
    api.handler = (_req, res) => res.end(JSON.stringify({ kind: 'ConfigMapList', items: [] }));
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    const answer = await client.request<{ kind: string }>('GET', '/api/v1/configmaps', { query: { limit: 5, continue: undefined } });
    assert.equal(answer.kind, 'ConfigMapList');
    assert.equal(api.requests[0]?.url, '/api/v1/configmaps?limit=5');
    assert.equal(api.requests[0]?.auth, 'Bearer secret-token');
  });

  it('given a time limit that is not a whole number of ms (the time left to a lease renew deadline), should still send the request', async () => {
    api.handler = (_req, res) => res.end(JSON.stringify({ kind: 'Lease' }));
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    // NOTE: AbortSignal.timeout(7998.97) throws; every renewal of a leader failed that way before.
    const answer = await client.request<{ kind: string }>('GET', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', { timeoutMs: 7998.97 });
    assert.equal(answer.kind, 'Lease');
    assert.equal(await client.requestText('GET', '/healthz', { timeoutMs: 1000.5 }), JSON.stringify({ kind: 'Lease' }));
  });

  it('given a Status error, should throw OrchApiError with the status, reason and message', async () => {
    api.handler = (_req, res) => {
      res.statusCode = 409;
      res.end(JSON.stringify({ kind: 'Status', reason: 'AlreadyExists', message: 'configmaps "a" already exists' }));
    };
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    await assert.rejects(
      client.request('POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'a' } } }),
      (err: unknown) => err instanceof OrchApiError && err.status === 409 && err.reason === 'AlreadyExists' && /already exists/.test(err.message),
    );
    assert.equal(api.requests[0]?.body, '{"metadata":{"name":"a"}}');
  });

  it('given a watch, should emit each line, then complete when the server ends the stream', async () => {
    api.handler = (_req, res) => {
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}\n');
      res.end('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"3"}}}\n');
    };
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    const events: RawWatchEvent[] = [];
    await new Promise<void>((resolve, reject) =>
      client.watch('/api/v1/configmaps', { resourceVersion: '1' }).subscribe({ next: (e) => events.push(e), error: reject, complete: resolve }),
    );
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
    assert.match(api.requests[0]?.url ?? '', /resourceVersion=1&watch=true/);
  });

  it('given a refused watch, should error with the status', async () => {
    api.handler = (_req, res) => {
      res.statusCode = 410;
      res.end(JSON.stringify({ kind: 'Status', reason: 'Expired', message: 'too old resource version' }));
    };
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    const error = await new Promise<unknown>((resolve) => client.watch('/api/v1/pods', {}).subscribe({ error: resolve, complete: () => resolve(undefined) }));
    assert.ok(error instanceof OrchApiError && error.status === 410 && error.reason === 'Expired', String(error));
  });

  it('given an unsubscribe mid-watch, should close the connection', async () => {
    api.handler = (_req, res) => res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    const client = new OrchClient(kubeConfigFor(server), { qps: 10, burst: 10, contentType: 'json' });
    let first!: () => void;
    const gotOne = new Promise<void>((resolve) => (first = resolve));
    const subscription = client.watch('/api/v1/pods', {}).subscribe(() => first());
    await gotOne;
    assert.equal(api.open.size, 1);
    subscription.unsubscribe();
    for (let i = 0; i < 1000 && api.open.size > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(api.open.size, 0, 'the server still holds the watch connection');
  });

  it('given burst 2, should make requests and watches beyond it wait for tokens', async () => {
    api.handler = (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'NamespaceList', metadata: {}, items: [] }));
    };
    const clock = new ManualClock();
    const client = new OrchClient(kubeConfigFor(server), { qps: 1, burst: 2, contentType: 'json' }, { clock });
    await client.request('GET', '/api/v1/namespaces');
    await client.request('GET', '/api/v1/namespaces');
    assert.equal(clock.pendingTimers, 0, 'the first two calls spend the burst without waiting');
    const list = client.request('GET', '/api/v1/namespaces');
    await until('the third call waits for a token', () => clock.pendingTimers === 1);
    assert.deepEqual(clock.timersDueIn(), [1000]);
    assert.equal(api.requests.length, 2, 'nothing is sent while waiting');
    await clock.advance(1000);
    await list;
    const watched = new Promise<void>((resolve, reject) => client.watch('/api/v1/namespaces', {}).subscribe({ error: reject, complete: resolve }));
    await until('the watch waits for a token', () => clock.pendingTimers === 1);
    assert.equal(api.requests.length, 3);
    await clock.advance(1000);
    await watched;
    assert.equal(api.requests.length, 4);
  });
});
