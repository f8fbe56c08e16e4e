import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { directDialer } from '../inspect/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import type { MeshctlDeps } from '../cli/meshctl/meshctl-reach.js';
import { proxyDumpFixture } from '../cli/meshctl/testing/proxy-dump-fixture.js';
import { startEnvoyAdminStandIn, type EnvoyAdminStandIn } from '../cli/meshctl/testing/envoy-admin-stand-in.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, waitFor } from './harness/index.js';
import { createPod } from './harness/pods.js';

/** An inbound listener with an HTTP RBAC filter holding two ALLOW policies and one DENY, as meshd names them. */
function rbacListener(): Record<string, unknown> {
  const rbac = (action: string, names: string[]): Record<string, unknown> => ({
    name: 'envoy.filters.http.rbac',
    typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC', rules: { action, policies: Object.fromEntries(names.map((n) => [n, { permissions: [{ any: true }], principals: [{ any: true }] }])) } },
  });
  return {
    active_state: {
      listener: {
        name: 'virtualInbound-rbac',
        address: { socket_address: { address: '0.0.0.0', port_value: 15006 } },
        filter_chains: [
          {
            filters: [
              {
                name: 'envoy.filters.network.http_connection_manager',
                typed_config: {
                  http_filters: [
                    rbac('DENY', ['ns[default]-policy[deny-delete]-rule[0]']),
                    rbac('ALLOW', ['ns[default]-policy[allow-get]-rule[0]', 'ns[default]-policy[allow-get]-rule[1]', 'ns[mesh-system]-policy[mesh-wide]-rule[0]']),
                    { name: 'envoy.filters.http.router' },
                  ],
                },
              },
            ],
          },
        ],
      },
    },
  };
}

