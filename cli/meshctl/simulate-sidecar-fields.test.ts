// `meshctl x simulate` walking the listeners of Sidecar egress binds and ingress captureMode NONE, through the
// real bin/meshctl process over examples/bookinfo-sidecar plus a Sidecar for productpage.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runProgram } from '../testing/program-process.js';

const SIDECAR = `apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: productpage, namespace: default }
spec:
  workloadSelector: { labels: { app: productpage } }
  ingress:
  - port: { number: 9080, protocol: HTTP, name: http }
    captureMode: NONE
    defaultEndpoint: 127.0.0.1:9081
  egress:
  - port: { number: 9080, protocol: HTTP, name: http-reviews }
    bind: 127.0.0.1
    captureMode: NONE
    hosts: [./reviews.default.svc.cluster.local]
  - port: { number: 0, protocol: HTTP, name: uds }
    bind: unix:///var/run/mesh/egress.sock
    hosts: [./reviews.default.svc.cluster.local]
  - hosts: ['./*', 'data/*']
`;

interface Report {
  result: { outcome: string; listener?: string; clusters?: { name: string; endpoints: string[] }[]; sources: string[] };
}

describe('meshctl x simulate over Sidecar egress bind (IP and unix socket) and ingress captureMode NONE', function () {
  this.timeout(60_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-sidecar-fields-'));
    cpSync(join(REPO_ROOT, 'examples/bookinfo-sidecar'), dir, { recursive: true });
    writeFileSync(join(dir, 'sidecar.yaml'), SIDECAR);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (args: string[]): Promise<Report> => {
    const r = await runProgram('meshctl', ['x', 'simulate', '-f', dir, '-p', 'default/productpage-v1', '-o', 'json', ...args]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Report;
  };

  it('given the app calling the egress bind 127.0.0.1:9080 should walk the bound listener to reviews', async () => {
    const r = await run(['--address', '127.0.0.1', '--request', "GET http://reviews:9080/reviews/1 -H 'end-user: jason'"]);
    assert.equal(r.result.outcome, 'routed');
    assert.equal(r.result.listener, '127.0.0.1_9080');
    assert.deepEqual(r.result.clusters?.map((c) => c.name), ['outbound|9080|v2|reviews.default.svc.cluster.local']);
  });

  it("given the app calling over the egress unix socket (--unix-socket in the request, as curl) should walk the pipe listener and its route configuration (reviews on 9080 takes the catch-all there, as istiod's)", async () => {
    const r = await run(['--request', "GET http://reviews:9080/reviews/1 -H 'end-user: jason' --unix-socket /var/run/mesh/egress.sock"]);
    assert.equal(r.result.outcome, 'routed');
    assert.equal(r.result.listener, 'unix:///var/run/mesh/egress.sock_0');
    assert.equal((r.result as { routeConfig?: string }).routeConfig, 'unix:///var/run/mesh/egress.sock');
    assert.deepEqual(r.result.clusters?.map((c) => c.name), ['PassthroughCluster']);
  });

  it('given an inbound request to the captureMode NONE port should walk its own listener to the default endpoint, naming the Sidecar', async () => {
    const r = await run(['--inbound', 'http://productpage:9080/']);
    assert.equal(r.result.outcome, 'routed');
    assert.equal(r.result.listener, '10.0.0.1_9080');
    assert.deepEqual(r.result.clusters?.map((c) => [c.name, c.endpoints]), [['inbound|9080||', ['127.0.0.1:9081']]]);
    assert.ok(r.result.sources.some((s) => s.startsWith('Sidecar/default/productpage')), r.result.sources.join(', '));
  });
});
