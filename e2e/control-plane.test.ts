import assert from 'node:assert/strict';
import { AuthenticationV1Api, CoreV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { deleteNamespaceFully, e2eCluster, httpStatusOf, uniqueName, waitFor } from './harness/index.js';

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
    if (e2eCluster().controlPlane) {
      // No controller-manager runs here: the namespace waits for its finalizer, which the test removes.
      const terminating = await core.readNamespace({ name });
      assert.equal(terminating.status?.phase, 'Terminating');
      await core.replaceNamespaceFinalize({ name, body: { ...terminating, spec: { finalizers: [] } } });
    }
    await waitFor(`namespace ${name} to be gone`, async () => {
      try {
        await core.readNamespace({ name });
        return false;
      } catch (err) {
        if (httpStatusOf(err) === 404) return true;
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
      // NOTE: the API server leaves `authenticated` out (false) and says why in `error`.
      assert.notEqual(review.status?.authenticated, true);
      assert.match(review.status?.error ?? '', /audience|invalid/i);
    });
  });
});
