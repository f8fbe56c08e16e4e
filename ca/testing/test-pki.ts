// Test PKI: a plugged-in CA hierarchy (RSA root -> EC intermediate -> EC signing CA) made with the same
// builder the CA uses, for tests of ROOT_CA_DIR material.
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  authorityKeyIdentifierValue, basicConstraintsValue, encodeName, extension, keyIdentifier, keyUsageValue, randomSerial,
  signCertificate, subjectKeyIdentifierValue,
} from '../pki/certificate-builder.js';
import { toPem } from '../pki/der.js';
import { OID } from '../pki/oids.js';
import type { StoredCaMaterial } from '../authority/ca-material.js';

/** A CA certificate and its key. */
export interface TestCaCert {
  readonly certPem: string;
  readonly key: KeyObject;
  readonly keyPem: string;
}

/** Signs a CA certificate with CN `name` for `key`, by `issuer` (self-signed when omitted). */
export async function issueTestCaCert(name: string, key: KeyObject, issuer: { name: string; key: KeyObject } | undefined, now: Date, ttlMs: number): Promise<TestCaCert> {
  const publicKey = createPublicKey(key);
  const signer = issuer ?? { name, key };
  const der = await signCertificate({
    serial: randomSerial(),
    issuer: encodeName([{ type: 'O', value: 'test' }, { type: 'CN', value: signer.name }]),
    subject: encodeName([{ type: 'O', value: 'test' }, { type: 'CN', value: name }]),
    notBefore: now,
    notAfter: new Date(now.getTime() + ttlMs),
    subjectPublicKeyInfo: publicKey.export({ type: 'spki', format: 'der' }),
    extensions: [
      extension(OID.keyUsage, true, keyUsageValue(['keyCertSign', 'cRLSign'])),
      extension(OID.basicConstraints, true, basicConstraintsValue(true)),
      extension(OID.subjectKeyIdentifier, false, subjectKeyIdentifierValue(keyIdentifier(publicKey))),
      extension(OID.authorityKeyIdentifier, false, authorityKeyIdentifierValue(keyIdentifier(createPublicKey(signer.key)))),
    ],
  }, signer.key);
  return { certPem: toPem(der, 'CERTIFICATE'), key, keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** A root -> intermediate -> signing-CA hierarchy in the `cacerts` file layout. */
export interface TestPluggedInCa {
  readonly root: TestCaCert;
  readonly intermediate: TestCaCert;
  readonly signing: TestCaCert;
  /** ca-cert.pem = signing, ca-key.pem, cert-chain.pem = signing + intermediate + root, root-cert.pem = root. */
  readonly material: StoredCaMaterial;
}

/** Makes a plugged-in hierarchy valid from `now` for a year. */
export async function createTestPluggedInCa(now: Date): Promise<TestPluggedInCa> {
  const year = 365 * 24 * 3600_000;
  const rootKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const intermediateKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const root = await issueTestCaCert('test-root', rootKey, undefined, now, year);
  const intermediate = await issueTestCaCert('test-intermediate', intermediateKey, { name: 'test-root', key: rootKey }, now, year);
  const signing = await issueTestCaCert('test-signing', signingKey, { name: 'test-intermediate', key: intermediateKey }, now, year);
  return {
    root,
    intermediate,
    signing,
    material: {
      caCertPem: signing.certPem,
      caKeyPem: signing.keyPem,
      certChainPem: signing.certPem + intermediate.certPem + root.certPem,
      rootCertPem: root.certPem,
    },
  };
}
