import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

interface Finding {
  readonly code: string;
  readonly origin: string;
  readonly reference: string;
  readonly message: string;
}

describe('e2e: meshctl analyze against a real API server plus local files', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let client: OrchClient;
  let ns: string;
  let dir: string;

  const vs = (name: string, host: string, subset?: string): Record<string, unknown> => ({
    apiVersion: 'networking.mesh.io/v1',
    kind: 'VirtualService',
    metadata: { name, namespace: ns },
    spec: { hosts: [`${name}.example.com`], http: [{ route: [{ destination: { host, ...(subset ? { subset } : {}) } }] }] },
  });

  before(async () => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    ns = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-analyze');
    await applyCrds(client, renderCrds());
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'reviews', namespace: ns }, spec: { selector: { app: 'reviews' }, ports: [{ name: 'http', port: 9080 }] } },
    });
    await client.request('POST', `/apis/networking.mesh.io/v1/namespaces/${ns}/destinationrules`, {
      body: { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', metadata: { name: 'reviews', namespace: ns }, spec: { host: 'reviews', subsets: [{ name: 'v1', labels: { version: 'v1' } }] } },
    });
    // NOTE: routes to a host the cluster does not have; the local file below replaces it.
    await client.request('POST', `/apis/networking.mesh.io/v1/namespaces/${ns}/virtualservices`, { body: vs('cluster-vs', 'ratings') });
    dir = mkdtempSync(join(tmpdir(), 'e2e-analyze-'));
  });

  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (ns) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), ns);
  });

  const analyze = async (...args: string[]): Promise<{ code: number; findings: Finding[]; err: string }> => {
    const io = bufferIo({ TERM: 'dumb', HOME: dir });
    const code = await runCli(meshctlCommand(), ['analyze', '--orchconfig', e2eCluster().kubeconfigPath, '-n', ns, '-o', 'json', ...args], io);
    const findings = (JSON.parse(io.out() || '[]') as Finding[]).filter((f) => f.origin.includes(`${ns}/`));
    return { code, findings, err: io.err() };
  };

  it('given the cluster alone should report the cluster VirtualService to a missing host, without a file reference', async () => {
    const r = await analyze();
    assert.deepEqual(
      r.findings.map((f) => [f.code, f.origin, f.reference]),
      [
        // NOTE: no pod runs behind the cluster's DestinationRule subset (this API server has no kubelet).
        ['IST0173', `DestinationRule ${ns}/reviews`, ''],
        ['IST0101', `VirtualService ${ns}/cluster-vs`, ''],
      ],
      r.err,
    );
    assert.equal(r.code, 79);
    assert.match(r.findings[1]!.message, /Referenced host not found: "ratings"/);
  });

  it('given local files should lay them over the cluster (a file wins over the object of the same name) and name file and line', async () => {
    const fixed = join(dir, 'fixed.yaml');
    writeFileSync(fixed, `${JSON.stringify(vs('cluster-vs', 'reviews'))}\n`);
    const extra = join(dir, 'extra.yaml');
    writeFileSync(extra, `# a new route, to a subset the cluster's DestinationRule lacks\n${JSON.stringify(vs('file-vs', 'reviews', 'v9'))}\n`);
    const r = await analyze(fixed, extra);
    assert.deepEqual(
      r.findings.map((f) => [f.code, f.origin, f.reference]),
      [
        ['IST0173', `DestinationRule ${ns}/reviews`, ''],
        ['IST0101', `VirtualService ${ns}/file-vs`, `${extra}:2`],
      ],
      r.err,
    );
    assert.match(r.findings[1]!.message, /host\+subset in destinationrule not found: "reviews\+v9"/);
  });

  it('given suppressions of the cluster findings should show none of them', async () => {
    const r = await analyze('-S', `IST0101=VirtualService ${ns}/*`, '-S', 'IST0173=DestinationRule *', '--output-threshold', 'Error');
    assert.deepEqual(r.findings, []);
  });
});
