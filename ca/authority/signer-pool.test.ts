import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { encodeName, randomSerial, subjectAltNameValue, extension, type CertificateTemplate } from '../pki/certificate-builder.js';
import { CsrError, createCsrPem, decodeCsrPem } from '../pki/csr.js';
import { OID } from '../pki/oids.js';
import { SignerPool } from './signer-pool.js';

const ID = 'spiffe://cluster.local/ns/default/sa/sleep';
const caKey = generateKeyPairSync('rsa', { modulusLength: 2048 });

function template(spki: Buffer, uri = ID): CertificateTemplate {
  const now = new Date();
  return {
    serial: randomSerial(),
    issuer: encodeName([{ type: 'O', value: 'test-ca' }]),
    subject: encodeName([]),
    notBefore: now,
    notAfter: new Date(now.getTime() + 3600_000),
    subjectPublicKeyInfo: spki,
    extensions: [extension(OID.subjectAltName, true, subjectAltNameValue({ uris: [uri] }))],
  };
}

function workload(uri = ID): ReturnType<typeof decodeCsrPem> {
  return decodeCsrPem(createCsrPem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, { uris: [uri] }));
}

describe('SignerPool', () => {
  let pool: SignerPool;
  beforeEach(() => {
    pool = new SignerPool(2);
  });
  afterEach(() => pool.close());

  it('given many concurrent jobs should answer each with its own certificate, signed by the key', async () => {
    const csrs = Array.from({ length: 40 }, (_, i) => workload(`${ID}-${i}`));
    const ders = await Promise.all(csrs.map((csr, i) => pool.sign({ template: template(csr.subjectPublicKeyInfo, `${ID}-${i}`), key: caKey.privateKey, proof: csr.proof })));
    ders.forEach((der, i) => {
      const cert = new X509Certificate(der);
      assert.equal(cert.subjectAltName, `URI:${ID}-${i}`);
      assert.ok(cert.verify(caKey.publicKey));
    });
  });

  it('given a CSR proof that does not match the certified key should reject with CsrError bad-signature', async () => {
    const signed = workload();
    const other = workload();
    await assert.rejects(pool.sign({ template: template(other.subjectPublicKeyInfo), key: caKey.privateKey, proof: signed.proof }),
      (err: unknown) => err instanceof CsrError && err.reason === 'bad-signature');
  });

  it('given an unusable public key should reject with CsrError malformed and keep serving', async () => {
    const csr = workload();
    const junk = Buffer.from('3003020100', 'hex');
    await assert.rejects(pool.sign({ template: template(junk), key: caKey.privateKey, proof: csr.proof }),
      (err: unknown) => err instanceof CsrError && err.reason === 'malformed' && /not a usable public key/.test(err.message));
    assert.ok(await pool.sign({ template: template(csr.subjectPublicKeyInfo), key: caKey.privateKey, proof: csr.proof }));
  });

  it('given a signing key it cannot use should reject with the reason', async () => {
    const csr = workload();
    const secp256k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
    await assert.rejects(pool.sign({ template: template(csr.subjectPublicKeyInfo), key: secp256k1 }), /unsupported EC curve secp256k1/);
  });

  it('given a closed pool should refuse new jobs', async () => {
    await pool.close();
    await assert.rejects(pool.sign({ template: template(workload().subjectPublicKeyInfo), key: caKey.privateKey }), /signer pool: closed/);
  });

  it('given a size that is not a positive integer should refuse to start', () => {
    assert.throws(() => new SignerPool(0), /size must be a positive integer, got 0/);
  });
});
