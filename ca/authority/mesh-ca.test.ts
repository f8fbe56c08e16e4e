import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateClient } from '../client/certificate-client.js';
import { createCsrPem } from '../pki/csr.js';
import { CertificateService } from '../server/certificate-service.js';
import { TokenAuthenticator } from '../server/token-authenticator.js';
import { FakeTokenReviewer } from '../testing/fake-token-reviewer.js';
import { createTestCaMetrics } from '../testing/test-ca-metrics.js';
import { startTestCaServer } from '../testing/test-ca-server.js';
import { createTestPluggedInCa, type TestPluggedInCa } from '../testing/test-pki.js';
import { DirectoryCaKeyStore, MemoryCaKeyStore } from './ca-key-store.js';
import { CA_FILES, CaMaterialError, loadSigningAuthority, type StoredCaMaterial } from './ca-material.js';
import { createMeshCa, type CaOptions } from './create-mesh-ca.js';
import { MeshCa } from './mesh-ca.js';

const HOUR = 3600_000;
const TD = 'cluster.local';
const ID = `spiffe://${TD}/ns/default/sa/sleep`;
const options = (rootCaDir: string): CaOptions => ({
  trustDomain: TD,
  rootCaDir,
  selfSigned: { rootTtlMs: 87600 * HOUR, rsaKeySize: 2048, checkIntervalMs: HOUR, enableJitter: true, gracePeriodPercentile: 20, useCacertsSecret: false },
  workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 2160 * HOUR },
});

