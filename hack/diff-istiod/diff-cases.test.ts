import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { MeshModel } from '../../core/index.js';
import { simulateRequest } from '../../xds/index.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode } from '../../xds/generators/sidecar/testing/sidecar-mesh.js';
import { outcomeLine, routeHashShape, tcpHashShape } from './compare-configs.js';
import { DIFF_PROXIES, istiodDoc, readCaseDocs } from './diff-cases.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The model of every case's documents (built once: each test reads the sidecars of one case from it). */
let casesModel: MeshModel | undefined;
function allCases(): MeshModel {
  casesModel ??= sidecarModel(
    readCaseDocs(REPO_ROOT)
      .flatMap((f) => f.docs)
      .map((d) => stringify(d))
      .join('---\n'),
  );
  return casesModel;
}

/** What meshd gives the sidecar `client-0` of namespace `ns` at `ip` with `labels`. */
function caseSidecar(ns: string, ip: string, labels: Record<string, string>): ReturnType<typeof allSidecarResources> {
  const node = sidecarNode({
    id: `sidecar~${ip}~client-0.${ns}~${ns}.svc.cluster.local`,
    ipAddresses: [ip],
    podName: 'client-0',
    namespace: ns,
    dnsDomain: `${ns}.svc.cluster.local`,
    metadata: { LABELS: labels, NAMESPACE: ns },
  });
  const { proxy, snap } = sidecarAt(allCases(), node);
  return allSidecarResources(proxy, snap);
}

