// `meshctl x translate` and `meshctl x simulate` (the real bin/meshctl process) on two teams that each declare
// api.stripe.com privately (exportTo "."): each team's sidecar gets the cluster with its own endpoint, a third
// namespace neither (istiod's per-namespace SidecarScope).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runProgram } from '../testing/program-process.js';

const HOST = 'api.stripe.com';
const CLUSTER = `outbound|443||${HOST}`;

function team(ns: string, created: string, endpoint: string, client: string): string {
  return `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: stripe, namespace: ${ns}, creationTimestamp: "${created}" }
spec: { hosts: [${HOST}], exportTo: ["."], location: MESH_EXTERNAL, ports: [{ number: 443, name: tls, protocol: TLS }], resolution: STATIC, endpoints: [{ address: ${endpoint} }] }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${ns.slice(-1)}-client, namespace: ${ns} }
spec: { address: ${client}, labels: { app: client }, serviceAccount: client }
`;
}

const FILE = [team('team-a', '2026-01-01T00:00:00Z', '127.0.1.1', '10.1.0.1'), team('team-b', '2026-02-01T00:00:00Z', '127.0.2.1', '10.2.0.1'), team('team-c', '2026-03-01T00:00:00Z', '127.0.3.1', '10.3.0.1').split('---\n')[1]!].join('---\n');

interface Dump {
  configs: Record<string, unknown>[];
}

describe('meshctl x translate / x simulate: one host declared privately by two namespaces', function () {
  this.timeout(60_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-hostns-'));
    writeFileSync(join(dir, 'teams.yaml'), FILE);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const translated = async (proxy: string): Promise<{ clusters: string[]; endpoints: string[] }> => {
    const r = await runProgram('meshctl', ['x', 'translate', '-f', join(dir, 'teams.yaml'), '--proxy', proxy]);
    assert.equal(r.code, 0, r.stderr);
    const dump = JSON.parse(r.stdout) as Dump;
    const clusters = (dump.configs[2]!['dynamic_active_clusters'] as { cluster: { name: string } }[]).map((c) => c.cluster.name).filter((n) => n.endsWith(`|${HOST}`));
    const las = (dump.configs[3]!['dynamic_endpoint_configs'] as { endpoint_config: { cluster_name: string; endpoints?: { lb_endpoints?: { endpoint: { address: { socket_address: { address: string } } } }[] }[] } }[] | undefined) ?? [];
    const endpoints = las
      .filter((e) => e.endpoint_config.cluster_name === CLUSTER)
      .flatMap((e) => (e.endpoint_config.endpoints ?? []).flatMap((l) => (l.lb_endpoints ?? []).map((x) => x.endpoint.address.socket_address.address)));
    return { clusters, endpoints };
  };

  it('given translate for a client of team-a, team-b and team-c should give team-a and team-b the cluster with their own endpoint, team-c none', async () => {
    const got = await Promise.all(['team-a/a-client', 'team-b/b-client', 'team-c/c-client'].map(translated));
    assert.deepEqual(got, [
      { clusters: [CLUSTER], endpoints: ['127.0.1.1'] },
      { clusters: [CLUSTER], endpoints: ['127.0.2.1'] },
      { clusters: [], endpoints: [] },
    ]);
  });

  it('given simulate from team-b under REGISTRY_ONLY should route TLS to api.stripe.com through team-b\'s own cluster and endpoint', async () => {
    const mesh = join(REPO_ROOT, 'examples/bookinfo-sidecar/mesh-config/registry-only.yaml');
    const r = await runProgram('meshctl', ['x', 'simulate', '-f', join(dir, 'teams.yaml'), '-p', 'team-b/b-client', '--meshConfigFile', mesh, '--address', '203.0.113.7', '-o', 'json', `tls://${HOST}:443`]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { result: { outcome: string; clusters?: { name: string; endpoints: string[] }[] } };
    assert.equal(report.result.outcome, 'routed');
    assert.deepEqual(report.result.clusters?.map((x) => `${x.name} -> ${x.endpoints.join(',')}`), [`${CLUSTER} -> 127.0.2.1:443`]);
  });
});
