// e2e: meshd with TOKEN_ISSUER verifies bearer tokens locally as JWTs of an OIDC issuer (a real HTTPS issuer
// on 127.0.0.1 serving discovery + JWKS), next to TokenReview against the real API server.
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CertificateRequestError, type CertificateClient } from '../ca/index.js';
import { startTestOidcIssuer, type TestIssuerKey, type TestOidcIssuer } from '../ca/testing/test-oidc-issuer.js';
import { caSecretRoot, chainVerifiesTo, SecureMeshd, serviceAccountToken, uriSans } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

const EC = { algorithm: 'ECDSA', curve: 'P256', pkcs8: true } as const;

describe('e2e: meshd CA with TOKEN_ISSUER (OIDC JWT verification) on the secure gRPC port', function () {
  this.timeout(180_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  let issuer: TestOidcIssuer;
  let key: TestIssuerKey;
  let root: string;
  const clients: CertificateClient[] = [];
  const spiffe = (sa: string): string => `spiffe://cluster.local/ns/${appNs}/sa/${sa}`;
  const client = (token: string): CertificateClient => {
    const c = meshd.certificateClient(root, { token: () => token });
    clients.push(c);
    return c;
  };
  const oidcToken = (sa: string, over: Record<string, unknown> = {}): string => {
    const now = Math.floor(Date.now() / 1000);
    return issuer.sign({
      iss: issuer.issuer, aud: ['mesh-ca'], exp: now + 600, iat: now, sub: `system:serviceaccount:${appNs}:${sa}`,
      'kubernetes.io': { namespace: appNs, serviceaccount: { name: sa } }, ...over,
    }, key);
  };

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-oidc-mesh');
    appNs = await createTestNamespace(core, 'e2e-oidc-app');
    await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name: 'sa1' } } });
    issuer = await startTestOidcIssuer({ tls: true });
    key = issuer.newKey('RS256', 'e2e-1');
    issuer.published.push(key);
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, {
      TOKEN_ISSUER: issuer.issuer, JWKS_RESOLVER_INSECURE_SKIP_VERIFY: 'true', REQUIRE_3P_TOKEN: 'true',
    });
    root = await caSecretRoot(core, meshNs);
  });

  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await meshd?.stop();
    await issuer?.close();
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given a token of the OIDC issuer, should issue the SPIFFE identity of its service-account claims after fetching the JWKS', async () => {
    const issued = await client(oidcToken('oidc-only')).requestCertificate({ identity: spiffe('oidc-only') }, EC);
    assert.deepEqual(uriSans(issued.certChainPem[0]!), [spiffe('oidc-only')]);
    assert.ok(chainVerifiesTo(issued.certChainPem, root));
    assert.ok(await meshd.metric('pilot_jwks_resolver_network_fetch_success_total') >= 1);
    assert.ok(issuer.requests.jwks >= 1);
  });

  it('given an API server token, should still issue through TokenReview (the OIDC check is in addition)', async () => {
    const token = await serviceAccountToken(core, appNs, 'sa1', ['mesh-ca']);
    const issued = await client(token).requestCertificate({ identity: spiffe('sa1') }, EC);
    assert.deepEqual(uriSans(issued.certChainPem[0]!), [spiffe('sa1')]);
  });

  it('given an OIDC token for another audience, should refuse UNAUTHENTICATED naming the audience and count the failure', async () => {
    const before = await meshd.metric('certauth_server_authentication_failure_count');
    await assert.rejects(client(oidcToken('oidc-only', { aud: ['other'] })).requestCertificate({ identity: spiffe('oidc-only') }, EC), (err: unknown) => {
      assert.ok(err instanceof CertificateRequestError, String(err));
      assert.equal(err.code, grpc.status.UNAUTHENTICATED);
      assert.match(err.message, /oidc: audience \[other\] includes none of TOKEN_AUDIENCES \[mesh-ca\]/);
      return true;
    });
    assert.equal(await meshd.metric('certauth_server_authentication_failure_count'), before + 1);
  });
});
