// Integration tests: the real certificate service over gRPC + TLS on 127.0.0.1:0, with a fake TokenReviewer.
import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { MemoryCaKeyStore } from '../authority/ca-key-store.js';
import { createMeshCa } from '../authority/create-mesh-ca.js';
import { loadSigningAuthority } from '../authority/ca-material.js';
import { MeshCa } from '../authority/mesh-ca.js';
import { CertificateClient, CertificateRequestError, type CertificateClientOptions } from '../client/certificate-client.js';
import { fromPemAll, toPem } from '../pki/der.js';
import { createCsrPem, decodeCsrPem } from '../pki/csr.js';
import { FakeNodeLookup } from '../testing/fake-node-lookup.js';
import { FakeTokenReviewer } from '../testing/fake-token-reviewer.js';
import { createTestCaMetrics, type TestCaMetrics } from '../testing/test-ca-metrics.js';
import { startTestCaServer, type TestCaServer } from '../testing/test-ca-server.js';
import { createTestPluggedInCa } from '../testing/test-pki.js';
import type { CaCounterName } from './ca-metrics.js';
import { CertificateService } from './certificate-service.js';
import { ClientCertificateAuthenticator } from './client-certificate-authenticator.js';
import { TokenAuthenticator } from './token-authenticator.js';

const TD = 'cluster.local';
const HOUR = 3600_000;
const SLEEP_ID = `spiffe://${TD}/ns/default/sa/sleep`;
const ecKey = (): ReturnType<typeof generateKeyPairSync>['privateKey'] => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

