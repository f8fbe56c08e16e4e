import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import type { CertificateClient } from '../ca/index.js';
import { ROOT_CERT_CONFIGMAP, ROOT_CERT_KEY } from '../reconcilers/index.js';
import { caSecretRoot, chainVerifiesTo, SecureMeshd, serviceAccountToken } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, httpStatusOf, waitFor } from './harness/index.js';

const RSA = { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } as const;

function bundleCerts(bundle: string): X509Certificate[] {
  return bundle.split(/(?=-----BEGIN CERTIFICATE-----)/).filter((p) => p.includes('BEGIN')).map((p) => new X509Certificate(p));
}

function firstCert(bundle: string): X509Certificate {
  return bundleCerts(bundle)[0]!;
}

function holds(bundle: string, cert: X509Certificate): boolean {
  return bundleCerts(bundle).some((c) => c.fingerprint256 === cert.fingerprint256);
}

describe('e2e: self-signed root rotation in meshd (short root lifetime from the environment)', function () {
  this.timeout(180_000);
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  const clients: CertificateClient[] = [];

  before(async () => {
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-carot-mesh');
    appNs = await createTestNamespace(core, 'e2e-carot-app');
    await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name: 'sa1' } } });
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, {
      CERTAUTH_SELF_SIGNED_CA_CERT_TTL: '60s',
      CERTAUTH_SELF_SIGNED_ROOT_CERT_CHECK_INTERVAL: '1s',
      CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE: '50',
      CERTAUTH_ENABLE_JITTER_FOR_ROOT_CERT_ROTATOR: 'false',
    });
  });

  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await meshd?.stop();
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given the root enters its grace period, should sign new certificates under a new root while the old root stays trusted', async () => {
    const identity = `spiffe://cluster.local/ns/${appNs}/sa/sa1`;
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    const oldBundle = await caSecretRoot(core, meshNs);
    const oldRoot = firstCert(oldBundle);
    const before = meshd.certificateClient(oldBundle, { token: () => token });
    clients.push(before);
    const oldCert = await before.requestCertificate({ identity }, RSA).catch((err: unknown) => {
      meshd.assertRunning();
      throw err;
    });
    assert.ok(chainVerifiesTo(oldCert.certChainPem, oldBundle));

    const newBundle = await waitFor('a rotated root in mesh-ca-secret', async () => {
      const bundle = await caSecretRoot(core, meshNs);
      return firstCert(bundle).fingerprint256 !== oldRoot.fingerprint256 ? bundle : undefined;
    }, 90_000, 500);
    const newRoot = firstCert(newBundle);
    assert.ok(holds(newBundle, oldRoot), 'the old root stays in the bundle during its grace period');

    const after = meshd.certificateClient(newBundle, { token: () => token });
    clients.push(after);
    const newCert = await after.requestCertificate({ identity }, RSA);
    assert.ok(chainVerifiesTo(newCert.certChainPem, newRoot.toString()), 'new certificates chain to the new root');
    assert.ok(!chainVerifiesTo(newCert.certChainPem, oldRoot.toString()), 'and not to the old one');
    assert.ok(chainVerifiesTo(oldCert.certChainPem, newBundle), 'certificates of the old root still verify against the distributed bundle');

    await waitFor('the rotated bundle in mesh-ca-root-cert', async () => {
      const cm = await core.readNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: appNs }).catch((err: unknown) => {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      });
      const text = cm?.data?.[ROOT_CERT_KEY] ?? '';
      return text !== '' && holds(text, newRoot) && holds(text, oldRoot);
    });
  });
});
