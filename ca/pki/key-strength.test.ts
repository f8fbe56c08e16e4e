import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createCsrPem, CsrError, decodeCsrPem } from './csr.js';
import { checkKeyStrength, KeyStrengthError } from './key-strength.js';

const spkiOf = (key: KeyObject): Buffer => createPublicKey(key).export({ type: 'spki', format: 'der' });
const rsa = (bits: number): KeyObject => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
const ec = (namedCurve: string): KeyObject => generateKeyPairSync('ec', { namedCurve }).privateKey;

describe('checkKeyStrength', () => {
  const accepted: { name: string; key: () => KeyObject; found: object }[] = [
    { name: 'given an RSA 2048 key should accept it', key: () => rsa(2048), found: { type: 'rsa', bits: 2048 } },
    { name: 'given an EC P-256 key should accept it', key: () => ec('prime256v1'), found: { type: 'ec', curve: 'P-256' } },
    { name: 'given an EC P-384 key should accept it', key: () => ec('secp384r1'), found: { type: 'ec', curve: 'P-384' } },
    { name: 'given an EC P-521 key should accept it', key: () => ec('secp521r1'), found: { type: 'ec', curve: 'P-521' } },
  ];
  for (const c of accepted) it(c.name, () => assert.deepEqual(checkKeyStrength(spkiOf(c.key())), c.found));

  const refused: { name: string; key: () => KeyObject; reason: KeyStrengthError['reason']; message: RegExp }[] = [
    { name: 'given an RSA 1024 key should refuse it naming its size and the minimum', key: () => rsa(1024), reason: 'weak-key', message: /^RSA key of 1024 bits is too small: the minimum is 2048 bits$/ },
    { name: 'given an RSA 2040 key should refuse it', key: () => rsa(2040), reason: 'weak-key', message: /RSA key of 2040 bits is too small/ },
    { name: 'given an EC P-224 key should refuse it as weaker than P-256', key: () => ec('secp224r1'), reason: 'weak-key', message: /EC curve P-224 \(1\.3\.132\.0\.33\) is too weak: the minimum is P-256/ },
    { name: 'given an EC secp256k1 key should refuse it as unsupported', key: () => ec('secp256k1'), reason: 'unsupported', message: /EC curve 1\.3\.132\.0\.10 is not supported/ },
    { name: 'given an Ed25519 key should refuse the algorithm', key: () => generateKeyPairSync('ed25519').privateKey, reason: 'unsupported', message: /unsupported public key algorithm 1\.3\.101\.112/ },
  ];
  for (const c of refused) {
    it(c.name, () => {
      assert.throws(() => checkKeyStrength(spkiOf(c.key())), (err: unknown) => err instanceof KeyStrengthError && err.reason === c.reason && c.message.test(err.message));
    });
  }
});

describe('decodeCsrPem key floor', () => {
  it('given a CSR for an RSA 1024 key should throw CsrError weak-key naming the size and the minimum', () => {
    const pem = createCsrPem(rsa(1024), { uris: ['spiffe://cluster.local/ns/default/sa/sleep'] });
    assert.throws(() => decodeCsrPem(pem), (err: unknown) =>
      err instanceof CsrError && err.reason === 'weak-key' && err.message === 'csr: RSA key of 1024 bits is too small: the minimum is 2048 bits');
  });

  it('given a CSR for an RSA 2048 key should decode it', () => {
    const pem = createCsrPem(rsa(2048), { uris: ['spiffe://cluster.local/ns/default/sa/sleep'] });
    assert.deepEqual(decodeCsrPem(pem).subjectAltNames.uris, ['spiffe://cluster.local/ns/default/sa/sleep']);
  });
});
