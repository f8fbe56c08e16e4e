// Creates the self-signed root of meshd's built-in CA, shaped like Istio's: subject O=<trust domain>,
// CA:TRUE (critical), keyUsage keyCertSign (critical), subjectKeyIdentifier.
import { createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import {
  basicConstraintsValue, encodeName, extension, keyIdentifier, keyUsageValue, randomSerial, signCertificate,
  subjectKeyIdentifierValue,
} from '../pki/certificate-builder.js';
import { toPem } from '../pki/der.js';
import { OID } from '../pki/oids.js';

/** What a new self-signed root needs. */
export interface SelfSignedRootOptions {
  /** Written as the subject organization (Istio uses the trust domain). */
  readonly trustDomain: string;
  /** CERTAUTH_SELF_SIGNED_CA_CERT_TTL, ms. */
  readonly ttlMs: number;
  /** CERTAUTH_SELF_SIGNED_CA_RSA_KEY_SIZE, bits. */
  readonly rsaKeySize: number;
  readonly now: Date;
}

/** A new root: its PEM certificate and PKCS#8 PEM key. */
export interface SelfSignedRoot {
  readonly certPem: string;
  readonly keyPem: string;
}

function generateRsaKey(bits: number): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: bits }, (err, _publicKey, privateKey) => (err ? reject(err) : resolve(privateKey)));
  });
}

/** Generates an RSA key (off the event loop) and a self-signed CA certificate for it. */
export async function createSelfSignedRoot(options: SelfSignedRootOptions): Promise<SelfSignedRoot> {
  if (!Number.isInteger(options.rsaKeySize) || options.rsaKeySize < 2048) {
    throw new Error(`self-signed root: RSA key size ${options.rsaKeySize} is too small (use 2048 or more)`);
  }
  if (!(options.ttlMs > 0)) throw new Error(`self-signed root: lifetime ${options.ttlMs}ms must be positive`);
  const key = await generateRsaKey(options.rsaKeySize);
  const publicKey = createPublicKey(key);
  const name = encodeName([{ type: 'O', value: options.trustDomain }]);
  const der = await signCertificate({
    serial: randomSerial(),
    issuer: name,
    subject: name,
    notBefore: options.now,
    notAfter: new Date(options.now.getTime() + options.ttlMs),
    subjectPublicKeyInfo: publicKey.export({ type: 'spki', format: 'der' }),
    extensions: [
      extension(OID.keyUsage, true, keyUsageValue(['keyCertSign'])),
      extension(OID.basicConstraints, true, basicConstraintsValue(true)),
      extension(OID.subjectKeyIdentifier, false, subjectKeyIdentifierValue(keyIdentifier(publicKey))),
    ],
  }, key);
  return { certPem: toPem(der, 'CERTIFICATE'), keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
