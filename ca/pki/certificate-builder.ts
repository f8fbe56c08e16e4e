// Builds X.509 v3 certificates as DER and signs their TBS bytes with node:crypto (native RSA/ECDSA), either
// on the libuv thread pool (callback form of crypto.sign) or synchronously on a signer thread.
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  DerError, NULL, TAG, bitString, children, readOne, boolean, contextTag, octetString, oid, sequence, set, smallInteger, stringOf, time, unsignedInteger,
} from './der.js';
import { OID } from './oids.js';

/** A relative distinguished name attribute: organization or common name. */
export interface NameAttribute {
  readonly type: 'O' | 'CN';
  readonly value: string;
}

/** Encodes an X.501 Name; an empty list gives the empty Name Istio uses for workload certificates. */
export function encodeName(attributes: readonly NameAttribute[]): Buffer {
  return sequence(
    ...attributes.map((a) =>
      set(sequence(oid(a.type === 'O' ? OID.organization : OID.commonName), stringOf(TAG.UTF8_STRING, a.value)))),
  );
}

/** One extension: OID, criticality and the DER of its value. */
export function extension(extnId: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(extnId), boolean(true), octetString(value)) : sequence(oid(extnId), octetString(value));
}

/** Key usage bits of RFC 5280 4.2.1.3 the CA issues. */
export type KeyUsage = 'digitalSignature' | 'keyEncipherment' | 'keyCertSign' | 'cRLSign';
const KEY_USAGE_BIT: Record<KeyUsage, number> = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 };

/** keyUsage extension value (a named BIT STRING with trailing zero bits removed, as DER demands). */
export function keyUsageValue(usages: readonly KeyUsage[]): Buffer {
  let bits = 0;
  for (const u of usages) bits |= 0x80 >> KEY_USAGE_BIT[u];
  let unused = 0;
  while (unused < 7 && (bits & (1 << unused)) === 0) unused++;
  return bitString(Buffer.from([bits]), unused);
}

/** extKeyUsage extension value. */
export function extKeyUsageValue(oids: readonly string[]): Buffer {
  return sequence(...oids.map((o) => oid(o)));
}

/** basicConstraints extension value. */
export function basicConstraintsValue(isCa: boolean): Buffer {
  return isCa ? sequence(boolean(true)) : sequence();
}

/** subjectAltName value with URI (`[6]`) and DNS (`[2]`) names. */
export function subjectAltNameValue(names: { readonly uris?: readonly string[]; readonly dns?: readonly string[] }): Buffer {
  return sequence(
    ...(names.dns ?? []).map((d) => contextTag(2, false, Buffer.from(d, 'latin1'))),
    ...(names.uris ?? []).map((u) => contextTag(6, false, Buffer.from(u, 'latin1'))),
  );
}

/** authorityKeyIdentifier value carrying `[0] keyIdentifier`. */
export function authorityKeyIdentifierValue(keyId: Buffer): Buffer {
  return sequence(contextTag(0, false, keyId));
}

/** subjectKeyIdentifier value: the key id as an OCTET STRING. */
export function subjectKeyIdentifierValue(keyId: Buffer): Buffer {
  return octetString(keyId);
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits of a key's SubjectPublicKeyInfo. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = readOne(publicKey.export({ type: 'spki', format: 'der' }), 'SubjectPublicKeyInfo', TAG.SEQUENCE);
  const bits = children(spki, 'SubjectPublicKeyInfo')[1];
  if (bits?.tag !== TAG.BIT_STRING) throw new DerError('SubjectPublicKeyInfo: missing subjectPublicKey BIT STRING');
  return createHash('sha1').update(bits.content.subarray(1)).digest(); // subarray(1) skips the unused-bits byte
}

/** A random positive 128-bit serial number, as Istio issues. */
export function randomSerial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes;
}

/** The signature algorithm a CA key signs with, and the DER AlgorithmIdentifier naming it. */
export interface SignatureAlgorithm {
  readonly hash: 'sha256' | 'sha384';
  readonly algorithmIdentifier: Buffer;
}

/** Picks the signature algorithm for a private key: RSA -> sha256WithRSA; EC P-256/P-384 -> ECDSA. */
export function signatureAlgorithmFor(key: KeyObject): SignatureAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return { hash: 'sha256', algorithmIdentifier: sequence(oid(OID.sha256WithRSAEncryption), NULL) };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'secp384r1') return { hash: 'sha384', algorithmIdentifier: sequence(oid(OID.ecdsaWithSha384)) };
    if (curve === 'prime256v1') return { hash: 'sha256', algorithmIdentifier: sequence(oid(OID.ecdsaWithSha256)) };
    throw new Error(`signing key: unsupported EC curve ${String(curve)} (use P-256 or P-384)`);
  }
  throw new Error(`signing key: unsupported key type ${String(key.asymmetricKeyType)} (use RSA or EC)`);
}

/** Everything a certificate says except its signature. */
export interface CertificateTemplate {
  /** Serial number bytes, unsigned big-endian. */
  readonly serial: Buffer;
  /** DER of the issuer Name (the signer's subject). */
  readonly issuer: Buffer;
  /** DER of the subject Name. */
  readonly subject: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** DER SubjectPublicKeyInfo of the certified key. */
  readonly subjectPublicKeyInfo: Buffer;
  /** Encoded extensions (see `extension`). */
  readonly extensions: readonly Buffer[];
}

function signAsync(hash: string, data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    sign(hash, data, key, (err, signature) => (err ? reject(err) : resolve(signature)));
  });
}

/** Encodes the TBSCertificate of `template` for signing with `algorithm`. */
export function encodeTbs(template: CertificateTemplate, algorithm: SignatureAlgorithm): Buffer {
  return sequence(
    contextTag(0, true, smallInteger(2)),
    unsignedInteger(template.serial),
    algorithm.algorithmIdentifier,
    template.issuer,
    sequence(time(template.notBefore), time(template.notAfter)),
    template.subject,
    template.subjectPublicKeyInfo,
    contextTag(3, true, sequence(...template.extensions)),
  );
}

/** Builds and signs a certificate; resolves to its DER. The signature runs on the libuv thread pool. */
export async function signCertificate(template: CertificateTemplate, signerKey: KeyObject): Promise<Buffer> {
  const algorithm = signatureAlgorithmFor(signerKey);
  const tbs = encodeTbs(template, algorithm);
  return sequence(tbs, algorithm.algorithmIdentifier, bitString(await signAsync(algorithm.hash, tbs, signerKey)));
}

/** Builds and signs a certificate on the calling thread (the CA's signer threads use this); returns its DER. */
export function signCertificateSync(template: CertificateTemplate, signerKey: KeyObject): Buffer {
  const algorithm = signatureAlgorithmFor(signerKey);
  const tbs = encodeTbs(template, algorithm);
  return sequence(tbs, algorithm.algorithmIdentifier, bitString(sign(algorithm.hash, tbs, signerKey)));
}
