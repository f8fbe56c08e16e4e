import { randomBytes } from 'node:crypto';
import type { CoreV1Api } from '@kubernetes/client-node';
import { e2eCluster } from './e2e-cluster.js';

/** A DNS-label name with a random suffix, e.g. `e2e-informer-1a2b3c4d`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** The HTTP status of a `@kubernetes/client-node` ApiException, or undefined. */
export function httpStatusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Creates a namespace with a unique name and returns the name. */
export async function createTestNamespace(core: CoreV1Api, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name, labels: { 'mesh.io/e2e': 'true' } } } });
  return name;
}

/**
 * Deletes a namespace. On the harness's own control plane, where no controller-manager runs to finalize it,
 * also removes its `kubernetes` finalizer so it is really gone (its objects stay in etcd; names are unique
 * per test). On an existing cluster its namespace controller does that. Ignores 404.
 */
export async function deleteNamespaceFully(core: CoreV1Api, name: string): Promise<void> {
  try {
    await core.deleteNamespace({ name });
    if (e2eCluster().controlPlane === undefined) return;
    const ns = await core.readNamespace({ name });
    await core.replaceNamespaceFinalize({ name, body: { ...ns, spec: { finalizers: [] } } });
  } catch (err) {
    if (httpStatusOf(err) !== 404) throw err;
  }
}
