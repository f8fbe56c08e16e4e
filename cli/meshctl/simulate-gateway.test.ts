// `meshctl x simulate` and `meshctl x translate` for a router (gateway) proxy over examples/bookinfo-sidecar +
// examples/bookinfo-gateway: outcomes through the gateway, proto validation and consistency of what it would get.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMeshConfig } from '../../core/index.js';
import { REPO_ROOT, runProgram } from '../testing/program-process.js';
import { buildOffline, proxyNodeFor, readConfigFiles, type OfflineMesh } from './offline-sidecar.js';
import { parseRequest, simulate } from './simulate-run.js';
import { translate } from './translate-run.js';

const DIRS = [join(REPO_ROOT, 'examples/bookinfo-sidecar'), join(REPO_ROOT, 'examples/bookinfo-gateway')];
const REVIEWS = 'reviews.default.svc.cluster.local';
const PRODUCTPAGE = 'productpage.default.svc.cluster.local';

async function gatewayMesh(proxyType = '', extra: string[] = []): Promise<OfflineMesh> {
  const configs = await readConfigFiles([...DIRS, ...extra], false, REPO_ROOT);
  return buildOffline(configs, defaultMeshConfig(), proxyNodeFor('mesh-system/ingressgateway-1', '', configs, 'cluster.local', proxyType), 'cluster.local');
}

describe('meshctl x simulate / x translate for a gateway (examples/bookinfo-gateway)', function () {
  this.timeout(60_000);
  let mesh: OfflineMesh;
  before(async () => {
    mesh = await gatewayMesh();
  });

  it('given a WorkloadEntry a Gateway selects should take it for a router proxy', () => {
    assert.equal(mesh.proxy.type, 'router');
    assert.match(mesh.proxy.id, /^router~10\.0\.9\.1~ingressgateway-1\.mesh-system~/);
  });

  const cases: { name: string; request: string; want: { outcome: string; listener?: string; routeConfig?: string; route?: string; clusters?: string[] } }[] = [
    {
      name: 'given a page of the bound VirtualService on port 80 should reach productpage through 0.0.0.0_8080 and http.8080',
      request: 'GET http://bookinfo.example.com/productpage',
      want: { outcome: 'routed', listener: '0.0.0.0_8080', routeConfig: 'http.8080', route: 'pages', clusters: [`outbound|9080||${PRODUCTPAGE} -> 10.0.0.1:9080`] },
    },
    {
      name: "given jason's reviews over HTTPS should be terminated by SNI and routed to v2",
      request: "GET https://bookinfo.example.com/reviews/1 -H 'end-user: jason'",
      want: { outcome: 'routed', listener: '0.0.0.0_8443', routeConfig: 'https.443.https.bookinfo-gateway.default', route: 'reviews-jason', clusters: [`outbound|9080|v2|${REVIEWS} -> 10.0.1.2:9080`] },
    },
    {
      name: 'given anyone else on reviews should go to v1',
      request: 'GET http://bookinfo.example.com/reviews/1',
      want: { outcome: 'routed', route: 'reviews', clusters: [`outbound|9080|v1|${REVIEWS} -> 10.0.1.1:9080`] },
    },
    {
      name: 'given a path no route matches should get no route (404)',
      request: 'GET http://bookinfo.example.com/admin',
      want: { outcome: 'no-route', listener: '0.0.0.0_8080' },
    },
    {
      name: "given a host the gateway's servers do not admit should find no virtual host",
      request: 'GET http://reviews.default.svc.cluster.local/',
      want: { outcome: 'no-virtual-host' },
    },
    {
      name: 'given TCP on the TCP server port should reach mysqldb through the VirtualService of namespace data',
      request: 'tcp://mysql.example.com:31400',
      want: { outcome: 'routed', listener: '0.0.0.0_31400', clusters: ['outbound|3306||mysqldb.data.svc.cluster.local -> 10.0.3.1:3306'] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = simulate(mesh, parseRequest(c.request), {}).result;
      assert.equal(r.outcome, c.want.outcome, JSON.stringify(r));
      if (c.want.listener) assert.equal(r.listener, c.want.listener);
      if (c.want.routeConfig) assert.equal(r.routeConfig, c.want.routeConfig);
      if (c.want.route) assert.equal(r.route, c.want.route);
      if (c.want.clusters) assert.deepEqual(r.clusters?.map((x) => `${x.name} -> ${x.endpoints.join(',')}`), c.want.clusters);
    });
  }

  it('given the gateway configuration should encode, pass proto validation and reference only what it gets', () => {
    const { dump, problems } = translate(mesh.config);
    assert.deepEqual(problems, []);
    assert.equal(dump.configs.length, 4);
    assert.deepEqual(mesh.config.routes.map((r) => r['name']), ['http.8080', 'https.443.https.bookinfo-gateway.default']);
  });

  it('given a second Gateway with an HTTPS server on the HTTP port should warn that it is left out, and keep routing HTTP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-clash-'));
    try {
      writeFileSync(
        join(dir, 'clash.yaml'),
        'apiVersion: networking.mesh.io/v1\nkind: Gateway\nmetadata: { name: clash, namespace: default, creationTimestamp: "2030-01-01T00:00:00Z" }\n' +
          'spec:\n  selector: { mesh: ingressgateway }\n  servers:\n  - port: { number: 80, name: https, protocol: HTTPS }\n    hosts: ["*/x.example.com"]\n    tls: { mode: SIMPLE, credentialName: x }\n',
      );
      const clash = await gatewayMesh('', [dir]);
      assert.deepEqual(clash.warnings, ['Gateway default/clash servers[0]: left out: port 8080 already serves HTTP servers; a HTTPS server cannot share it']);
      assert.equal(simulate(clash, parseRequest('GET http://bookinfo.example.com/productpage'), {}).result.outcome, 'routed');
      assert.deepEqual(mesh.warnings, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given --proxy-type sidecar should build the same pod as a sidecar instead', async () => {
    const asSidecar = await gatewayMesh('sidecar');
    assert.equal(asSidecar.proxy.type, 'sidecar');
    assert.ok(asSidecar.config.listeners.some((l) => l['name'] === 'virtualOutbound'));
  });

  it('given bin/meshctl with a gateway pod should print the walk through the gateway and translate with checks passed', async () => {
    const r = await runProgram('meshctl', ['x', 'simulate', '-f', DIRS[0]!, '-f', DIRS[1]!, '-p', 'mesh-system/ingressgateway-1', '-o', 'json', 'GET http://bookinfo.example.com/productpage']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { proxy: { id: string }; result: { outcome: string; sources: string[] } };
    assert.match(report.proxy.id, /^router~/);
    assert.equal(report.result.outcome, 'routed');
    assert.deepEqual(report.result.sources, ['Gateway/default/bookinfo-gateway@2', 'VirtualService/default/bookinfo@4']);
    const t = await runProgram('meshctl', ['x', 'translate', '-f', DIRS[0]!, '-f', DIRS[1]!, '-p', 'mesh-system/ingressgateway-1', '--proxy-type', 'router']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stderr, /3 listeners, 2 route configurations, .* proto validation and consistency checks passed/);
    const bad = await runProgram('meshctl', ['x', 'translate', '-f', DIRS[1]!, '-p', 'mesh-system/ingressgateway-1', '--proxy-type', 'gateway']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--proxy-type: unknown proxy type "gateway" \(use sidecar or router\)/);
  });
});
