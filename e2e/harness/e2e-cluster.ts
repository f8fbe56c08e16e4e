import { KubeConfig } from '@kubernetes/client-node';
import { TestControlPlane } from './test-control-plane.js';
import { ensureTestBinaries } from './test-binaries.js';

/** The cluster every e2e test of one run talks to. */
export interface E2eCluster {
  /** Path of an admin kubeconfig for the cluster. */
  readonly kubeconfigPath: string;
  /** A fresh KubeConfig loaded from {@link E2eCluster.kubeconfigPath}. */
  kubeConfig(): KubeConfig;
  /** The harness's own control plane; undefined when the run targets an existing cluster. */
  readonly controlPlane: TestControlPlane | undefined;
}

/** How the run gets its cluster, read once from the environment by `e2e/hooks.ts`. */
export interface E2eClusterOptions {
  /** The repository root (where `hack/k8s/build.sh` lives). */
  readonly repoRoot: string;
  /** When set, target the cluster of this kubeconfig instead of starting one. */
  readonly existingKubeconfig: string | undefined;
}

let current: E2eCluster | undefined;

/** Starts (or attaches to) the run's cluster. Called once by the root `beforeAll` hook. */
export async function startE2eCluster(options: E2eClusterOptions): Promise<E2eCluster> {
  if (current) return current;
  if (options.existingKubeconfig !== undefined) {
    const path = options.existingKubeconfig;
    current = {
      kubeconfigPath: path,
      kubeConfig: () => {
        const kc = new KubeConfig();
        kc.loadFromFile(path);
        return kc;
      },
      controlPlane: undefined,
    };
    return current;
  }
  const binaries = await ensureTestBinaries(options.repoRoot);
  const plane = await TestControlPlane.start({ binaries });
  current = { kubeconfigPath: plane.kubeconfigPath, kubeConfig: () => plane.kubeConfig(), controlPlane: plane };
  return current;
}

/**
 * Stops the run's cluster when the harness started it. Called once by the root `afterAll` hook.
 * With `keepFiles` the control plane's folder (logs included) stays; its path is returned.
 */
export async function stopE2eCluster(options: { keepFiles?: boolean } = {}): Promise<string | undefined> {
  const cluster = current;
  current = undefined;
  await cluster?.controlPlane?.stop(options);
  return options.keepFiles ? cluster?.controlPlane?.dir : undefined;
}

/** The run's cluster; throws when the root hooks did not start one (run through `npm run test:e2e`). */
export function e2eCluster(): E2eCluster {
  if (!current) {
    throw new Error('no e2e cluster: run the e2e tests with `npm run test:e2e` (its root hooks start one)');
  }
  return current;
}
