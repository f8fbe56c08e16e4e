// Mocha root hooks for the e2e tier (registered by .mocharc.e2e.json): one cluster per run.
//
// By default the run starts its own etcd and kube-apiserver (building them with hack/k8s/build.sh when the
// cache has none). With MESH_E2E_USE_EXISTING=1 it targets the cluster of KUBECONFIG instead; tests that
// need to restart the API server skip there, saying why. MESH_E2E_KEEP_FILES=1 keeps the control plane's
// folder (etcd and kube-apiserver logs, kubeconfig) after the run.
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';
import { startE2eCluster, stopE2eCluster } from './harness/index.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function existingKubeconfig(): string | undefined {
  if (process.env['MESH_E2E_USE_EXISTING'] !== '1') return undefined;
  const path = process.env['KUBECONFIG'];
  if (!path) throw new Error('MESH_E2E_USE_EXISTING=1 needs KUBECONFIG to name the kubeconfig of the cluster to use');
  return path;
}

/** Root hooks: start the run's cluster before the first test and stop it after the last. */
export const mochaHooks = {
  async beforeAll(this: Context): Promise<void> {
    // NOTE: the first run builds kube-apiserver from source, which takes many minutes on 2 cores.
    this.timeout(60 * 60 * 1000);
    const cluster = await startE2eCluster({ repoRoot, existingKubeconfig: existingKubeconfig() });
    process.env['MESH_E2E_KUBECONFIG'] = cluster.kubeconfigPath;
  },
  async afterAll(this: Context): Promise<void> {
    this.timeout(60 * 1000);
    const kept = await stopE2eCluster({ keepFiles: process.env['MESH_E2E_KEEP_FILES'] === '1' });
    if (kept) console.log(`e2e control-plane files (logs, kubeconfig) kept in ${kept}`);
  },
};