describe('CertificateService over gRPC/TLS', () => {
  let ca: MeshCa;
  let server: TestCaServer;
  let service: CertificateService;
  let metrics: TestCaMetrics;
  const reviewer = new FakeTokenReviewer();
  const clients: CertificateClient[] = [];
  const exp = (): number => Math.floor(Date.now() / 1000) + 3600;
  const token = (ns = 'default', sa = 'sleep', extra: { nodeName?: string } = {}): string =>
    reviewer.issue({ namespace: ns, serviceAccount: sa, audiences: ['mesh-ca'], exp: exp(), ...extra });
  const client = (opts: Partial<CertificateClientOptions> = {}): CertificateClient => {
    const c = new CertificateClient({ address: server.address, rootCertPem: server.rootCertPem, serverName: server.serverName, ...opts });
    clients.push(c);
    return c;
  };

  before(async () => {
    ({ ca } = await createMeshCa(
      {
        trustDomain: TD,
        rootCaDir: '/nonexistent/mesh-ca-test',
        selfSigned: { rootTtlMs: 10 * 8760 * HOUR, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
        workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 48 * HOUR },
      },
      { selfSignedStore: new MemoryCaKeyStore() },
    ));
    metrics = createTestCaMetrics();
    service = new CertificateService(
      { trustDomain: TD, trustedNodeAccounts: [{ namespace: 'mesh-system', serviceAccount: 'ztunnel' }] },
      {
        ca,
        authenticators: [
          new TokenAuthenticator({ trustDomain: TD, audiences: ['mesh-ca'], require3pToken: true, jwtPolicy: 'third-party-jwt' }, reviewer),
          new ClientCertificateAuthenticator(ca, TD),
        ],
        nodeLookup: new FakeNodeLookup().addPod('node-a', 'default', 'sleep'),
        metrics,
      },
    );
    server = await startTestCaServer(ca, service);
  });

  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });

  after(async () => {
    service.close();
    await server.close();
  });

  it('given a valid token and RSA key should issue a leaf that chains to the root with exactly the SPIFFE SAN', async () => {
    const issued = await client({ token: () => token() }).requestCertificate({ identity: SLEEP_ID }, { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false });
    assert.equal(issued.certChainPem.length, 2);
    assert.match(issued.keyPem, /BEGIN RSA PRIVATE KEY/);
    const [leaf, root] = issued.certChainPem.map((p) => new X509Certificate(p));
    assert.equal(root!.fingerprint256, ca.authority.root.fingerprint256);
    assert.ok(leaf!.verify(root!.publicKey), 'leaf verifies with the root key');
    assert.ok(leaf!.checkPrivateKey(issued.privateKey), 'leaf certifies the client key');
    assert.equal(leaf!.subjectAltName, `URI:${SLEEP_ID}`);
    assert.equal(leaf!.ca, false);
    assert.deepEqual([...(leaf!.keyUsage ?? [])].sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    assert.equal(leaf!.subject ?? '', '', 'empty subject, as Istio');
    assert.equal(leaf!.issuer, `O=${TD}`);
    assert.equal(leaf!.serialNumber.replace(/^0+/, '').length > 16, true, '~128-bit serial');
  });

  const ttlCases = [
    { name: 'given a 1h TTL should honour it', seconds: 3600, expectedMs: HOUR },
    { name: 'given a zero TTL should apply DEFAULT_WORKLOAD_CERT_TTL', seconds: 0, expectedMs: 24 * HOUR },
    { name: 'given a negative TTL should apply DEFAULT_WORKLOAD_CERT_TTL', seconds: -5, expectedMs: 24 * HOUR },
    { name: 'given a TTL above MAX_WORKLOAD_CERT_TTL should cap it', seconds: 10 * 24 * 3600, expectedMs: 48 * HOUR },
  ];
  for (const c of ttlCases) {
    it(c.name, async () => {
      const chain = await client({ token: () => token() }).createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] }), { ttlSeconds: c.seconds });
      const leaf = new X509Certificate(chain[0]!);
      const lifetime = new Date(leaf.validTo).getTime() - new Date(leaf.validFrom).getTime();
      assert.ok(Math.abs(lifetime - c.expectedMs) <= 1000, `lifetime ${lifetime}ms, expected ${c.expectedMs}ms`);
    });
  }

  const keyCases = [
    { name: 'given an ECDSA P256 PKCS#8 key should issue a certificate for it', opts: { algorithm: 'ECDSA', curve: 'P256', pkcs8: true } as const, pem: /BEGIN PRIVATE KEY/ },
    { name: 'given an ECDSA P384 SEC1 key should issue a certificate for it', opts: { algorithm: 'ECDSA', curve: 'P384', pkcs8: false } as const, pem: /BEGIN EC PRIVATE KEY/ },
  ];
  for (const c of keyCases) {
    it(c.name, async () => {
      const issued = await client({ token: () => token() }).requestCertificate({ identity: SLEEP_ID }, c.opts);
      assert.match(issued.keyPem, c.pem);
      assert.ok(new X509Certificate(issued.certChainPem[0]!).checkPrivateKey(issued.privateKey));
    });
  }

  function tamperedSignatureCsr(): string {
    const der = Buffer.from(fromPemAll(createCsrPem(ecKey(), { uris: [SLEEP_ID] }), 'CERTIFICATE REQUEST')[0]!);
    der[der.length - 5] ^= 0xff; // inside the ECDSA signature's integers
    return toPem(der, 'CERTIFICATE REQUEST');
  }
  const other = new FakeTokenReviewer();
  const refusals: { name: string; csr?: () => string; token?: () => string | undefined; impersonate?: string; code: grpc.status; metric: CaCounterName; message: RegExp }[] = [
    { name: 'given no token and no client certificate should refuse UNAUTHENTICATED', token: () => undefined, code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_authentication_failure_count', message: /token: no bearer token in the authorization metadata; client-certificate: no client certificate verified by TLS/ },
    { name: 'given an expired token should refuse UNAUTHENTICATED', token: () => reviewer.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['mesh-ca'], exp: 1000 }), code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_authentication_failure_count', message: /token: expired at/ },
    { name: 'given a token the API server did not sign should refuse UNAUTHENTICATED', token: () => other.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['mesh-ca'] }), code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_authentication_failure_count', message: /rejected by TokenReview: invalid bearer token/ },
    { name: 'given a token without audience and REQUIRE_3P_TOKEN should refuse UNAUTHENTICATED', token: () => reviewer.issue({ namespace: 'default', serviceAccount: 'sleep' }), code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_authentication_failure_count', message: /REQUIRE_3P_TOKEN/ },
    { name: 'given a token for another audience should refuse UNAUTHENTICATED', token: () => reviewer.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['other'] }), code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_authentication_failure_count', message: /audiences are invalid/ },
    { name: 'given a token of a non-service-account user should refuse with an ID extraction error', token: () => reviewer.issue({ namespace: 'x', serviceAccount: 'y', username: 'alice', audiences: ['mesh-ca'] }), code: grpc.status.UNAUTHENTICATED, metric: 'certauth_server_id_extraction_err_count', message: /user "alice" is not a service account/ },
    { name: 'given a garbage CSR should refuse INVALID_ARGUMENT', csr: () => 'hello', code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_csr_parsing_err_count', message: /exactly one PEM "CERTIFICATE REQUEST" block, found 0/ },
    { name: 'given a PEM CSR with broken DER should refuse INVALID_ARGUMENT', csr: () => toPem(Buffer.from([0x30, 0x82, 0x10, 0x00, 0x01]), 'CERTIFICATE REQUEST'), code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_csr_parsing_err_count', message: /runs past the end/ },
    { name: 'given an oversized CSR should refuse INVALID_ARGUMENT', csr: () => 'x'.repeat(70 * 1024), code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_csr_parsing_err_count', message: /71680 bytes exceeds the limit of 65536 bytes/ },
    { name: 'given a CSR with a bad signature should refuse INVALID_ARGUMENT', csr: tamperedSignatureCsr, code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_csr_parsing_err_count', message: /signature does not verify/ },
    { name: 'given a CSR for an RSA 1024 key should refuse INVALID_ARGUMENT naming the key size and the minimum', csr: () => createCsrPem(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, { uris: [SLEEP_ID] }), code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_csr_parsing_err_count', message: /csr: RSA key of 1024 bits is too small: the minimum is 2048 bits/ },
    { name: 'given a CSR with an extra DNS SAN should refuse INVALID_ARGUMENT', csr: () => createCsrPem(ecKey(), { uris: [SLEEP_ID], dns: ['evil.example.com'] }), code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_id_extraction_err_count', message: /DNS:evil.example.com/ },
    { name: 'given a CSR without SAN should refuse INVALID_ARGUMENT', csr: () => createCsrPem(ecKey(), { uris: [] }), code: grpc.status.INVALID_ARGUMENT, metric: 'certauth_server_id_extraction_err_count', message: /no URI subjectAltName/ },
    { name: 'given a CSR for another identity should refuse PERMISSION_DENIED', csr: () => createCsrPem(ecKey(), { uris: [`spiffe://${TD}/ns/default/sa/admin`] }), code: grpc.status.PERMISSION_DENIED, metric: 'certauth_server_authentication_failure_count', message: /sa\/admin is not the caller's identity/ },
    { name: 'given an extra URI SAN should refuse PERMISSION_DENIED', csr: () => createCsrPem(ecKey(), { uris: [SLEEP_ID, `spiffe://${TD}/ns/default/sa/admin`] }), code: grpc.status.PERMISSION_DENIED, metric: 'certauth_server_authentication_failure_count', message: /sa\/admin is not the caller's identity/ },
    { name: 'given ImpersonatedIdentity from a non-node account should refuse PERMISSION_DENIED', impersonate: SLEEP_ID, code: grpc.status.PERMISSION_DENIED, metric: 'certauth_server_authentication_failure_count', message: /not in CA_TRUSTED_NODE_ACCOUNTS/ },
  ];
  for (const c of refusals) {
    it(c.name, async () => {
      const before = await metrics.value(c.metric);
      const csrCountBefore = await metrics.value('certauth_server_csr_count');
      const tokenFn = c.token ?? ((): string => token());
      const tok = tokenFn();
      const cl = client(tok === undefined ? {} : { token: () => tok });
      const csr = c.csr ? c.csr() : createCsrPem(ecKey(), { uris: [SLEEP_ID] });
      await assert.rejects(cl.createCertificate(csr, c.impersonate ? { impersonatedIdentity: c.impersonate } : {}), (err: unknown) => {
        assert.ok(err instanceof CertificateRequestError);
        assert.equal(err.code, c.code, err.message);
        assert.match(err.message, c.message);
        return true;
      });
      assert.equal(await metrics.value(c.metric), before + 1, `${c.metric} counted`);
      assert.equal(await metrics.value('certauth_server_csr_count'), csrCountBefore + 1);
    });
  }

  const nodeCases = [
    { name: 'given a trusted node account on the pod\'s node with ImpersonatedIdentity should issue the workload identity', node: 'node-a', sa: 'ztunnel', impersonate: true, ok: true },
    { name: 'given a trusted node account on the pod\'s node without metadata should issue the workload identity', node: 'node-a', sa: 'ztunnel', impersonate: false, ok: true },
    { name: 'given a trusted node account on another node should refuse PERMISSION_DENIED', node: 'node-b', sa: 'ztunnel', impersonate: true, ok: false, message: /no pod of default\/sleep runs on node node-b/ },
    { name: 'given a trusted node account whose token has no node claim should refuse PERMISSION_DENIED', node: undefined, sa: 'ztunnel', impersonate: true, ok: false, message: /no kubernetes.io node claim/ },
    { name: 'given an untrusted account on the pod\'s node should refuse PERMISSION_DENIED', node: 'node-a', sa: 'other-proxy', impersonate: false, ok: false, message: /not the caller's identity/ },
  ];
  for (const c of nodeCases) {
    it(c.name, async () => {
      const tok = token('mesh-system', c.sa, c.node ? { nodeName: c.node } : {});
      const call = client({ token: () => tok }).createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] }), c.impersonate ? { impersonatedIdentity: SLEEP_ID } : {});
      if (c.ok) {
        assert.equal(new X509Certificate((await call)[0]!).subjectAltName, `URI:${SLEEP_ID}`);
      } else {
        await assert.rejects(call, (err: unknown) => err instanceof CertificateRequestError && err.code === grpc.status.PERMISSION_DENIED && c.message!.test(err.message));
      }
    });
  }

  it('given the client certificate of an identity this CA issued should renew that identity without a token', async () => {
    const first = await client({ token: () => token() }).requestCertificate({ identity: SLEEP_ID }, { algorithm: 'ECDSA', curve: 'P256', pkcs8: true });
    const mtls = client({ clientCertificate: { certChainPem: first.certChainPem.join(''), keyPem: first.keyPem } });
    const chain = await mtls.createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] }));
    assert.equal(new X509Certificate(chain[0]!).subjectAltName, `URI:${SLEEP_ID}`);
    await assert.rejects(mtls.createCertificate(createCsrPem(ecKey(), { uris: [`spiffe://${TD}/ns/default/sa/admin`] })),
      (err: unknown) => err instanceof CertificateRequestError && err.code === grpc.status.PERMISSION_DENIED);
  });

  it('given a client certificate for the same identity from another CA should refuse UNAUTHENTICATED', async () => {
    const foreign = await createTestPluggedInCa(new Date());
    const foreignCa = new MeshCa(loadSigningAuthority(foreign.material, new Date()), 'plugged-in', { defaultTtlMs: HOUR, maxTtlMs: HOUR });
    const key = ecKey();
    const chain = await foreignCa.signWorkload(decodeCsrPem(createCsrPem(key, { uris: [SLEEP_ID] })), [SLEEP_ID], HOUR);
    const mtls = client({ clientCertificate: { certChainPem: chain.join(''), keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString() } });
    await assert.rejects(mtls.createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] })),
      (err: unknown) => err instanceof CertificateRequestError && err.code === grpc.status.UNAUTHENTICATED && /client-certificate: no client certificate verified by TLS/.test(err.message));
  });

  it('given a CA whose key cannot sign should answer INTERNAL and count a sign error', async () => {
    const broken = new MeshCa({ ...ca.authority, signingKey: generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey }, 'self-signed', ca.ttl);
    const brokenMetrics = createTestCaMetrics();
    const reviewer2 = new FakeTokenReviewer();
    const svc = new CertificateService({ trustDomain: TD, trustedNodeAccounts: [] }, {
      ca: broken, metrics: brokenMetrics,
      authenticators: [new TokenAuthenticator({ trustDomain: TD, audiences: ['mesh-ca'], require3pToken: false, jwtPolicy: 'third-party-jwt' }, reviewer2)],
    });
    const srv = await startTestCaServer(ca, svc);
    const tok = reviewer2.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['mesh-ca'] });
    const c = new CertificateClient({ address: srv.address, rootCertPem: srv.rootCertPem, serverName: srv.serverName, token: () => tok });
    try {
      await assert.rejects(c.createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] })),
        (err: unknown) => err instanceof CertificateRequestError && err.code === grpc.status.INTERNAL && /sign: signing key: unsupported EC curve secp256k1/.test(err.message));
      assert.equal(await brokenMetrics.value('certauth_server_csr_sign_err_count'), 1);
    } finally {
      c.close();
      svc.close();
      await srv.close();
    }
  });

  it('given the CA is up should expose the real root and chain expiry gauges and count issuances', async () => {
    const rootExpiry = Math.floor(new Date(ca.authority.root.validTo).getTime() / 1000);
    assert.equal(await metrics.value('certauth_server_root_cert_expiry_timestamp'), rootExpiry);
    assert.equal(await metrics.value('certauth_server_cert_chain_expiry_timestamp'), rootExpiry);
    const before = await metrics.value('certauth_server_success_cert_issuance_count');
    await client({ token: () => token() }).createCertificate(createCsrPem(ecKey(), { uris: [SLEEP_ID] }));
    assert.equal(await metrics.value('certauth_server_success_cert_issuance_count'), before + 1);
  });

  it('given 64 concurrent callers with distinct identities should issue each its own certificate', async () => {
    const results = await Promise.all(Array.from({ length: 64 }, async (_, i) => {
      const id = `spiffe://${TD}/ns/ns${i % 4}/sa/sa${i}`;
      const tok = token(`ns${i % 4}`, `sa${i}`);
      const perCall = client({ token: () => tok });
      return { id, chain: await perCall.createCertificate(createCsrPem(ecKey(), { uris: [id] })) };
    }));
    const serials = new Set<string>();
    for (const r of results) {
      const leaf = new X509Certificate(r.chain[0]!);
      assert.equal(leaf.subjectAltName, `URI:${r.id}`);
      assert.ok(leaf.verify(ca.authority.root.publicKey));
      serials.add(leaf.serialNumber);
    }
    assert.equal(serials.size, 64);
  });
});