describe('diff:istiod cases (meshd side)', function () {
  this.timeout(120_000);

  it('given the wildcard DestinationRule case should route each request of diff-wild/client-0 to the subset its comment names', () => {
    const cfg = caseSidecar('diff-wild', '10.71.1.1', { app: 'wclient', version: 'v1', 'security.mesh.io/tlsMode': 'mesh' });
    const wild = DIFF_PROXIES.find((p) => p.name.startsWith('diff-wild/'))!;
    const want = [
      /^routed outbound\|8080\|pinned\|alpha\.diff-wild\.svc\.cluster\.local\(100\)\[10\.71\.0\.12:8080\]$/,
      /^routed outbound\|8080\|pinned\|beta\.diff-wild\.svc\.cluster\.local\(100\)\[10\.71\.0\.11:8080\]$/,
      /^routed outbound\|8080\|pinned\|svc\.api\.wild\.test\(100\)\[10\.71\.0\.12:8080\]$/,
      /^routed outbound\|8080\|pinned\|backend\.diff-drsel\.svc\.cluster\.local\(100\)\[10\.70\.0\.12:8080\]$/,
    ];
    assert.equal(wild.requests.length, want.length);
    wild.requests.forEach((r, i) => assert.match(outcomeLine(simulateRequest(cfg, r.request)), want[i]!, r.label));
  });

  it('given the same-host teams case should route each team\'s proxy to its own namespace\'s endpoint and diff-team-c\'s through', () => {
    const lines = (['a', 'b', 'c'] as const).map((team, i) => {
      const ns = `diff-team-${team}`;
      const cfg = caseSidecar(ns, `10.82.1.${i + 1}`, { app: 'client', version: 'v1' });
      const teams = DIFF_PROXIES.find((p) => p.name.startsWith(`${ns}/`))!;
      return teams.requests.map((r) => outcomeLine(simulateRequest(cfg, r.request)));
    });
    assert.deepEqual(lines, [
      ['routed outbound|443||api.stripe.com(100)[10.82.0.1:443]', 'routed outbound|8094||api.teams.test(100)[10.82.0.1:8094]'],
      ['routed outbound|443||api.stripe.com(100)[10.82.0.2:443]', 'routed outbound|8094||api.teams.test(100)[10.82.0.2:8094]'],
      ['routed PassthroughCluster(100)[203.0.113.50:443]', 'routed PassthroughCluster(100)[203.0.113.51:8094]'],
    ]);
  });

  it('given the Sidecar of diff-team-d importing diff-team-b/api.pick.test should route its proxy to diff-team-b\'s endpoint, diff-team-c\'s to the older diff-team-a\'s', () => {
    const teamD = caseSidecar('diff-team-d', '10.82.1.4', { app: 'client', version: 'v1' });
    const teamC = caseSidecar('diff-team-c', '10.82.1.3', { app: 'client', version: 'v1' });
    const pick = DIFF_PROXIES.find((p) => p.name.startsWith('diff-team-d/'))!.requests[0]!.request;
    assert.deepEqual(
      [outcomeLine(simulateRequest(teamD, pick)), outcomeLine(simulateRequest(teamC, pick))],
      ['routed outbound|8095||api.pick.test(100)[10.82.0.2:8095]', 'routed outbound|8095||api.pick.test(100)[10.82.0.1:8095]'],
    );
  });

  it('given the consistent hash case should put on diff-hash/client-0\'s routes the hash policies and retry host predicates its comment names', () => {
    const cfg = caseSidecar('diff-hash', '10.72.1.1', { app: 'hclient', version: 'v1', 'security.mesh.io/tlsMode': 'mesh' });
    const shape = (rc: string, host: string): string => {
      const vhs = (cfg.routes.find((r) => r['name'] === rc)?.['virtualHosts'] ?? []) as Record<string, unknown>[];
      const vh = vhs.find((v) => v['name'] === `${host}.diff-hash.svc.cluster.local:${rc}`);
      assert.ok(vh, `${host} on ${rc}`);
      return routeHashShape(vh);
    };
    const PREV = 'retryHosts=envoy.retry_host_predicates.previous_hosts';
    assert.equal(shape('8080', 'hheader'), `hash=[{"header":{"headerName":"x-user"}}] ${PREV}`);
    assert.equal(shape('8080', 'hcookie'), `hash=[{"cookie":{"name":"sticky","ttl":{"seconds":90,"nanos":0},"path":"/app","attributes":[{"name":"SameSite","value":"Strict"},{"name":"Secure"}]}}] ${PREV}`);
    assert.equal(shape('8080', 'hport'), `hash=[{"connectionProperties":{"sourceIp":true}}] ${PREV}`);
    assert.equal(shape('9090', 'hport'), `hash=[{"queryParameter":{"name":"session"}}] ${PREV}`);
    assert.deepEqual(shape('8080', 'hvs').split(' ; '), [
      'hash=[{"cookie":{"name":"v1-cookie","ttl":{"seconds":30,"nanos":0}}}] retryHosts=none',
      `hash=[{"cookie":{"name":"v1-cookie","ttl":{"seconds":30,"nanos":0}}},{"header":{"headerName":"x-top"}}] ${PREV}`,
      'hash=[{"queryParameter":{"name":"session"}}] retryHosts=none',
      'hash=[{"header":{"headerName":"x-top"}}] retryHosts=none',
    ]);
    assert.equal(shape('8080', 'hplain'), `hash=none ${PREV}`);
    assert.deepEqual(shape('8080', 'hring').split(' ; '), [`hash=none ${PREV} retryPriority=envoy.retry_priorities.previous_priorities/2`, 'hash=none retryHosts=none']);
    assert.deepEqual(shape('8080', 'hsrc').split(' ; '), [
      `hash=[{"cookie":{"name":"session","ttl":{"seconds":0,"nanos":0}}}] ${PREV}`,
      'hash=[{"connectionProperties":{"sourceIp":false}}] retryHosts=none',
    ]);
    const listener = (name: string): Record<string, unknown> => cfg.listeners.find((l) => l['name'] === name)!;
    assert.equal(tcpHashShape(listener('10.96.11.6_7000')), '[{"sourceIp":{}}]');
    assert.equal(tcpHashShape(listener('10.96.11.7_7001')), 'none');
  });

  it('given a document of meshd\'s root namespace should give istiod the same document in its root namespace, renamed', () => {
    const d = { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', metadata: { name: 'x', namespace: 'mesh-system' }, spec: { host: '*.cluster.local', trafficPolicy: { tls: { mode: 'MESH_MUTUAL' } } } };
    assert.deepEqual(istiodDoc(d), { apiVersion: 'networking.istio.io/v1', kind: 'DestinationRule', metadata: { name: 'x', namespace: 'istio-system' }, spec: { host: '*.cluster.local', trafficPolicy: { tls: { mode: 'ISTIO_MUTUAL' } } } });
    assert.equal((istiodDoc({ ...d, metadata: { name: 'x', namespace: 'diff-wild' } })['metadata'] as { namespace: string }).namespace, 'diff-wild');
  });
});
