import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { encodeName } from '../pki/certificate-builder.js';
import { CsrError, createCsrPem, decodeCsrPem, type DecodedCsr } from '../pki/csr.js';
import type { LeafRequest } from './leaf-profile.js';
import { SignerPool } from './signer-pool.js';

const ID = 'spiffe://cluster.local/ns/default/sa/sleep';
const caKey = generateKeyPairSync('rsa', { modulusLength: 2048 });

function leaf(spki: Buffer, opts: { uri?: string; proof?: DecodedCsr['proof']; key?: KeyObject } = {}): LeafRequest {
  const now = new Date();
  return {
    issuer: { name: encodeName([{ type: 'O', value: 'test-ca' }]), keyId: Buffer.alloc(20, 7), key: opts.key ?? caKey.privateKey },
    subjectPublicKeyInfo: spki,
    sans: { uris: [opts.uri ?? ID] },
    notBefore: now,
    notAfter: new Date(now.getTime() + 3600_000),
    proof: opts.proof,
  };
}

function workload(uri = ID): DecodedCsr {
  return decodeCsrPem(createCsrPem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, { uris: [uri] }));
}

describe('SignerPool', () => {
  let pool: SignerPool;
  beforeEach(() => {
    pool = new SignerPool(2);
  });
  afterEach(() => pool.close());

  it('given many concurrent requests should answer each with its own leaf, signed by the issuer key, Istio profile', async () => {
    const csrs = Array.from({ length: 40 }, (_, i) => workload(`${ID}-${i}`));
    const pems = await Promise.all(csrs.map((csr, i) => pool.sign(leaf(csr.subjectPublicKeyInfo, { uri: `${ID}-${i}`, proof: csr.proof }))));
    pems.forEach((pem, i) => {
      const cert = new X509Certificate(pem);
      assert.equal(cert.subjectAltName, `URI:${ID}-${i}`);
      assert.equal(cert.issuer, 'O=test-ca');
      assert.ok(!cert.subject, 'empty subject');
      assert.equal(cert.ca, false);
      assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
      assert.ok(cert.verify(caKey.publicKey));
    });
    assert.equal(new Set(pems.map((p) => new X509Certificate(p).serialNumber)).size, pems.length, 'serials differ');
  });

  it('given more issuers in flight than a thread keeps should sign each leaf with its own issuer', async () => {
    const issuers = Array.from({ length: 7 }, (_, i) => ({
      name: encodeName([{ type: 'O', value: `ca-${i}` }]),
      keyId: Buffer.alloc(20, i),
      key: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
    }));
    const csr = workload();
    const jobs = Array.from({ length: 28 }, (_, j) => issuers[(j * 3) % issuers.length]!);
    const pems = await Promise.all(jobs.map((issuer) => pool.sign({ ...leaf(csr.subjectPublicKeyInfo, { proof: csr.proof }), issuer: { ...issuer, key: issuer.key.privateKey } })));
    pems.forEach((pem, j) => {
      const cert = new X509Certificate(pem);
      assert.equal(cert.issuer, `O=ca-${(j * 3) % issuers.length}`);
      assert.ok(cert.verify(jobs[j]!.key.publicKey), `leaf ${j} verifies with its issuer's key`);
    });
  });

  it('given a CSR proof that does not match the certified key should reject with CsrError bad-signature', async () => {
    const signed = workload();
    await assert.rejects(pool.sign(leaf(workload().subjectPublicKeyInfo, { proof: signed.proof })),
      (err: unknown) => err instanceof CsrError && err.reason === 'bad-signature');
  });

  it('given an unusable public key should reject with CsrError malformed and keep serving', async () => {
    const csr = workload();
    await assert.rejects(pool.sign(leaf(Buffer.from('3003020100', 'hex'), { proof: csr.proof })),
      (err: unknown) => err instanceof CsrError && err.reason === 'malformed' && /not a usable public key/.test(err.message));
    assert.ok(await pool.sign(leaf(csr.subjectPublicKeyInfo, { proof: csr.proof })));
  });

  it('given an issuer key it cannot sign with should reject with the reason', async () => {
    const secp256k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
    await assert.rejects(pool.sign(leaf(workload().subjectPublicKeyInfo, { key: secp256k1 })), /unsupported EC curve secp256k1/);
  });

  it('given a closed pool should refuse new requests', async () => {
    await pool.close();
    await assert.rejects(pool.sign(leaf(workload().subjectPublicKeyInfo)), /signer pool: closed/);
  });

  it('given a size that is not a positive integer should refuse to start', () => {
    assert.throws(() => new SignerPool(0), /size must be a positive integer, got 0/);
  });
});