describe('MeshCa', () => {
  let dir: string;
  let plugged: TestPluggedInCa;

  before(async () => {
    plugged = await createTestPluggedInCa(new Date());
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mesh-ca-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('given no ROOT_CA_DIR material should create an Istio-shaped self-signed root once and reuse it from the store', async () => {
    const store = new MemoryCaKeyStore();
    const first = await createMeshCa(options(join(dir, 'none')), { selfSignedStore: store });
    const root = first.ca.authority.root;
    assert.equal(first.ca.mode, 'self-signed');
    assert.equal(root.subject, `O=${TD}`);
    assert.equal(root.issuer, `O=${TD}`);
    assert.equal(root.ca, true);
    assert.ok(root.verify(root.publicKey), 'self-signed');
    assert.equal(new Date(root.validTo).getTime() - new Date(root.validFrom).getTime(), 87600 * HOUR);
    assert.equal(root.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    const second = await createMeshCa(options(join(dir, 'none')), { selfSignedStore: store });
    assert.equal(second.ca.authority.root.fingerprint256, root.fingerprint256);
  });

  it('given a DirectoryCaKeyStore should persist the four cacerts files with a private key file', async () => {
    const store = new DirectoryCaKeyStore(join(dir, 'self'));
    assert.equal(await store.load(), undefined);
    const { ca } = await createMeshCa(options(join(dir, 'none')), { selfSignedStore: store });
    const loaded = await store.load();
    assert.ok(loaded);
    assert.equal(new X509Certificate(loaded.rootCertPem).fingerprint256, ca.authority.root.fingerprint256);
    assert.equal((await stat(join(dir, 'self', CA_FILES.caKey))).mode & 0o777, 0o600);
  });

  it('given ROOT_CA_DIR with an intermediate should issue leaf, signing CA, intermediate, root over gRPC', async () => {
    const m = plugged.material;
    await writeFile(join(dir, CA_FILES.caCert), m.caCertPem);
    await writeFile(join(dir, CA_FILES.caKey), m.caKeyPem);
    await writeFile(join(dir, CA_FILES.certChain), m.certChainPem);
    await writeFile(join(dir, CA_FILES.rootCert), m.rootCertPem);
    const { ca, rotator } = await createMeshCa(options(dir), { selfSignedStore: new MemoryCaKeyStore() });
    assert.equal(ca.mode, 'plugged-in');
    assert.equal(rotator, undefined, 'a plugged-in CA is not rotated by meshd');
    const reviewer = new FakeTokenReviewer();
    const metrics = createTestCaMetrics();
    const service = new CertificateService({ trustDomain: TD, trustedNodeAccounts: [] }, {
      ca, metrics,
      authenticators: [new TokenAuthenticator({ trustDomain: TD, audiences: ['mesh-ca'], require3pToken: false, jwtPolicy: 'third-party-jwt' }, reviewer)],
    });
    const server = await startTestCaServer(ca, service);
    const client = new CertificateClient({
      address: server.address, rootCertPem: server.rootCertPem, serverName: server.serverName,
      token: () => reviewer.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['mesh-ca'] }),
    });
    try {
      const chain = (await client.createCertificate(createCsrPem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, { uris: [ID] }))).map((p) => new X509Certificate(p));
      assert.equal(chain.length, 4);
      assert.deepEqual(chain.slice(1).map((c) => c.fingerprint256),
        [plugged.signing, plugged.intermediate, plugged.root].map((c) => new X509Certificate(c.certPem).fingerprint256));
      for (let i = 0; i + 1 < chain.length; i++) assert.ok(chain[i]!.verify(chain[i + 1]!.publicKey), `certificate ${i} is signed by ${i + 1}`);
      assert.equal(chain[0]!.subjectAltName, `URI:${ID}`);
      assert.equal(await metrics.value('certauth_server_root_cert_expiry_timestamp'), Math.floor(new Date(chain[3]!.validTo).getTime() / 1000));
    } finally {
      client.close();
      service.close();
      await server.close();
    }
  });

  const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const badCases: { name: string; change: (m: StoredCaMaterial, p: TestPluggedInCa) => StoredCaMaterial; message: RegExp }[] = [
    { name: 'given a key that does not match ca-cert.pem should name ca-key.pem', change: (m) => ({ ...m, caKeyPem: other }), message: /ca-key.pem: does not match the public key of ca-cert.pem/ },
    { name: 'given garbage in ca-key.pem should name it', change: (m) => ({ ...m, caKeyPem: 'nope' }), message: /ca-key.pem: not a valid PEM private key/ },
    { name: 'given no certificate in ca-cert.pem should name it', change: (m) => ({ ...m, caCertPem: '' }), message: /ca-cert.pem: no PEM CERTIFICATE block/ },
    { name: 'given a chain missing its intermediate should name cert-chain.pem', change: (m, p) => ({ ...m, certChainPem: p.signing.certPem + p.root.certPem }), message: /cert-chain.pem: the chain from ca-cert.pem does not end at a root of root-cert.pem/ },
  ];
  for (const c of badCases) {
    it(c.name, () => {
      assert.throws(() => loadSigningAuthority(c.change(plugged.material, plugged), new Date()), (err: unknown) => err instanceof CaMaterialError && c.message.test(err.message));
    });
  }

  it('given ROOT_CA_DIR with a bad key should fail naming ROOT_CA_DIR and the file', async () => {
    await writeFile(join(dir, CA_FILES.caCert), plugged.material.caCertPem);
    await writeFile(join(dir, CA_FILES.caKey), other);
    await writeFile(join(dir, CA_FILES.rootCert), plugged.material.rootCertPem);
    await assert.rejects(createMeshCa(options(dir), { selfSignedStore: new MemoryCaKeyStore() }), new RegExp(`ROOT_CA_DIR ${dir}: ca-key.pem: does not match`));
  });

  const ttlCases = [
    { name: 'given 0 should give the default', requested: 0, want: 24 * HOUR },
    { name: 'given -1 should give the default', requested: -1, want: 24 * HOUR },
    { name: 'given 1h should give 1h', requested: HOUR, want: HOUR },
    { name: 'given more than the maximum should give the maximum', requested: 5000 * HOUR, want: 2160 * HOUR },
  ];
  for (const c of ttlCases) {
    it(`effectiveTtlMs: ${c.name}`, () => {
      const ca = new MeshCa(loadSigningAuthority(plugged.material, new Date()), 'plugged-in', options(dir).workload);
      assert.equal(ca.effectiveTtlMs(c.requested), c.want);
    });
  }
});
