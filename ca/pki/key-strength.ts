// The CA's floor on subject key strength: RSA keys of at least 2048 bits (Istio's MinimumRsaKeySize) and EC
// keys on P-256, P-384 or P-521. Read from the SubjectPublicKeyInfo's DER alone (no key parsing), so it is
// cheap enough to run on the event loop before a request reaches a signer thread.
import { DerError, TAG, children, decodeOid, readOne, type DerElement } from './der.js';
import { OID } from './oids.js';

/** Smallest RSA modulus the CA signs, in bits (Istio's `MinimumRsaKeySize`). */
export const MIN_RSA_KEY_BITS = 2048;

/** Named curves the CA accepts for EC subject keys, by OID. */
export const ALLOWED_EC_CURVES: ReadonlyMap<string, string> = new Map([
  ['1.2.840.10045.3.1.7', 'P-256'],
  ['1.3.132.0.34', 'P-384'],
  ['1.3.132.0.35', 'P-521'],
]);

/** Curves weaker than P-256 that people meet, by OID, so the refusal can name them. */
const WEAK_EC_CURVES: ReadonlyMap<string, string> = new Map([
  ['1.2.840.10045.3.1.1', 'P-192'],
  ['1.3.132.0.33', 'P-224'],
]);

/** Why a key was refused: too weak (`weak-key`) or of a kind the CA does not sign (`unsupported`). */
export class KeyStrengthError extends Error {
  override readonly name = 'KeyStrengthError';
  constructor(
    readonly reason: 'weak-key' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

/** What `checkKeyStrength` found. */
export type SubjectKey = { readonly type: 'rsa'; readonly bits: number } | { readonly type: 'ec'; readonly curve: string };

function bitLength(unsignedBigEndian: Buffer): number {
  let i = 0;
  while (i < unsignedBigEndian.length && unsignedBigEndian[i] === 0) i++;
  if (i === unsignedBigEndian.length) return 0;
  return (unsignedBigEndian.length - i - 1) * 8 + (32 - Math.clz32(unsignedBigEndian[i]!));
}

function rsaModulusBits(publicKey: DerElement): number {
  if (publicKey.tag !== TAG.BIT_STRING || publicKey.content.length < 2 || publicKey.content[0] !== 0) {
    throw new DerError('subjectPublicKey: expected a BIT STRING with no unused bits');
  }
  const key = readOne(publicKey.content.subarray(1), 'RSAPublicKey', TAG.SEQUENCE);
  const modulus = children(key, 'RSAPublicKey')[0];
  if (!modulus || modulus.tag !== TAG.INTEGER) throw new DerError('RSAPublicKey: expected the modulus INTEGER');
  return bitLength(modulus.content);
}

/**
 * Checks a DER SubjectPublicKeyInfo against the CA's floor. Throws `KeyStrengthError` naming the key's size
 * or curve and the minimum (`weak-key`), or the algorithm when it is neither RSA nor EC (`unsupported`);
 * throws `DerError` when the structure is malformed. Returns what it found.
 */
export function checkKeyStrength(subjectPublicKeyInfo: Buffer): SubjectKey {
  const spki = readOne(subjectPublicKeyInfo, 'subjectPKInfo', TAG.SEQUENCE);
  const [algorithm, publicKey] = children(spki, 'subjectPKInfo');
  if (!algorithm || !publicKey || algorithm.tag !== TAG.SEQUENCE) throw new DerError('subjectPKInfo: expected algorithm and subjectPublicKey');
  const [algorithmOid, parameters] = children(algorithm, 'subjectPKInfo algorithm');
  const keyAlgorithm = decodeOid(algorithmOid, 'subjectPKInfo algorithm');
  if (keyAlgorithm === OID.rsaEncryption) {
    const bits = rsaModulusBits(publicKey);
    if (bits < MIN_RSA_KEY_BITS) {
      throw new KeyStrengthError('weak-key', `RSA key of ${bits} bits is too small: the minimum is ${MIN_RSA_KEY_BITS} bits`);
    }
    return { type: 'rsa', bits };
  }
  if (keyAlgorithm === OID.ecPublicKey) {
    if (parameters?.tag !== TAG.OID) throw new KeyStrengthError('unsupported', 'EC key without a named curve (use P-256, P-384 or P-521)');
    const curveOid = decodeOid(parameters, 'EC curve');
    const curve = ALLOWED_EC_CURVES.get(curveOid);
    if (!curve) {
      const weak = WEAK_EC_CURVES.get(curveOid);
      if (weak) throw new KeyStrengthError('weak-key', `EC curve ${weak} (${curveOid}) is too weak: the minimum is P-256 (use P-256, P-384 or P-521)`);
      throw new KeyStrengthError('unsupported', `EC curve ${curveOid} is not supported (use P-256, P-384 or P-521)`);
    }
    return { type: 'ec', curve };
  }
  throw new KeyStrengthError('unsupported', `unsupported public key algorithm ${keyAlgorithm} (use RSA of at least ${MIN_RSA_KEY_BITS} bits, or EC P-256, P-384 or P-521)`);
}
