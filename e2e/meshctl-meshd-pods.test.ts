/**
 * `meshctl admin log` and `meshctl version` against a real API server: meshd pods are objects there (no
 * kubelet runs them), found by label in --meshNamespace as in a cluster; a direct dialer stands in for the
 * API server's port-forward and maps the running pod's ports 15014 and 9876 to a local meshd (a real
 * `pilot-discovery discovery` process). Everything above the dialer is real.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { startFileMeshd, type FileMeshd } from '../xds/testing/file-meshd.js';
import { OrchClient } from '../controllers/index.js';
import { buildInfo } from '../core/index.js';
import { directDialer } from '../inspect/index.js';
import { TYPE_URL } from '../xds/protos/index.js';
import { AdsClient } from '../xds/testing/ads-client.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

async function createPod(client: OrchClient, ns: string, name: string, labels: Record<string, string>, phase: string): Promise<void> {
  await client.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'discovery', image: 'meshd:1' }] } },
  });
  const pod = await client.request<Record<string, unknown>>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  await client.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, { body: { ...pod, status: { phase, podIP: '10.0.0.7' } } });
}

interface Scope {
  name: string;
  output_level: string;
  stack_trace_level: string;
}

describe('e2e: meshctl admin log and version through meshd pods', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let meshNs: string;
  let emptyNs: string;
  let dir: string;
  let meshd: FileMeshd | undefined;
  let ports: { grpc: number; monitoring: number; ctrlz: number };
  const dialed: string[] = [];

  before(async () => {
    kc = e2eCluster().kubeConfig();
    const client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    const core = kc.makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-meshd-pods');
    emptyNs = await createTestNamespace(core, 'e2e-no-meshd');
    await createPod(client, meshNs, 'meshd-a', { app: 'meshd', 'mesh.io/rev': 'default' }, 'Running');
    await createPod(client, meshNs, 'meshd-b', { app: 'meshd', 'mesh.io/rev': 'default' }, 'Pending');
    await createPod(client, meshNs, 'other', { app: 'other' }, 'Running');
    dir = mkdtempSync(join(tmpdir(), 'e2e-meshd-pods-'));
    writeFileSync(join(dir, 'se.yaml'), 'apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: echo, namespace: qs }\nspec: { hosts: [echo.qs.svc.cluster.local], ports: [{ number: 80, name: http, protocol: HTTP }], resolution: STATIC, endpoints: [{ address: 10.0.0.1 }] }\n');
    meshd = await startFileMeshd({ configDir: dir });
    ports = meshd.ports;
  });

  after(async () => {
    await meshd?.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    const core = kc.makeApiClient(CoreV1Api);
    for (const ns of [meshNs, emptyNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  async function meshctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    // NOTE: the stand-in for pods/portforward: only meshd-a's monitoring and ctrlz ports lead anywhere.
    const podDialer = directDialer((pod, port) => {
      dialed.push(`${pod.name}.${pod.namespace}:${port}`);
      if (pod.name !== 'meshd-a' || pod.namespace !== meshNs) return undefined;
      return port === 15014 ? { host: '127.0.0.1', port: ports.monitoring } : port === 9876 ? { host: '127.0.0.1', port: ports.ctrlz } : undefined;
    });
    const io = bufferIo();
    const code = await runCli(meshctlCommand({ podDialer }), [...args, '--orchconfig', e2eCluster().kubeconfigPath], io);
    return { code, out: io.out(), err: io.err() };
  }
  const scopes = async (): Promise<Scope[]> => {
    const r = await meshctl('admin', 'log', '-i', meshNs, '-o', 'json');
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as Scope[];
  };
  const ads = async (): Promise<[string, string]> => {
    const s = (await scopes()).find((x) => x.name === 'ads')!;
    return [s.output_level, s.stack_trace_level];
  };

  it('given meshd pods matching app=meshd should list the running one\'s scopes, as a table and as JSON', async () => {
    dialed.length = 0;
    const table = await meshctl('admin', 'log', '-i', meshNs);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^ACTIVE SCOPE +LOG LEVEL +STACK TRACE LEVEL\n/);
    assert.match(table.out, /^ads +info +none$/m);
    assert.deepEqual([...new Set(dialed)], [`meshd-a.${meshNs}:9876`], 'only the running meshd pod, on the ctrlz port');
    assert.ok((await scopes()).some((s) => s.name === 'default'));
  });

  it('given --level and --stack-trace-level should set them on meshd, and --reset should put every scope back to info/none', async () => {
    const set = await meshctl('admin', 'log', '-i', meshNs, '--level', 'ads:debug,model:warn', '--stack-trace-level', 'ads:error');
    assert.equal(set.code, 0, set.err);
    assert.deepEqual(await ads(), ['debug', 'error']);
    assert.equal((await scopes()).find((s) => s.name === 'model')?.output_level, 'warn');
    const all = await meshctl('admin', 'log', `meshd-a.${meshNs}`, '--level', 'debug,ads:error');
    assert.equal(all.code, 0, all.err);
    assert.ok((await scopes()).every((s) => s.output_level === (s.name === 'ads' ? 'error' : 'debug')), 'a bare level sets every scope, a named one wins');
    const reset = await meshctl('admin', 'log', '-i', meshNs, '--reset');
    assert.equal(reset.code, 0, reset.err);
    assert.ok((await scopes()).every((s) => s.output_level === 'info' && s.stack_trace_level === 'none'));
  });

  const failures: { name: string; args: (ns: string) => string[]; err: (ns: string) => RegExp }[] = [
    { name: 'an unknown level', args: (ns) => ['admin', 'log', '-i', ns, '--level', 'ads:loud'], err: () => /--level "ads:loud": unknown level "loud"/ },
    { name: 'an unknown scope', args: (ns) => ['admin', 'log', '-i', ns, '--level', 'nosuch:debug'], err: () => /meshd pod meshd-a\.[a-z0-9-]+: setting scope nosuch: HTTP 404: unknown scope "nosuch"/ },
    { name: 'a pod that does not exist', args: (ns) => ['admin', 'log', `nosuch.${ns}`], err: (ns) => new RegExp(`pod nosuch\\.${ns} not found`) },
    { name: 'a namespace without meshd', args: () => ['admin', 'log', '-i', emptyNs], err: () => /no running meshd pod in namespace e2e-no-meshd-[a-z0-9-]+ matches app=meshd/ },
    { name: 'a selector matching a pod the dialer cannot reach', args: (ns) => ['admin', 'log', '-i', ns, '-l', 'app=other'], err: (ns) => new RegExp(`cannot reach pod other\\.${ns} port 9876`) },
  ];
  for (const f of failures) {
    it(`given ${f.name} should fail naming it`, async () => {
      const r = await meshctl(...f.args(meshNs));
      assert.equal(r.code, 1, r.out);
      assert.match(r.err, f.err(meshNs));
    });
  }

  it("given a running meshd pod should print the client's and the control plane's versions (and no proxies)", async () => {
    const v = buildInfo().version;
    const short = await meshctl('version', '-s', '-i', meshNs);
    assert.deepEqual(short, { code: 0, out: `client version: ${v}\ncontrol plane version: ${v}\ndata plane version: none\n`, err: '' });
    const json = await meshctl('version', '-i', meshNs, '-o', 'json');
    assert.equal(json.code, 0, json.err);
    const doc = JSON.parse(json.out) as { clientVersion: { version: string }; meshVersion: { Component: string; Pod: string; Revision: string; Info: { version: string; revision: string } }[]; dataPlaneVersion: unknown[] };
    assert.equal(doc.clientVersion.version, v);
    assert.deepEqual(doc.meshVersion.map((m) => [m.Component, m.Pod, m.Revision, m.Info.version, m.Info.revision]), [['meshd', `meshd-a.${meshNs}`, 'default', v, buildInfo().gitCommit]]);
    assert.deepEqual(doc.dataPlaneVersion, []);
    const long = await meshctl('version', '-i', meshNs);
    assert.match(long.out, new RegExp(`^control plane version: meshd-a\\.${meshNs}: version\\.BuildInfo\\{Version:"${v.replace(/\./g, '\\.')}"`, 'm'));
  });

  it('given no meshd pod (or another revision) should print the client version, say so on stderr, and exit 0', async () => {
    for (const args of [['-i', emptyNs], ['-i', meshNs, '--revision', 'canary']]) {
      const r = await meshctl('version', '-s', ...args);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, `client version: ${buildInfo().version}\n`);
      assert.match(r.err, /^control plane: no running meshd pod in namespace e2e-[a-z0-9-]+ \(label app=meshd(, revision canary)?\)\n$/);
    }
  });

  it('given a connected proxy should list its sync state per type (proxy-status), and compare a config dump with what meshd sends it', async () => {
    const proxy = new AdsClient({ address: `127.0.0.1:${ports.grpc}`, node: { id: 'sidecar~10.0.0.5~web-1.qs~qs.svc.cluster.local', metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs', MESH_VERSION: '1.2.3' } }, autoAck: true });
    try {
      proxy.subscribe(TYPE_URL.cluster);
      await proxy.waitFor('CDS', () => proxy.latest(TYPE_URL.cluster));
      let table = '';
      for (const end = Date.now() + 20_000; !/^web-1\.qs +SYNCED +IGNORED +IGNORED +IGNORED +IGNORED +meshd-a\.\S+ +1\.2\.3$/m.test(table); ) {
        if (Date.now() > end) assert.fail(`no SYNCED row for web-1.qs:\n${table}`);
        const r = await meshctl('ps', '-i', meshNs);
        assert.equal(r.code, 0, r.err);
        table = r.out;
      }
      assert.match(table, /^NAME +CDS +LDS +EDS +RDS +ECDS +MESHD +VERSION\n/);

      const dump = await (await fetch(`http://127.0.0.1:${ports.monitoring}/debug/config_dump?proxyID=web-1.qs`)).text();
      const file = join(dir, 'dump.json');
      writeFileSync(file, dump);
      const same = await meshctl('proxy-status', 'web-1.qs', '-f', file, '-i', meshNs);
      assert.equal(same.code, 0, same.err);
      assert.equal(same.out, 'Clusters Match\nListeners Match\nRoutes Match\n');
      const edited = JSON.parse(dump) as { configs: { '@type': string; dynamic_active_clusters?: { cluster: Record<string, unknown> }[] }[] };
      const clusters = edited.configs.find((c) => c['@type'].endsWith('ClustersConfigDump'))!.dynamic_active_clusters!;
      const name = String(clusters[0]!.cluster['name']);
      clusters[0]!.cluster['connect_timeout'] = '42s';
      writeFileSync(file, JSON.stringify(edited));
      const differs = await meshctl('ps', 'web-1.qs', '-f', file, '-i', meshNs);
      assert.equal(differs.code, 0, differs.err);
      assert.equal(differs.out, `Clusters Don't Match\n  ${name}: differs\nListeners Match\nRoutes Match\n`);
    } finally {
      proxy.close();
    }
  });
});
