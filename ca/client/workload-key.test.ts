import assert from 'node:assert/strict';
import { loadEnv } from '../../core/index.js';
import { generateWorkloadKey, workloadKeyOptionsFromEnv, WorkloadKeyOptionsError } from './workload-key.js';

const fromEnv = (vars: Readonly<Record<string, string | undefined>>): ReturnType<typeof workloadKeyOptionsFromEnv> => workloadKeyOptionsFromEnv(loadEnv('pilot-agent', vars));

describe('workload keys', () => {
  const cases = [
    { name: 'given no variables should make RSA 2048 PKCS#1', vars: {}, want: { algorithm: 'RSA', rsaKeySize: 2048, pkcs8: false } },
    { name: 'given ECDSA should default to P256', vars: { ECC_SIGNATURE_ALGORITHM: 'ECDSA' }, want: { algorithm: 'ECDSA', curve: 'P256', pkcs8: false } },
    { name: 'given ECDSA P384 and PKCS8_KEY should use both', vars: { ECC_SIGNATURE_ALGORITHM: 'ECDSA', ECC_CURVE: 'P384', PKCS8_KEY: 'true' }, want: { algorithm: 'ECDSA', curve: 'P384', pkcs8: true } },
    { name: 'given WORKLOAD_RSA_KEY_SIZE should use it', vars: { WORKLOAD_RSA_KEY_SIZE: '3072' }, want: { algorithm: 'RSA', rsaKeySize: 3072, pkcs8: false } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(fromEnv(c.vars), c.want));

  const bad = [
    { name: 'given an unknown ECC_SIGNATURE_ALGORITHM should name it', vars: { ECC_SIGNATURE_ALGORITHM: 'EdDSA' }, message: /ECC_SIGNATURE_ALGORITHM="EdDSA"/ },
    { name: 'given an unknown ECC_CURVE should name it', vars: { ECC_SIGNATURE_ALGORITHM: 'ECDSA', ECC_CURVE: 'P521' }, message: /ECC_CURVE="P521"/ },
    { name: 'given a small RSA key size should name it', vars: { WORKLOAD_RSA_KEY_SIZE: '1024' }, message: /WORKLOAD_RSA_KEY_SIZE=1024/ },
  ];
  for (const c of bad) it(c.name, () => assert.throws(() => fromEnv(c.vars), (err: unknown) => err instanceof WorkloadKeyOptionsError && c.message.test(err.message)));

  const formats = [
    { name: 'given EC SEC1 should write an EC PRIVATE KEY', opts: { algorithm: 'ECDSA', curve: 'P256', pkcs8: false } as const, pem: /^-----BEGIN EC PRIVATE KEY-----/, curve: 'prime256v1' },
    { name: 'given EC P384 PKCS#8 should write a PRIVATE KEY', opts: { algorithm: 'ECDSA', curve: 'P384', pkcs8: true } as const, pem: /^-----BEGIN PRIVATE KEY-----/, curve: 'secp384r1' },
  ];
  for (const c of formats) {
    it(c.name, async () => {
      const key = await generateWorkloadKey(c.opts);
      assert.match(key.keyPem, c.pem);
      assert.equal(key.privateKey.asymmetricKeyDetails?.namedCurve, c.curve);
    });
  }
});
