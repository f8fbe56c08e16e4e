import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { caSecretRoot, chainVerifiesTo, SecureMeshd, serviceAccountToken } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, httpStatusOf } from './harness/index.js';

const RSA = { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } as const;

describe('e2e: meshd keeps its self-signed root across restarts (USE_CACERTS_FOR_SELF_SIGNED_CA)', function () {
  this.timeout(180_000);
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  const running: SecureMeshd[] = [];

  before(async () => {
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-carestart-mesh');
    appNs = await createTestNamespace(core, 'e2e-carestart-app');
    await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name: 'sa1' } } });
  });

  after(async () => {
    for (const m of running.splice(0)) await m.stop();
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given USE_CACERTS_FOR_SELF_SIGNED_CA, should keep the root in Secret cacerts and sign under it again after a restart', async () => {
    const env = { USE_CACERTS_FOR_SELF_SIGNED_CA: 'true' };
    const first = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env);
    running.push(first);
    const root = await caSecretRoot(core, meshNs, 'cacerts');
    const own = await core.readNamespacedSecret({ name: 'mesh-ca-secret', namespace: meshNs }).then(() => 200, (err: unknown) => httpStatusOf(err));
    assert.equal(own, 404, 'mesh-ca-secret is not written when cacerts is chosen');
    await first.stop();

    const second = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env);
    running.push(second);
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    const client = second.certificateClient(root, { token: () => token });
    try {
      const issued = await client.requestCertificate({ identity: `spiffe://cluster.local/ns/${appNs}/sa/sa1` }, RSA);
      assert.ok(chainVerifiesTo(issued.certChainPem, root), 'the restarted meshd signs under the stored root');
    } finally {
      client.close();
    }
    assert.equal(await caSecretRoot(core, meshNs, 'cacerts'), root, 'the stored root is unchanged');
  });
});
