/** Whether the e2e harness's kube-apiserver and etcd are built already, for tests that skip without them. */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** True when kube-apiserver and etcd are built (building them takes ~15 minutes: not in a unit run; see hack/k8s/build.sh). */
export function kubeTestBinariesBuilt(): boolean {
  const base = process.env.MESH_TEST_BIN_DIR ?? join(homedir(), '.cache', 'mesh', 'test-bin');
  if (!existsSync(base)) return false;
  return readdirSync(base).some((d) => d.startsWith('k8s-') && existsSync(join(base, d, 'kube-apiserver')) && existsSync(join(base, d, 'etcd')));
}