describe('e2e: meshctl proxy-config, x dataplane-stats, x authz check and dashboard on pods of a real API server', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let ns: string;
  let standIn: EnvoyAdminStandIn;
  let deps: MeshctlDeps;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    const client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    ns = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-reach-live');
    await createPod(client, ns, 'productpage-v1-0', { app: 'productpage' }, 'Running');
    await createPod(client, ns, 'meshd-0', { app: 'meshd' }, 'Running');
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'productpage', namespace: ns }, spec: { selector: { app: 'productpage' }, ports: [{ port: 9080 }] } },
    });
    const { dump } = await proxyDumpFixture();
    const listeners = dump.configs.find((c) => String(c['@type']).endsWith('ListenersConfigDump')) as { dynamic_listeners: unknown[] };
    listeners.dynamic_listeners.push(rbacListener());
    standIn = await startEnvoyAdminStandIn(dump);
    // NOTE: no kubelet runs behind this API server, so port-forward cannot reach a pod; this dialer maps the
    // pods meshctl resolves (through the real API server) to the local stand-ins for Envoy's admin API, the
    // agent's status port and meshd's ControlZ. Everything above the dialer is the real code path.
    deps = {
      podDialer: directDialer((pod, port) => {
        if (pod.namespace !== ns) return undefined;
        if (pod.name === 'productpage-v1-0' && port === 15000) return { host: '127.0.0.1', port: standIn.adminPort };
        if (pod.name === 'productpage-v1-0' && port === 15020) return { host: '127.0.0.1', port: standIn.agentPort };
        if (pod.name === 'meshd-0' && port === 9876) return { host: '127.0.0.1', port: standIn.adminPort };
        return undefined;
      }),
    };
  });

  after(async () => {
    await standIn?.close();
    if (ns) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), ns);
  });

  const meshctl = async (args: string[], extra: MeshctlDeps = {}): Promise<{ code: number; out: string; err: string }> => {
    const io = bufferIo({ TERM: 'dumb', HOME: '/nonexistent' });
    const code = await runCli(meshctlCommand({ ...deps, ...extra }), [...args, '--orchconfig', e2eCluster().kubeconfigPath, '-n', ns, '--meshNamespace', ns], io);
    return { code, out: io.out(), err: io.err() };
  };
  const rows = (text: string): string[][] => text.trimEnd().split('\n').map((l) => l.split(/\s{2,}/));

  it('given svc/productpage should show the clusters of the proxy of the pod the service picked', async () => {
    const r = await meshctl(['proxy-config', 'cluster', 'svc/productpage', '--fqdn', 'ratings']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(rows(r.out), [['SERVICE FQDN', 'PORT', 'SUBSET', 'DIRECTION', 'TYPE', 'DESTINATION RULE'], ['ratings.default.svc.cluster.local', '9080', '-', 'outbound', 'EDS']]);
  });

  it('given a pod should read endpoints from the live /clusters (outlier state included)', async () => {
    const r = await meshctl(['pc', 'endpoint', 'productpage-v1-0', '--port', '3306']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(rows(r.out), [['ENDPOINT', 'STATUS', 'OUTLIER CHECK', 'CLUSTER'], ['10.0.3.1:3306', 'HEALTHY', 'FAILED', 'outbound|3306||mysqldb.data.svc.cluster.local']]);
  });

  it('given proxy-config log should read, set and reset Envoy log levels', async () => {
    const read = await meshctl(['pc', 'log', 'productpage-v1-0']);
    assert.equal(read.code, 0, read.err);
    assert.match(read.out, new RegExp(`^productpage-v1-0\\.${ns}:\\nactive loggers:\\n  admin: warning\\n`));
    const set = await meshctl(['pc', 'log', 'productpage-v1-0', '--level', 'http:debug,rbac:info']);
    assert.equal(set.code, 0, set.err);
    assert.deepEqual([standIn.levels.get('http'), standIn.levels.get('rbac'), standIn.levels.get('admin')], ['debug', 'info', 'warning']);
    assert.match(set.out, /  http: debug\n/);
    const reset = await meshctl(['pc', 'log', 'productpage-v1-0', '--reset']);
    assert.equal(reset.code, 0, reset.err);
    assert.deepEqual([...new Set(standIn.levels.values())], ['warning']);
  });

  it('given a bad level or an unknown logger should fail naming it, and change nothing', async () => {
    const bad = await meshctl(['pc', 'log', 'productpage-v1-0', '--level', 'loud']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /--level "loud": unknown level "loud"/);
    const unknown = await meshctl(['pc', 'log', 'productpage-v1-0', '--level', 'nosuch:debug']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.err, new RegExp(`POST /logging\\?nosuch=debug on pod productpage-v1-0\\.${ns} port 15000: HTTP 404`));
    assert.deepEqual([...new Set(standIn.levels.values())], ['warning']);
  });

  const stats: { args: string[]; want: RegExp }[] = [
    { args: [], want: /^server\.live: 1\n/ },
    { args: ['-o', 'json'], want: /"name": "server\.live"/ },
    { args: ['-o', 'yaml'], want: /- name: server\.live\n {4}value: 1/ },
    { args: ['-o', 'prom'], want: /^# TYPE envoy_server_live gauge/ },
    { args: ['-o', 'prom-merged'], want: /^# merged by the agent stand-in\napp_requests_total 7/ },
    { args: ['--type', 'clusters'], want: /::health_flags::healthy/ },
    { args: ['--type', 'clusters', '-o', 'json'], want: /"cluster_statuses"/ },
  ];
  for (const c of stats) {
    it(`given x dataplane-stats ${c.args.join(' ') || '(short)'} should print the proxy's stats`, async () => {
      const r = await meshctl(['x', 'dataplane-stats', 'productpage-v1-0', ...c.args]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, c.want);
    });
  }

  it('given x authz check on a pod should list the policies of its RBAC filters', async () => {
    const r = await meshctl(['x', 'authz', 'check', 'productpage-v1-0']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(rows(r.out), [['ACTION', 'AuthorizationPolicy', 'RULES'], ['DENY', 'deny-delete.default', '1'], ['ALLOW', 'allow-get.default', '2'], ['ALLOW', 'mesh-wide.mesh-system', '1']]);
  });

  const dashboards: { name: string; args: string[] }[] = [
    { name: 'given dashboard proxy <pod>', args: ['dashboard', 'proxy', 'productpage-v1-0'] },
    { name: 'given dashboard controlz without a target (meshd by its label in the mesh namespace)', args: ['dashboard', 'controlz'] },
  ];
  for (const c of dashboards) {
    it(`${c.name} should forward a local port to the pod, print the URL and stop when interrupted`, async () => {
      const stop = new AbortController();
      const io = bufferIo({ TERM: 'dumb', HOME: '/nonexistent' });
      const done = runCli(meshctlCommand({ ...deps, interrupt: stop.signal }), [...c.args, '--browser=false', '--address', '127.0.0.1', '--orchconfig', e2eCluster().kubeconfigPath, '-n', ns, '--meshNamespace', ns], io);
      try {
        const url = await waitFor('the dashboard URL on stdout', () => /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(io.out())?.[1]);
        const res = await fetch(`${url}/stats`);
        assert.equal(await res.text(), 'server.live: 1\ncluster.outbound|9080||reviews.default.svc.cluster.local.upstream_cx_total: 3\n');
      } finally {
        stop.abort();
      }
      assert.equal(await done, 0, io.err());
    });
  }

  it('given no -n should take the namespace of the kubeconfig context', async () => {
    const ctxKc = e2eCluster().kubeConfig();
    const current = ctxKc.getCurrentContext();
    const contexts = ctxKc.getContexts().map((c) => (c.name === current ? { ...c, namespace: ns } : c));
    ctxKc.loadFromOptions({ clusters: ctxKc.getClusters(), users: ctxKc.getUsers(), contexts, currentContext: current });
    const dir = mkdtempSync(join(tmpdir(), 'e2e-reach-ctx-'));
    try {
      const path = join(dir, 'kubeconfig');
      writeFileSync(path, ctxKc.exportConfig());
      const io = bufferIo({ TERM: 'dumb', HOME: '/nonexistent' });
      const code = await runCli(meshctlCommand(deps), ['pc', 'cluster', 'productpage-v1-0', '--fqdn', 'mysqldb', '--orchconfig', path], io);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /^mysqldb\.data\.svc\.cluster\.local\s+3306/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const failures: { args: string[]; want: (ns: string) => RegExp }[] = [
    { args: ['dashboard', 'topology-ui', '--browser=false'], want: (n) => new RegExp(`no pods match label app=kiali in namespace ${n}: is the topology UI \\(Kiali\\) installed\\?`) },
    { args: ['pc', 'cluster', 'nosuch'], want: (n) => new RegExp(`pod nosuch\\.${n} not found`) },
    { args: ['pc', 'listener', 'meshd-0'], want: (n) => new RegExp(`cannot reach pod meshd-0\\.${n} port 15000: no address known for it`) },
  ];
  for (const c of failures) {
    it(`given ${c.args.join(' ')} should fail with a clear error`, async () => {
      const r = await meshctl(c.args);
      assert.notEqual(r.code, 0);
      assert.match(r.err, c.want(ns));
    });
  }
});
