import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { AuthenticationV1Api, CoreV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { e2eCluster, waitFor } from './harness/index.js';

function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** The HTTP status of a client-node ApiException, or undefined. */
function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Deletes a namespace and, since no controller-manager runs to finalize it, removes its `kubernetes`
 * finalizer so it is really gone.
 */
async function deleteNamespaceFully(core: CoreV1Api, name: string): Promise<void> {
  try {
    await core.deleteNamespace({ name });
    const ns = await core.readNamespace({ name });
    await core.replaceNamespaceFinalize({ name, body: { ...ns, spec: { finalizers: [] } } });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
}

describe('e2e: the test control plane', () => {
  let kc: KubeConfig;
  let core: CoreV1Api;

  before(() => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });

  it('given the harness started the cluster, should answer /version with a Kubernetes version', async () => {
    const version = await kc.makeApiClient(VersionApi).getCode();
    assert.match(version.gitVersion, /^v1\.\d+\.\d+/);
  });

  it('given a new namespace, should create, list and delete it', async () => {
    const name = uniqueName('e2e-ns');
    await core.createNamespace({ body: { metadata: { name, labels: { 'mesh.io/e2e': 'true' } } } });
    const listed = await core.listNamespace({ labelSelector: 'mesh.io/e2e=true' });
    assert.ok(listed.items.some((ns) => ns.metadata?.name === name), `namespace ${name} is not listed`);

    await core.deleteNamespace({ name });
    const terminating = await core.readNamespace({ name });
    assert.equal(terminating.status?.phase, 'Terminating');
    await core.replaceNamespaceFinalize({ name, body: { ...terminating, spec: { finalizers: [] } } });
    await waitFor(`namespace ${name} to be gone`, async () => {
      try {
        await core.readNamespace({ name });
        return false;
      } catch (err) {
        if (statusOf(err) === 404) return true;
        throw err;
      }
    });
  });

  describe('service-account tokens', () => {
    const namespace = uniqueName('e2e-sa');
    const serviceAccount = 'workload';

    before(async () => {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccount } } });
    });

    after(async () => {
      await deleteNamespaceFully(core, namespace);
    });

    it('given a TokenRequest for audience mesh-ca, should issue a token that TokenReview validates', async () => {
      const token = await core.createNamespacedServiceAccountToken({
        name: serviceAccount,
        namespace,
        body: { spec: { audiences: ['mesh-ca'], expirationSeconds: 600 } },
      });
      assert.ok(token.status?.token, 'the TokenRequest answered no token');

      const review = await kc.makeApiClient(AuthenticationV1Api).createTokenReview({
        body: { spec: { token: token.status.token, audiences: ['mesh-ca'] } },
      });
      assert.equal(review.status?.authenticated, true, `review error: ${review.status?.error ?? ''}`);
      assert.equal(review.status?.user?.username, `system:serviceaccount:${namespace}:${serviceAccount}`);
      assert.deepEqual(review.status?.audiences, ['mesh-ca']);
    });

    it('given a token for another audience, should not authenticate it for mesh-ca', async () => {
      const token = await core.createNamespacedServiceAccountToken({
        name: serviceAccount,
        namespace,
        body: { spec: { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 600 } },
      });
      const review = await kc.makeApiClient(AuthenticationV1Api).createTokenReview({
        body: { spec: { token: token.status!.token!, audiences: ['mesh-ca'] } },
      });
      assert.equal(review.status?.authenticated, false);
    });
  });
});
