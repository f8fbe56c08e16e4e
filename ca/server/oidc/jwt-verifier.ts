// Verifies a compact JWS (JWT) against a JSON Web Key with node:crypto: RS256/384/512, PS256/384/512,
// ES256/384/512. `alg: none` and HMAC algorithms are refused: the CA holds no shared secret.
import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { AuthenticationError } from '../authenticator.js';

/** The JOSE header fields read. */
export interface JwtHeader {
  readonly alg: string;
  readonly kid?: string;
  readonly typ?: string;
}

/** A split token: header and claims decoded, signing input and signature kept for verification. */
export interface ParsedJwt {
  readonly header: JwtHeader;
  readonly claims: Readonly<Record<string, unknown>>;
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

interface AlgorithmSpec {
  readonly kty: 'RSA' | 'EC';
  readonly hash: string;
  readonly crv?: string;
  readonly pss?: boolean;
}

/** Asymmetric algorithms the verifier accepts. */
export const SUPPORTED_JWT_ALGORITHMS: Readonly<Record<string, AlgorithmSpec>> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: true },
  PS384: { kty: 'RSA', hash: 'sha384', pss: true },
  PS512: { kty: 'RSA', hash: 'sha512', pss: true },
  ES256: { kty: 'EC', hash: 'sha256', crv: 'P-256' },
  ES384: { kty: 'EC', hash: 'sha384', crv: 'P-384' },
  ES512: { kty: 'EC', hash: 'sha512', crv: 'P-521' },
};

/**
 * A parser's message for a refusal: JSON.parse quotes the bad input, so control characters (a newline forged
 * into a token) are escaped and the quote cut, and the refusal stays one printable line.
 */
export function printableCause(message: string): string {
  const escaped = message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > 200 ? `${escaped.slice(0, 200)}...` : escaped;
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch (err) {
    throw new AuthenticationError(`oidc: JWT ${what} is not JSON (${printableCause((err as Error).message)})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AuthenticationError(`oidc: JWT ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Splits and decodes a compact JWS; throws `AuthenticationError` for a malformed token or a refused `alg`. */
export function parseJwt(token: string): ParsedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AuthenticationError('oidc: token is not a JWT (expected three dot-separated parts)');
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h, 'header');
  const alg = header['alg'];
  if (typeof alg !== 'string') throw new AuthenticationError('oidc: JWT header has no alg');
  if (alg.toLowerCase() === 'none') throw new AuthenticationError('oidc: JWT alg "none" (unsigned token) is refused');
  if (/^HS/i.test(alg)) throw new AuthenticationError(`oidc: JWT alg "${alg}" (HMAC) is refused: only asymmetric signatures are accepted`);
  if (!SUPPORTED_JWT_ALGORITHMS[alg]) throw new AuthenticationError(`oidc: JWT alg "${alg}" is not supported (use one of ${Object.keys(SUPPORTED_JWT_ALGORITHMS).join(', ')})`);
  const kid = header['kid'];
  if (kid !== undefined && typeof kid !== 'string') throw new AuthenticationError('oidc: JWT header kid is not a string');
  return {
    header: { alg, kid, typ: typeof header['typ'] === 'string' ? header['typ'] : undefined },
    claims: decodeJson(p, 'payload'),
    signingInput: Buffer.from(`${h}.${p}`, 'ascii'),
    signature: Buffer.from(s, 'base64url'),
  };
}

/** A key of a JWKS, ready to verify. */
export interface VerificationKey {
  readonly kid: string | undefined;
  readonly kty: string;
  readonly crv: string | undefined;
  /** The JWK's `alg`, when it pins one. */
  readonly alg: string | undefined;
  readonly key: KeyObject;
}

/** Imports the usable signature keys of a JWKS document; `skipped` names each key left out and why. */
export function importJwks(document: unknown): { keys: VerificationKey[]; skipped: string[] } {
  const list = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error('JWKS has no "keys" array');
  const keys: VerificationKey[] = [];
  const skipped: string[] = [];
  list.forEach((raw: unknown, i) => {
    const jwk = raw as JsonWebKey & { kid?: unknown; use?: unknown; alg?: unknown };
    const label = typeof jwk?.kid === 'string' ? `kid "${jwk.kid}"` : `keys[${i}]`;
    if (jwk?.use !== undefined && jwk.use !== 'sig') return skipped.push(`${label}: use "${String(jwk.use)}"`);
    if (jwk?.kty !== 'RSA' && jwk?.kty !== 'EC') return skipped.push(`${label}: kty "${String(jwk?.kty)}" is not RSA or EC`);
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      keys.push({ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, kty: jwk.kty, crv: jwk.crv, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined, key });
    } catch (err) {
      skipped.push(`${label}: ${(err as Error).message}`);
    }
    return undefined;
  });
  return { keys, skipped };
}

/** Whether `key` can check a signature made with `alg`. */
export function keyFitsAlgorithm(key: VerificationKey, alg: string): boolean {
  const spec = SUPPORTED_JWT_ALGORITHMS[alg];
  if (!spec || key.kty !== spec.kty) return false;
  if (key.alg !== undefined && key.alg !== alg) return false;
  return spec.crv === undefined || key.crv === spec.crv;
}

/** Checks the JWS signature of `jwt` with `key` (which must fit the header's alg). */
export function verifySignature(jwt: ParsedJwt, key: VerificationKey): boolean {
  const spec = SUPPORTED_JWT_ALGORITHMS[jwt.header.alg]!;
  try {
    if (spec.kty === 'EC') return verify(spec.hash, jwt.signingInput, { key: key.key, dsaEncoding: 'ieee-p1363' }, jwt.signature);
    if (spec.pss) return verify(spec.hash, jwt.signingInput, { key: key.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, jwt.signature);
    return verify(spec.hash, jwt.signingInput, key.key, jwt.signature);
  } catch {
    return false; // a signature of the wrong length or encoding does not verify
  }
}
