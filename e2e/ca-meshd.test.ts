import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CertificateRequestError, createCsrPem, type CertificateClient } from '../ca/index.js';
import { ROOT_CERT_CONFIGMAP, ROOT_CERT_KEY } from '../reconcilers/index.js';
import { caSecretRoot, chainVerifiesTo, SecureMeshd, serviceAccountToken, uriSans } from './ca-harness.js';
import { API_AUDIENCES, createTestNamespace, deleteNamespaceFully, e2eCluster, httpStatusOf, uniqueName, waitFor } from './harness/index.js';

const RSA = { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } as const;
const MAX_TTL_S = 2 * 3600;

/** The code of a refused request, or 'OK'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    if (err instanceof CertificateRequestError) return grpc.status[err.code];
    throw err;
  }
}

describe('e2e: meshd CA on the secure gRPC port (TokenReview against a real API server)', function () {
  this.timeout(180_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  let replica: SecureMeshd;
  let root: string;
  const clients: CertificateClient[] = [];
  const spiffe = (sa: string): string => `spiffe://cluster.local/ns/${appNs}/sa/${sa}`;
  const client = (token?: string, on: SecureMeshd = meshd): CertificateClient => {
    const c = on.certificateClient(root, token === undefined ? {} : { token: () => token });
    clients.push(c);
    return c;
  };

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-ca-mesh');
    appNs = await createTestNamespace(core, 'e2e-ca-app');
    for (const name of ['sa1', 'sa2', 'node-agent']) await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name } } });
    const env = { MAX_WORKLOAD_CERT_TTL: `${MAX_TTL_S}s`, REQUIRE_3P_TOKEN: 'true', CA_TRUSTED_NODE_ACCOUNTS: `${appNs}/node-agent` };
    // NOTE: two replicas start at once against an empty namespace: both race to create mesh-ca-secret.
    [meshd, replica] = await Promise.all([
      SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env),
      SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env),
    ]);
    root = await caSecretRoot(core, meshNs);
  });

  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all([meshd?.stop(), replica?.stop()]);
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given two replicas started at once, should share one root kept in mesh-ca-secret and distribute it in mesh-ca-root-cert', async () => {
    assert.equal(root.match(/BEGIN CERTIFICATE/g)?.length, 1);
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    for (const m of [meshd, replica]) {
      const issued = await client(token, m).requestCertificate({ identity: spiffe('sa1') }, RSA);
      assert.ok(chainVerifiesTo(issued.certChainPem, root), 'each replica signs under the shared root (and serves TLS under it)');
    }
    await waitFor('the root ConfigMap in the app namespace', async () => {
      const cm = await core.readNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: appNs }).catch((err: unknown) => {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      });
      return cm?.data?.[ROOT_CERT_KEY]?.trim() === root.trim();
    });
  });

  const ttlCases = [
    { name: 'given a TokenRequest token of sa1 for mesh-ca asking 1h, should issue exactly its SPIFFE identity for 1h, chained to the root', ttl: 3600, want: 3600 },
    { name: 'given a TTL above MAX_WORKLOAD_CERT_TTL, should cap the lifetime at the maximum', ttl: 5 * 3600, want: MAX_TTL_S },
  ];
  for (const c of ttlCases) {
    it(c.name, async () => {
      const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
      const issued = await client(token).requestCertificate({ identity: spiffe('sa1'), ttlSeconds: c.ttl }, RSA);
      const leaf = new X509Certificate(issued.certChainPem[0]!);
      assert.deepEqual(uriSans(issued.certChainPem[0]!), [spiffe('sa1')]);
      assert.ok(chainVerifiesTo(issued.certChainPem, root));
      assert.equal((Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 1000, c.want);
      assert.ok(leaf.checkPrivateKey(issued.privateKey));
    });
  }

  it('given a token of sa1 asking for sa2, should refuse with PERMISSION_DENIED', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    assert.equal(await outcome(client(token).requestCertificate({ identity: spiffe('sa2') }, RSA)), 'PERMISSION_DENIED');
  });

  it('given a token for the API server audience only (no mesh-ca) under REQUIRE_3P_TOKEN, should refuse with UNAUTHENTICATED', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', [API_AUDIENCES[0]]);
    assert.equal(await outcome(client(token).requestCertificate({ identity: spiffe('sa1') }, RSA)), 'UNAUTHENTICATED');
  });

  it('given a trusted node account bound to a pod on node A, should sign for a pod on node A and refuse one on node B', async () => {
    const run = uniqueName('n');
    const nodeA = `${run}-a`;
    const nodeB = `${run}-b`;
    for (const name of [nodeA, nodeB]) await core.createNode({ body: { metadata: { name } } });
    try {
      const pod = async (name: string, sa: string, node: string): Promise<{ name: string; uid: string }> => {
        const p = await core.createNamespacedPod({ namespace: appNs, body: { metadata: { name }, spec: { serviceAccountName: sa, nodeName: node, containers: [{ name: 'c', image: 'e2e' }] } } });
        return { name, uid: p.metadata!.uid! };
      };
      await pod('sa1-on-a', 'sa1', nodeA);
      await pod('sa2-on-b', 'sa2', nodeB);
      const agent = await pod('agent-on-a', 'node-agent', nodeA);
      const token = await serviceAccountToken(core, appNs, 'node-agent', ['mesh-ca'], agent);
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { 'kubernetes.io'?: { node?: { name?: string } } };
      assert.equal(claims['kubernetes.io']?.node?.name, nodeA, 'the API server puts the bound pod\'s node in the token');
      const c = client(token);
      const issued = await c.requestCertificate({ identity: spiffe('sa1'), impersonatedIdentity: spiffe('sa1') }, RSA);
      assert.deepEqual(uriSans(issued.certChainPem[0]!), [spiffe('sa1')]);
      assert.equal(await outcome(c.requestCertificate({ identity: spiffe('sa2'), impersonatedIdentity: spiffe('sa2') }, RSA)), 'PERMISSION_DENIED');
    } finally {
      for (const name of [nodeA, nodeB]) await core.deleteNode({ name }).catch(() => undefined);
    }
  });

  describe('bad input', () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const expiredToken = (real: string): string => {
      // NOTE: a real TokenRequest lives at least 10 minutes; its payload is re-dated to the past. The CA refuses
      // on exp before any TokenReview, so the (now broken) signature is never what decides.
      const [h, p, s] = real.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
      return [h, Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })).toString('base64url'), s].join('.');
    };
    const cases: { name: string; token: 'valid' | 'expired' | 'none'; csr: () => string; code: string; metric: string }[] = [
      { name: 'given a garbage CSR, should answer INVALID_ARGUMENT and count a parsing error', token: 'valid', csr: () => '-----BEGIN CERTIFICATE REQUEST-----\nbm90IGEgY3Ny\n-----END CERTIFICATE REQUEST-----\n', code: 'INVALID_ARGUMENT', metric: 'certauth_server_csr_parsing_err_count' },
      { name: 'given a CSR with an extra DNS SAN, should answer INVALID_ARGUMENT and count an identity extraction error', token: 'valid', csr: () => createCsrPem(key, { uris: [spiffe('sa1')], dns: ['evil.example.com'] }), code: 'INVALID_ARGUMENT', metric: 'certauth_server_id_extraction_err_count' },
      { name: 'given an oversized CSR, should answer INVALID_ARGUMENT and count a parsing error', token: 'valid', csr: () => 'x'.repeat(65 * 1024), code: 'INVALID_ARGUMENT', metric: 'certauth_server_csr_parsing_err_count' },
      { name: 'given an expired token, should answer UNAUTHENTICATED and count an authentication failure', token: 'expired', csr: () => createCsrPem(key, { uris: [spiffe('sa1')] }), code: 'UNAUTHENTICATED', metric: 'certauth_server_authentication_failure_count' },
      { name: 'given no token, should answer UNAUTHENTICATED and count an authentication failure', token: 'none', csr: () => createCsrPem(key, { uris: [spiffe('sa1')] }), code: 'UNAUTHENTICATED', metric: 'certauth_server_authentication_failure_count' },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const real = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
        const token = c.token === 'valid' ? real : c.token === 'expired' ? expiredToken(real) : undefined;
        const [before, requests, issuedBefore] = [await meshd.metric(c.metric), await meshd.metric('certauth_server_csr_count'), await meshd.metric('certauth_server_success_cert_issuance_count')];
        assert.equal(await outcome(client(token).createCertificate(c.csr())), c.code);
        assert.equal(await meshd.metric(c.metric), before + 1, `${c.metric} counts the refusal`);
        assert.equal(await meshd.metric('certauth_server_csr_count'), requests + 1);
        assert.equal(await meshd.metric('certauth_server_success_cert_issuance_count'), issuedBefore);
      });
    }
  });
});
