// e2e: `meshctl analyze` over two real API servers: the run's cluster holds a remote secret (label
// mesh/multiCluster=true in mesh-system) with a kubeconfig of a second control plane (its own etcd and
// kube-apiserver, started here), and a Service that differs between the two -> IST0170.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, ensureTestBinaries, TestControlPlane } from './harness/index.js';

interface Finding {
  readonly code: string;
  readonly origin: string;
  readonly reference: string;
  readonly message: string;
}

const REMOTE_CLUSTER = 'mesh-e2e-remote';
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('e2e: meshctl analyze across two API servers through a remote secret', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let local: OrchClient;
  let remotePlane: TestControlPlane | undefined;
  let remote: OrchClient;
  let ns: string;
  let dir: string;
  const secrets: string[] = [];

  const service = (name: string, ports: Array<{ name: string; port: number }>): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns },
    spec: { selector: { app: name }, ports },
  });

  /** A remote secret as `meshctl create-remote-secret` writes it: one kubeconfig under the cluster's name. */
  const createRemoteSecret = async (name: string, cluster: string, server: string, caPem: string, user: Record<string, unknown>): Promise<void> => {
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: cluster, cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
      users: [{ name: cluster, user }],
      contexts: [{ name: cluster, context: { cluster, user: cluster } }],
      'current-context': cluster,
    };
    await local.request('POST', '/api/v1/namespaces/mesh-system/secrets', {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: 'mesh-system', labels: { 'mesh/multiCluster': 'true' } },
        data: { [cluster]: Buffer.from(JSON.stringify(kubeconfig)).toString('base64') },
      },
    });
    secrets.push(name);
  };

  before(async () => {
    kc = e2eCluster().kubeConfig();
    local = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    // NOTE: a second control plane of its own (etcd + kube-apiserver on free loopback ports); ~20-60 s on the shared cores.
    remotePlane = await TestControlPlane.start({ binaries: await ensureTestBinaries(repoRoot) });
    const remoteKc = remotePlane.kubeConfig();
    remote = new OrchClient(remoteKc, { qps: 100, burst: 200, contentType: 'json' });
    ns = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-analyze-mc');
    await remote.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    try {
      await local.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mesh-system' } } });
    } catch (e) {
      if (!(e instanceof OrchApiError && e.status === 409)) throw e;
    }
    for (const [client, extra] of [
      [local, []],
      [remote, [{ name: 'grpc', port: 9090 }]],
    ] as const) {
      await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: service('reviews', [{ name: 'http', port: 9080 }, ...extra]) });
      await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: service('ratings', [{ name: 'http', port: 9080 }]) });
    }
    const admin = remoteKc.getCurrentUser()!;
    await createRemoteSecret(`mesh-remote-secret-${ns}`, REMOTE_CLUSTER, remotePlane.server, remotePlane.caPem, {
      'client-certificate-data': admin.certData,
      'client-key-data': admin.keyData,
    });
    dir = mkdtempSync(join(tmpdir(), 'e2e-analyze-mc-'));
  });

  after(async () => {
    for (const s of secrets) await local.request('DELETE', `/api/v1/namespaces/mesh-system/secrets/${s}`).catch(() => undefined);
    if (ns) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), ns);
    await remotePlane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const analyze = async (...args: string[]): Promise<{ code: number; findings: Finding[]; err: string }> => {
    const io = bufferIo({ TERM: 'dumb', HOME: dir });
    const code = await runCli(meshctlCommand(), ['analyze', '--orchconfig', e2eCluster().kubeconfigPath, '-n', ns, '-o', 'json', ...args], io);
    const findings = (JSON.parse(io.out() || '[]') as Finding[]).filter((f) => f.origin.includes(`${ns}/`));
    return { code, findings, err: io.err() };
  };

  it('given a Service whose ports differ in the remote cluster should report IST0170 naming both clusters, not the Service that agrees', async () => {
    const r = await analyze('-v');
    assert.deepEqual(
      r.findings.map((f) => [f.code, f.origin]),
      [['IST0170', `Service ${ns}/reviews`]],
      r.err,
    );
    assert.equal(
      r.findings[0]!.message,
      `The service reviews in namespace "${ns}" is inconsistent across clusters ["mesh-e2e" "${REMOTE_CLUSTER}"], which can lead to undefined behaviors. The inconsistent behaviors are: service ports are inconsistent.`,
    );
    assert.match(r.err, /from 1 remote cluster\(s\)/);
    assert.equal(r.code, 0, 'a Warning is below the default failure threshold');
  });

  it('given a local file giving the Service the remote ports should report nothing (files are laid over the local cluster)', async () => {
    const fixed = join(dir, 'reviews.yaml');
    writeFileSync(fixed, JSON.stringify(service('reviews', [{ name: 'http', port: 9080 }, { name: 'grpc', port: 9090 }])));
    const r = await analyze(fixed);
    assert.deepEqual(r.findings, [], r.err);
  });

  it('given a second remote secret to an API server that does not answer should name it, still compare the reachable cluster, and exit non-zero', async () => {
    // NOTE: port 1 on loopback refuses connections at once.
    await createRemoteSecret(`mesh-remote-secret-down-${ns}`, 'mesh-e2e-down', 'https://127.0.0.1:1', remotePlane!.caPem, { token: 'unused' });
    const r = await analyze();
    assert.deepEqual(
      r.findings.map((f) => [f.code, f.origin]),
      [['IST0170', `Service ${ns}/reviews`]],
      r.err,
    );
    assert.match(r.err, new RegExp(`Error: Secret mesh-system/mesh-remote-secret-down-${ns} key mesh-e2e-down: reading remote cluster "mesh-e2e-down": `));
    assert.notEqual(r.code, 0);
  });
});
