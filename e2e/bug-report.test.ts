import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { extract, list } from 'tar';
import { OrchClient } from '../controllers/index.js';
import { collectBugReport, directDialer, parseLogSpec } from '../inspect/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, generateClusterPki, uniqueName } from './harness/index.js';

/**
 * A stand-in kubelet: the API server serves `pods/log` by calling the node's kubelet over HTTPS
 * (`/containerLogs/<ns>/<pod>/<container>`); there is no kubelet on these machines, so a Node object points
 * the API server at this server on 127.0.0.1. It answers like a kubelet: timestamped lines from `sinceTime` on.
 */
class StandInKubelet {
  readonly queries: URLSearchParams[] = [];
  /** Pods whose log requests never get an answer (for the timeout). */
  readonly hang = new Set<string>();
  /** Log lines of a pod (`time<space>line`), instead of the three plain ones every other pod has. */
  readonly lines = new Map<string, string[]>();
  #server: Server;

  constructor(cert: { certPem: string; keyPem: string }) {
    this.#server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://kubelet');
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (!m) {
        res.writeHead(404).end();
        return;
      }
      const [, ns, pod, container] = m;
      this.queries.push(url.searchParams);
      if (this.hang.has(pod!)) return;
      const since = url.searchParams.get('sinceTime');
      const lines = this.lines.get(pod!) ?? [`2026-01-01T00:00:00Z old ${pod}/${container}`, `2026-06-01T00:00:00Z mid ${ns}/${pod}/${container}`, `2030-01-01T00:00:00Z future ${pod}/${container}`];
      const shown = lines.filter((l) => !since || Date.parse(l.slice(0, l.indexOf(' '))) >= Date.parse(since));
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${shown.join('\n')}\n`);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

describe('e2e: meshctl bug-report against a real API server (logs through pods/log from a stand-in kubelet)', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let client: OrchClient;
  let ns: string;
  let meshNs: string;
  let dir: string;
  let kubelet: StandInKubelet;
  const node = uniqueName('e2e-bug-report-node');

  async function pod(namespace: string, name: string, labels: Record<string, string>, containers: string[]): Promise<void> {
    const created = await client.request<Record<string, unknown>>('POST', `/api/v1/namespaces/${namespace}/pods`, {
      body: { metadata: { name, namespace, labels }, spec: { nodeName: node, containers: containers.map((c) => ({ name: c, image: 'example.invalid/x:1' })) } },
    });
    await client.request('PUT', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { body: { ...created, status: { phase: 'Running', podIP: '10.0.0.1' } } });
  }

  before(async () => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    const core = kc.makeApiClient(CoreV1Api);
    ns = await createTestNamespace(core, 'e2e-bug-report');
    meshNs = await createTestNamespace(core, 'e2e-bug-report-mesh');
    dir = mkdtempSync(join(tmpdir(), 'e2e-bug-report-'));
    kubelet = new StandInKubelet(generateClusterPki().serving);
    const port = await kubelet.listen();
    const created = await client.request<Record<string, unknown>>('POST', '/api/v1/nodes', { body: { metadata: { name: node } } });
    await client.request('PUT', `/api/v1/nodes/${node}/status`, {
      body: { ...created, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } },
    });
    await pod(ns, 'productpage-v1', { app: 'productpage' }, ['productpage', 'mesh-proxy']);
    await pod(ns, 'skipme', { app: 'skipme' }, ['mesh-proxy']);
    await pod(meshNs, 'meshd-1', { app: 'meshd' }, ['discovery']);
    await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'db' }, data: { password: Buffer.from('hunter2').toString('base64') } } });
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: 'productpage' }, spec: { selector: { app: 'productpage' }, ports: [{ name: 'http', port: 9080 }] } } });
  });

  after(async () => {
    await kubelet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    const core = kc.makeApiClient(CoreV1Api);
    if (ns) await deleteNamespaceFully(core, ns);
    if (meshNs) await deleteNamespaceFully(core, meshNs);
    await client.request('DELETE', `/api/v1/nodes/${node}`).catch(() => undefined);
  });

  const bugReport = async (out: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const io = bufferIo({ TERM: 'dumb', HOME: dir });
    const base = ['bug-report', '--orchconfig', e2eCluster().kubeconfigPath, '--mesh-namespace', meshNs, '--output-dir', out, '--dir', dir];
    const code = await runCli(meshctlCommand(), [...base, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  const unpack = async (out: string): Promise<{ listing: string[]; read: (p: string) => string }> => {
    const file = join(out, 'bug-report.tar.gz');
    const listing: string[] = [];
    await list({ file, onReadEntry: (e) => listing.push(e.path) });
    const into = mkdtempSync(join(dir, 'unpacked-'));
    await extract({ file, cwd: into });
    return { listing, read: (p) => readFileSync(join(into, p), 'utf8') };
  };

  it('given include/exclude specs and a time range should archive objects, meshd and selected proxy logs cut to the range, secrets redacted', async () => {
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await bugReport(out, '--include', ns, '--exclude', `${ns}//skipme`, '--start-time', '2026-03-01T00:00:00Z', '--end-time', '2029-01-01T00:00:00Z');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Wrote the archive .*bug-report\.tar\.gz/);
    assert.match(r.err, /Fetched log 2\/2/);
    const { listing, read } = await unpack(out);
    const mine = listing.filter((p) => p.startsWith('bug-report/logs/') || p.includes(`/${ns}/`) || p.includes(`/${meshNs}/`) || !p.startsWith('bug-report/resources/'));
    for (const want of [
      'bug-report/summary.txt',
      'bug-report/cluster/namespaces.yaml',
      'bug-report/cluster/nodes.yaml',
      'bug-report/cluster/mutatingwebhookconfigurations.yaml',
      'bug-report/cluster/validatingwebhookconfigurations.yaml',
      `bug-report/resources/${ns}/pods.yaml`,
      `bug-report/resources/${ns}/services.yaml`,
      `bug-report/resources/${ns}/secrets.yaml`,
      `bug-report/resources/${meshNs}/pods.yaml`,
      `bug-report/logs/${ns}/productpage-v1/mesh-proxy.log`,
      `bug-report/logs/${meshNs}/meshd-1/discovery.log`,
    ]) {
      assert.ok(mine.includes(want), `${want} missing from:\n${mine.join('\n')}`);
    }
    // NOTE: only proxies' logs (and meshd's): not the app container, not the excluded pod.
    assert.deepEqual(
      listing.filter((p) => p.startsWith('bug-report/logs/') && p.endsWith('.log')),
      [`bug-report/logs/${meshNs}/meshd-1/discovery.log`, `bug-report/logs/${ns}/productpage-v1/mesh-proxy.log`].sort(),
    );
    assert.equal(read(`bug-report/logs/${ns}/productpage-v1/mesh-proxy.log`), `2026-06-01T00:00:00Z mid ${ns}/productpage-v1/mesh-proxy\n`);
    assert.ok(kubelet.queries.some((q) => q.get('sinceTime') === '2026-03-01T00:00:00Z' && q.get('timestamps') === 'true'));
    const secrets = read(`bug-report/resources/${ns}/secrets.yaml`);
    assert.match(secrets, /password: <redacted>/);
    assert.ok(!secrets.includes(Buffer.from('hunter2').toString('base64')));
    const summary = read('bug-report/summary.txt');
    assert.match(summary, /secrets: data redacted/);
    assert.match(summary, /timed out: no/);
    // NOTE: no kubelet forwards ports here: the config dump fails through pods/portforward and is named, the rest is kept.
    assert.match(summary, new RegExp(`errors:\n(.*\n)*  GET :15000/config_dump on pod productpage-v1\\.${ns}: `));
  });

  it('given --full-secrets should keep the secret data', async () => {
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await bugReport(out, '--include', `${ns}/nothing`, '--full-secrets');
    assert.equal(r.code, 0, r.err);
    const { read } = await unpack(out);
    assert.match(read(`bug-report/resources/${ns}/secrets.yaml`), new RegExp(`password: ${Buffer.from('hunter2').toString('base64')}`));
  });

  it('given --dry-run should list what it would collect and write nothing', async () => {
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await bugReport(out, '--dry-run', '--include', ns, '--exclude', `${ns}//skipme`);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split('\n');
    assert.ok(lines.includes(`would collect logs/${ns}/productpage-v1/mesh-proxy.log: GET /api/v1/namespaces/${ns}/pods/productpage-v1/log?container=mesh-proxy`), r.out);
    assert.ok(lines.includes(`would collect logs/${meshNs}/meshd-1/discovery.log: GET /api/v1/namespaces/${meshNs}/pods/meshd-1/log?container=discovery`), r.out);
    assert.ok(!r.out.includes('skipme'), r.out);
    assert.ok(lines.includes(`would collect proxies/${ns}/productpage-v1/config_dump.json: GET :15000/config_dump on pod productpage-v1.${ns}`), r.out);
    assert.ok(lines.includes(`would collect meshd/meshd-1/debug/syncz.json: GET :8080/debug/syncz on pod meshd-1.${meshNs}`), r.out);
    assert.ok(lines.some((l) => l.startsWith('would collect resources/<namespace>/secrets.yaml: GET /api/v1/secrets') && l.endsWith('data redacted')), r.out);
    assert.equal(existsSync(join(out, 'bug-report.tar.gz')), false);
  });

  it('given --filename should apply the file over the flags (its include list replaces the flag\'s)', async () => {
    const out = mkdtempSync(join(dir, 'out-'));
    const file = join(dir, 'bug-report.yaml');
    writeFileSync(file, `dryRun: true\ninclude: ["${ns}//skipme"]\nexclude: []\n`);
    const r = await bugReport(out, '--include', `${ns}//productpage-v1`, '--filename', file);
    assert.equal(r.code, 0, r.err);
    const logs = r.out.split('\n').filter((l) => l.startsWith('would collect logs/'));
    assert.deepEqual(logs, [
      `would collect logs/${meshNs}/meshd-1/discovery.log: GET /api/v1/namespaces/${meshNs}/pods/meshd-1/log?container=discovery`,
      `would collect logs/${ns}/skipme/mesh-proxy.log: GET /api/v1/namespaces/${ns}/pods/skipme/log?container=mesh-proxy`,
    ].sort());
    assert.equal(existsSync(join(out, 'bug-report.tar.gz')), false);
  });

  it('given --duration with --start-time should refuse them before collecting anything', async () => {
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await bugReport(out, '--duration', '1h', '--start-time', '2026-03-01T00:00:00Z');
    assert.equal(r.code, 1);
    assert.match(r.err, /--duration and --start-time are mutually exclusive/);
    assert.equal(existsSync(join(out, 'bug-report.tar.gz')), false);
  });

  it('given a dialer to the pods (a local stand-in for the proxy admin and meshd debug ports) should archive config dumps and debug output', async () => {
    const seen: string[] = [];
    const standIn = createHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served: req.url }));
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    try {
      const port = (standIn.address() as AddressInfo).port;
      const reached: string[] = [];
      const dialer = directDialer((pod, podPort) => {
        reached.push(`${pod.name}.${pod.namespace}:${podPort}`);
        return { host: '127.0.0.1', port };
      });
      const include = [parseLogSpec(ns, 'include')];
      const result = await collectBugReport(client, {
        meshNamespace: meshNs,
        include,
        exclude: [parseLogSpec(`${ns}//skipme`, 'exclude')],
        fullSecrets: false,
        range: { end: new Date() },
        concurrency: 4,
        timeoutMs: 120_000,
        progress: () => undefined,
        dialer,
      });
      assert.deepEqual(result.errors, []);
      const byPath = new Map(result.entries.map((e) => [e.path, e.content]));
      assert.equal(byPath.get(`proxies/${ns}/productpage-v1/config_dump.json`), JSON.stringify({ served: '/config_dump' }));
      for (const d of ['syncz', 'configz', 'registryz', 'endpointz', 'connections', 'push_status']) {
        assert.equal(byPath.get(`meshd/meshd-1/debug/${d}.json`), JSON.stringify({ served: `/debug/${d}` }));
      }
      assert.ok(reached.includes(`productpage-v1.${ns}:15000`) && reached.includes(`meshd-1.${meshNs}:8080`), reached.join(' '));
      assert.ok(!reached.some((r) => r.startsWith('skipme.')), reached.join(' '));
    } finally {
      standIn.closeAllConnections();
      await new Promise<void>((resolve) => standIn.close(() => resolve()));
    }
  });

  it('given a log that never comes should stop at --timeout and keep what was captured', async () => {
    kubelet.hang.add('productpage-v1');
    const out = mkdtempSync(join(dir, 'out-'));
    const r = await bugReport(out, '--include', ns, '--timeout', '5s');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /Timed out after 5000 ms: keeping what was captured/);
    const { listing, read } = await unpack(out);
    assert.ok(!listing.includes(`bug-report/logs/${ns}/productpage-v1/mesh-proxy.log`));
    assert.match(read('bug-report/summary.txt'), /timed out: yes/);
  });

  it('given --critical-errs and --ignore-errs should rank the logs in the summary: the critical match first, ignored errors not counted', async () => {
    const other = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-bug-report-rank');
    try {
      await pod(other, 'noisy-v1', { app: 'noisy' }, ['mesh-proxy']);
      await pod(other, 'panicky-v1', { app: 'panicky' }, ['mesh-proxy']);
      await pod(other, 'warned-v1', { app: 'warned' }, ['mesh-proxy']);
      const t = '2026-06-01T00:00:00Z';
      // NOTE: Envoy's format for the proxies, the mesh programs' console and JSON formats below.
      kubelet.lines.set('noisy-v1', [1, 2, 3].map((i) => `${t} [2026-06-01 00:00:0${i}.000][20][error][pool] upstream connect error ${i}`));
      kubelet.lines.set('panicky-v1', [`${t} 2026-06-01T00:00:00.000000Z\twarn\tpanic: assignment to entry in nil map`]);
      kubelet.lines.set('warned-v1', [`${t} {"level":"error","time":"2026-06-01T00:00:00.000000Z","msg":"xds stream closed"}`, `${t} [2026-06-01 00:00:00.000][20][warning][config] slow`]);
      const out = mkdtempSync(join(dir, 'out-'));
      const r = await bugReport(out, '--include', other, '--critical-errs', 'panic*', '--ignore-errs', 'upstream connect*');
      assert.equal(r.code, 0, r.err);
      const summary = (await unpack(out)).read('bug-report/summary.txt');
      const ranking = summary.slice(summary.indexOf('logs by importance')).split('\n').slice(1).filter((l) => l.includes(`logs/${other}/`)).map((l) => l.trim());
      assert.deepEqual(ranking, [
        `critical  logs/${other}/panicky-v1/mesh-proxy.log  importance 10 (fatal 0, error 0, warn 1) matched "panic*"`,
        `errors    logs/${other}/warned-v1/mesh-proxy.log  importance 110 (fatal 0, error 1, warn 1)`,
        `clean     logs/${other}/noisy-v1/mesh-proxy.log  importance 0 (fatal 0, error 0, warn 0)`,
      ], summary);
      assert.match(summary, /critical errors: panic\*; ignored errors: upstream connect\*/);
      assert.match(r.err, new RegExp(`Most important logs:\n  critical  logs/${other}/panicky-v1/mesh-proxy.log`));
    } finally {
      await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), other);
    }
  });
});
