/**
 * A real etcd and kube-apiserver for the benchmarks (the e2e harness's TestControlPlane), with the CRDs
 * of both servers installed (mesh.io for meshd, the same kinds renamed to istio.io for istiod) and the
 * namespaces created. istiod needs an API server even when it reads config files; with `--source kube`
 * both servers watch it.
 */
import { fileURLToPath } from 'node:url';
import { OrchApiError, OrchClient } from '../../controllers/index.js';
import { renderCrds } from '../../crds/index.js';
import { applyCrds, ensureTestBinaries, TestControlPlane } from '../../e2e/harness/index.js';
import { istioCrds } from './xds/istio-rename.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A started API server for a benchmark run. */
export interface BenchCluster {
  readonly kubeconfigPath: string;
  /** An admin client (JSON, high rate limits: the benchmark's writes are not what is measured). */
  readonly client: OrchClient;
  stop(): Promise<void>;
}

/** Creates a namespace; one that exists already is fine. */
export async function ensureNamespace(client: OrchClient, name: string): Promise<void> {
  try {
    await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  } catch (err) {
    if (!(err instanceof OrchApiError && err.status === 409)) throw err;
  }
}

/** Starts etcd and kube-apiserver, installs both CRD sets and creates `namespaces`. */
export async function startBenchCluster(namespaces: readonly string[], log: (line: string) => void): Promise<BenchCluster> {
  const binaries = await ensureTestBinaries(REPO_ROOT);
  log('kube: starting etcd and kube-apiserver (e2e harness)');
  const plane = await TestControlPlane.start({ binaries });
  try {
    const client = new OrchClient(plane.kubeConfig(), { qps: 5000, burst: 10_000, contentType: 'json' });
    const mesh = renderCrds();
    await applyCrds(client, [...mesh, ...istioCrds(mesh)]);
    for (const ns of namespaces) await ensureNamespace(client, ns);
    log(`kube: API server ${plane.server} ready, CRDs installed, ${namespaces.length} namespaces`);
    return { kubeconfigPath: plane.kubeconfigPath, client, stop: () => plane.stop() };
  } catch (err) {
    await plane.stop();
    throw err;
  }
}
