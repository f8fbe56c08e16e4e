/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk decoded Envoy JSON */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { bootstrapJson, callOnce, MeshHarness, startBackend, until, type Backend } from '../generators/testing/mesh-harness.js';

const CONFIG = (port: number): string => `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  endpoints: [{ address: 127.0.0.1, ports: { grpc: ${port} } }]
`;

describe('debug routes', function () {
  this.timeout(60_000);
  let mesh: MeshHarness;
  let backend: Backend;
  let http: Server;
  let base: string;
  let client: grpc.Client;
  let leaky: grpc.Client;
  /** Values a proxy put into its node metadata that /debug output must never show. */
  const SECRETS = ['tok-very-secret-1', 'hunter2-db', 'AKIA-secret-access', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzYSJ9.c2ln'];

  before(async () => {
    xds.register();
    mesh = await MeshHarness.start();
    backend = await startBackend('echo');
    mesh.apply(CONFIG(backend.port));
    client = new grpc.Client('xds:///echo.qs.svc.cluster.local:50051', grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(mesh.xdsAddress, 'qs'),
    });
    await until(async () => (await callOnce(client)).ok, 'a served call');
    // A second proxy whose environment leaked credentials into its node metadata (MESH_META_* variables).
    const bootstrap = JSON.parse(bootstrapJson(mesh.xdsAddress, 'qs', { pod: 'leaky' })) as { node: { metadata: Record<string, unknown> } };
    Object.assign(bootstrap.node.metadata, {
      TEST_TOKEN: SECRETS[0],
      PROXY_CONFIG: { proxyMetadata: { DB_PASSWORD: SECRETS[1], REGION: 'eu' } },
      AWS_SECRET_ACCESS_KEY: SECRETS[2],
      NOTE: `token ${SECRETS[3]}`,
      ISTIO_VERSION: '1.2.3',
    });
    leaky = new grpc.Client('xds:///echo.qs.svc.cluster.local:50051', grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    });
    await until(async () => (await callOnce(leaky)).ok, 'a served call for the leaky proxy');
    const routes = mesh.discovery.debugRoutes;
    http = createServer((req, res) => {
      const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (!route) return void res.writeHead(404).end();
      void route(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  });
  after(async () => {
    client.close();
    leaky.close();
    await new Promise<void>((r) => http.close(() => r()));
    await mesh.close();
    await backend.close();
  });

  async function get(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(base + path);
    return { status: res.status, body: await res.json() };
  }

  const cases = [
    { name: 'given a connected client should list it in /debug/connections', path: '/debug/connections', check: (b: any) => assert.match(b[0].node, /^sidecar~127\.0\.0\.1~client\.qs~/) },
    { name: 'given the ServiceEntry should list it in /debug/configz', path: '/debug/configz', check: (b: any) => assert.deepEqual(b.map((c: any) => c.kind), ['ServiceEntry']) },
    { name: 'given the ServiceEntry should list its service in /debug/registryz', path: '/debug/registryz', check: (b: any) => assert.equal(b[0].hostname, 'echo.qs.svc.cluster.local') },
    { name: 'given the endpoint should list it in /debug/endpointz', path: '/debug/endpointz', check: (b: any) => assert.equal(b['echo.qs.svc.cluster.local'][0].address, '127.0.0.1') },
    { name: 'given pushes should report them in /debug/push_status', path: '/debug/push_status', check: (b: any) => assert.ok(b.pushes >= 1 && b.services === 1) },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { status, body } = await get(c.path);
      assert.equal(status, 200);
      c.check(body);
    });
  }

  it('given a proxy with credentials in its node metadata should redact them in every debug output and keep the rest', async () => {
    const adsz = await get('/debug/adsz');
    const node = adsz.body.find((c: any) => /~leaky\.qs~/.test(c.node.id)).node;
    assert.equal(node.metadata.TEST_TOKEN, '[redacted]');
    assert.equal(node.metadata.AWS_SECRET_ACCESS_KEY, '[redacted]');
    assert.deepEqual(node.metadata.PROXY_CONFIG, { proxyMetadata: { DB_PASSWORD: '[redacted]', REGION: 'eu' } });
    assert.equal(node.metadata.NOTE, '[redacted]');
    assert.equal(node.metadata.GENERATOR, 'grpc');
    for (const path of ['/debug/adsz', '/debug/connections', '/debug/syncz', '/debug/configz', '/debug/registryz', '/debug/endpointz', '/debug/push_status']) {
      const text = await (await fetch(base + path)).text();
      for (const secret of SECRETS) assert.ok(!text.includes(secret), `${path} shows ${secret}`);
    }
  });

  it('given an ACKing client should report every type SYNCED in /debug/syncz', async () => {
    let last: unknown;
    await until(async () => {
      const { status, body } = await get('/debug/syncz');
      last = body;
      return status === 200 && body[0]?.types.length === 4 && body[0].types.every((t: any) => t.status === 'SYNCED');
    }, 'every type SYNCED').catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(last)}`);
    });
  });

  it("given proxies with and without a version in their metadata should show each one's in /debug/syncz (ISTIO_VERSION read as MESH_VERSION)", async () => {
    const { body } = await get('/debug/syncz');
    assert.deepEqual(body.map((e: any) => e.mesh_version).sort(), ['', '1.2.3']);
  });

  it('given a proxy ID should dump its listener, route, cluster and endpoints as Envoy ConfigDump JSON', async () => {
    const conns = (await get('/debug/connections')).body;
    const { status, body } = await get(`/debug/config_dump?proxyID=${encodeURIComponent(conns[0].node)}`);
    assert.equal(status, 200);
    const byType = new Map(body.configs.map((c: any) => [c['@type'], c]));
    const listeners = byType.get('type.googleapis.com/envoy.admin.v3.ListenersConfigDump') as any;
    assert.equal(listeners.dynamic_listeners[0].active_state.listener.name, 'echo.qs.svc.cluster.local:50051');
    const clusters = byType.get('type.googleapis.com/envoy.admin.v3.ClustersConfigDump') as any;
    assert.equal(clusters.dynamic_active_clusters[0].cluster.name, 'outbound|50051||echo.qs.svc.cluster.local');
    const eps = byType.get('type.googleapis.com/envoy.admin.v3.EndpointsConfigDump') as any;
    assert.equal(eps.dynamic_endpoint_configs[0].endpoint_config.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value, backend.port);
  });

  it('given an unknown proxy ID should answer 404 naming it', async () => {
    const { status, body } = await get('/debug/config_dump?proxyID=nobody');
    assert.equal(status, 404);
    assert.match(body.error, /nobody/);
  });
});
