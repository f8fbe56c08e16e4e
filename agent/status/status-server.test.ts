// Real parts: the status server on 127.0.0.1:0, a scripted proxy admin API (HTTP), an app's HTTP and
// TCP listeners and a grpc-js health service.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createMetrics } from '../../core/index.js';
import { freePort } from '../testing/free-port.js';
import { httpGet } from './http-get.js';
import { parseAppProbers } from './app-probers.js';
import { StatusServer } from './status-server.js';

const logger = pino({ level: 'silent' });
const listen = async (s: Server | TcpServer): Promise<number> => {
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  return (s.address() as AddressInfo).port;
};
const close = (s: Server | TcpServer): Promise<void> => new Promise((res) => s.close(() => res()));

describe('StatusServer', () => {
  const proxy = { live: 'LIVE', cds: 0, lds: 0 };
  let admin: Server;
  let app: Server;
  let tcpApp: TcpServer;
  let health: grpc.Server;
  let ports: { admin: number; app: number; tcp: number; grpc: number; closed: number };
  let status: StatusServer;
  let quits = 0;

  before(async () => {
    admin = createServer((req, res) => {
      if (req.url === '/ready') res.writeHead(proxy.live === 'LIVE' ? 200 : 503).end(`${proxy.live}\n`);
      else if (req.url?.startsWith('/stats?usedonly')) res.writeHead(200).end(`cluster_manager.cds.update_success: ${proxy.cds}\nlistener_manager.lds.update_success: ${proxy.lds}\n`);
      else if (req.url === '/stats/prometheus') res.writeHead(200).end('# TYPE envoy_server_live gauge\nenvoy_server_live 1\n');
      else res.writeHead(404).end();
    });
    app = createServer((req, res) => {
      if (req.url === '/metrics') res.writeHead(200).end('app_requests_total 3\n');
      else res.writeHead(req.url === '/ok' && req.headers['x-probe'] === 'yes' ? 204 : 500).end();
    });
    tcpApp = createTcpServer((s) => s.end());
    health = new grpc.Server();
    const id = (b: Buffer): Buffer => b;
    health.addService(
      { Check: { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false, requestSerialize: id, requestDeserialize: id, responseSerialize: id, responseDeserialize: id } },
      {
        Check: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
          const service = call.request.length > 2 ? call.request.subarray(2).toString() : '';
          cb(null, Buffer.from([0x08, service === '' ? 1 : 2]));
        },
      },
    );
    const grpcPort = await new Promise<number>((res, rej) => health.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    ports = { admin: await listen(admin), app: await listen(app), tcp: await listen(tcpApp), grpc: grpcPort, closed: await freePort() };
    const probers = parseAppProbers(
      JSON.stringify({
        '/app-health/web/readyz': { httpGet: { path: '/ok', port: ports.app, httpHeaders: [{ name: 'x-probe', value: 'yes' }] }, timeoutSeconds: 1 },
        '/app-health/web/livez': { httpGet: { path: '/broken', port: ports.app } },
        '/app-health/db/readyz': { tcpSocket: { port: ports.tcp } },
        '/app-health/db/livez': { tcpSocket: { port: ports.closed } },
        '/app-health/rpc/readyz': { grpc: { port: ports.grpc } },
        '/app-health/rpc/livez': { grpc: { port: ports.grpc, service: 'other' } },
      }),
      'MESH_KUBE_APP_PROBERS',
    );
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    status = await StatusServer.start({ host: '127.0.0.1', port: 0, proxyAdminPort: ports.admin, metrics, probers, appMetrics: { port: ports.app, path: '/metrics' }, onQuit: () => quits++, logger });
  });
  after(async () => {
    await status.close();
    await Promise.all([close(admin), close(app), close(tcpApp)]);
    health.forceShutdown();
  });

  const get = (path: string, method = 'GET'): Promise<{ status: number; body: string }> => httpGet(`http://127.0.0.1:${status.port}${path}`, 5_000, {}, method);

  it('given the request target "//" (no URL path) should answer 400 naming it, and keep serving', async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: status.port, path: '//', method: 'GET' }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(r.status, 400);
    assert.match(r.body, /request target "\/\/" is not a URL path/);
    assert.ok([200, 503].includes((await get('/healthz/ready')).status), 'the server still answers');
  });

  const readiness: { name: string; live: string; cds: number; lds: number; status: number; body: RegExp }[] = [
    { name: 'a proxy that is not live', live: 'PRE_INITIALIZING', cds: 1, lds: 1, status: 503, body: /^the proxy is not live: HTTP 503 PRE_INITIALIZING/ },
    { name: 'a live proxy without config', live: 'LIVE', cds: 0, lds: 0, status: 503, body: /^config not received from meshd/ },
    { name: 'a live proxy with clusters but no listeners', live: 'LIVE', cds: 2, lds: 0, status: 503, body: /^config not received from meshd/ },
    { name: 'a live proxy with its first config', live: 'LIVE', cds: 1, lds: 1, status: 200, body: /^$/ },
  ];
  for (const c of readiness) {
    it(`given ${c.name} should answer /healthz/ready with ${c.status}`, async () => {
      Object.assign(proxy, { live: c.live, cds: c.cds, lds: c.lds });
      const r = await get('/healthz/ready');
      assert.equal(r.status, c.status);
      assert.match(r.body, c.body);
    });
  }

  it('given the proxy and the app serve metrics should merge them with the agent metrics', async () => {
    const r = await get('/stats/prometheus');
    assert.equal(r.status, 200);
    assert.match(r.body, /^mesh_build\{component="pilot-agent"/m);
    assert.match(r.body, /^envoy_server_live 1$/m);
    assert.match(r.body, /^app_requests_total 3$/m);
  });

  const probes: { path: string; status: number; body: RegExp }[] = [
    { path: '/app-health/web/readyz', status: 200, body: /^HTTP 204/ },
    { path: '/app-health/web/livez', status: 500, body: /^HTTP 500/ },
    { path: '/app-health/db/readyz', status: 200, body: /^connected/ },
    { path: '/app-health/db/livez', status: 500, body: /ECONNREFUSED/ },
    { path: '/app-health/rpc/readyz', status: 200, body: /^SERVING/ },
    { path: '/app-health/rpc/livez', status: 500, body: /^health status 2/ },
    { path: '/app-health/none/readyz', status: 404, body: /^no probe configured/ },
  ];
  for (const c of probes) {
    it(`given a rewritten probe ${c.path} should answer ${c.status}`, async () => {
      const r = await get(c.path);
      assert.equal(r.status, c.status, r.body);
      assert.match(r.body, c.body);
    });
  }

  it('given POST /quitquitquit should ask the agent to quit, and refuse GET', async () => {
    assert.equal((await get('/quitquitquit')).status, 405);
    assert.equal(quits, 0);
    assert.equal((await get('/quitquitquit', 'POST')).status, 200);
    assert.equal(quits, 1);
  });

  it('given no DNS capture should answer /debug/ndsz 503 saying so; with it, the last name table as JSON', async () => {
    const off = await get('/debug/ndsz');
    assert.equal(off.status, 503);
    assert.match(off.body, /does not capture DNS/);
    const table = { 'api.example.com': { ips: ['240.0.0.1'], registry: 'External' } };
    const withDns = await StatusServer.start({ host: '127.0.0.1', port: 0, metrics: createMetrics('pilot-agent', { processMetrics: false }), probers: new Map(), onQuit: () => undefined, nameTable: () => table, logger });
    try {
      const r = await httpGet(`http://127.0.0.1:${withDns.port}/debug/ndsz`, 5_000);
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.body), { table });
    } finally {
      await withDns.close();
    }
  });

  const badProbers: { text: string; error: RegExp }[] = [
    { text: '{', error: /^AppProbersError: P: not JSON/ },
    { text: '{"/healthz": {"tcpSocket": {"port": 1}}}', error: /^AppProbersError: P: "\/healthz" is not \/app-health/ },
    { text: '{"/app-health/a/readyz": {"tcpSocket": {"port": 1}, "grpc": {"port": 2}}}', error: /exactly one of httpGet, tcpSocket, grpc/ },
    { text: '{"/app-health/a/readyz": {"tcpSocket": {"port": 70000}}}', error: /port 70000 is not a port number/ },
  ];
  for (const c of badProbers) {
    it(`given probers ${c.text} should refuse them naming the fault`, () => {
      assert.throws(() => parseAppProbers(c.text, 'P'), c.error);
    });
  }
});
