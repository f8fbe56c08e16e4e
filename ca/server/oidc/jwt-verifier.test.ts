import assert from 'node:assert/strict';
import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { AuthenticationError } from '../authenticator.js';
import { importJwks, keyFitsAlgorithm, parseJwt, verifySignature } from './jwt-verifier.js';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ecKeys: Record<string, KeyObject> = {
  'P-256': generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
  'P-384': generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey,
  'P-521': generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).privateKey,
};

function signed(alg: string, key: KeyObject): string {
  const input = `${b64({ alg, kid: 'k' })}.${b64({ sub: 'x' })}`;
  const hash = `sha${alg.slice(2)}`;
  let sig: Buffer;
  if (alg.startsWith('ES')) sig = sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  else if (alg.startsWith('PS')) sig = sign(hash, Buffer.from(input), { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  else sig = sign(hash, Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}
const jwks = (key: KeyObject, extra: Record<string, unknown> = {}): unknown => ({ keys: [{ ...JSON.parse(JSON.stringify({ ...key.export({ format: 'jwk' }), d: undefined, p: undefined, q: undefined, dp: undefined, dq: undefined, qi: undefined })) as object, kid: 'k', ...extra }] });

describe('jwt-verifier', () => {
  const algs = [
    { alg: 'RS256', key: rsaKey }, { alg: 'RS384', key: rsaKey }, { alg: 'RS512', key: rsaKey },
    { alg: 'PS256', key: rsaKey }, { alg: 'PS384', key: rsaKey }, { alg: 'PS512', key: rsaKey },
    { alg: 'ES256', key: ecKeys['P-256']! }, { alg: 'ES384', key: ecKeys['P-384']! }, { alg: 'ES512', key: ecKeys['P-521']! },
  ];
  for (const c of algs) {
    it(`given a ${c.alg} token and its public JWK should verify it, and refuse it after a flipped signature byte`, () => {
      const [key] = importJwks(jwks(c.key)).keys;
      const token = signed(c.alg, c.key);
      assert.ok(keyFitsAlgorithm(key!, c.alg));
      assert.equal(verifySignature(parseJwt(token), key!), true);
      const [h, p, s] = token.split('.') as [string, string, string];
      const sig = Buffer.from(s, 'base64url');
      sig[sig.length >> 1] ^= 0x01;
      assert.equal(verifySignature(parseJwt(`${h}.${p}.${sig.toString('base64url')}`), key!), false);
      assert.equal(verifySignature(parseJwt(`${h}.${p}.${sig.subarray(3).toString('base64url')}`), key!), false, 'truncated signature');
    });
  }

  const fits = [
    { name: 'given an EC P-256 key and ES384 should not fit (curve)', key: ecKeys['P-256']!, alg: 'ES384', extra: {}, want: false },
    { name: 'given an RSA key and ES256 should not fit (kty)', key: rsaKey, alg: 'ES256', extra: {}, want: false },
    { name: 'given an RSA key pinned to RS256 and PS256 should not fit (JWK alg)', key: rsaKey, alg: 'PS256', extra: { alg: 'RS256' }, want: false },
    { name: 'given an RSA key without alg and PS256 should fit', key: rsaKey, alg: 'PS256', extra: {}, want: true },
  ];
  for (const c of fits) it(c.name, () => assert.equal(keyFitsAlgorithm(importJwks(jwks(c.key, c.extra)).keys[0]!, c.alg), c.want));

  it('given a JWKS with an encryption key, an oct key and a broken key should import only the good one and name the others', () => {
    const good = (jwks(rsaKey) as { keys: object[] }).keys[0]!;
    const { keys, skipped } = importJwks({ keys: [good, { ...good, kid: 'enc', use: 'enc' }, { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' }, { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', kid: 'bad' }] });
    assert.deepEqual(keys.map((k) => k.kid), ['k']);
    assert.equal(skipped.length, 3);
    assert.match(skipped.join('\n'), /kid "enc": use "enc"/);
    assert.match(skipped.join('\n'), /kid "hmac": kty "oct" is not RSA or EC/);
    assert.match(skipped.join('\n'), /kid "bad": /);
  });

  const malformed = [
    { name: 'given two parts should name the shape', token: 'a.b', message: /not a JWT/ },
    { name: 'given a header that is not JSON should name the header', token: `bm90.${b64({})}.x`, message: /JWT header is not JSON/ },
    { name: 'given a payload array should name the payload', token: `${b64({ alg: 'RS256' })}.${b64([1])}.x`, message: /JWT payload is not a JSON object/ },
    { name: 'given an unsupported alg should list the supported ones', token: `${b64({ alg: 'EdDSA' })}.${b64({})}.x`, message: /alg "EdDSA" is not supported \(use one of RS256/ },
    { name: 'given alg None in another case should refuse it as unsigned', token: `${b64({ alg: 'None' })}.${b64({})}.`, message: /alg "none" \(unsigned token\) is refused/ },
  ];
  for (const c of malformed) it(c.name, () => assert.throws(() => parseJwt(c.token), (e: unknown) => e instanceof AuthenticationError && c.message.test(e.message)));

  it('given a header that is not JSON and holds a newline (fuzz finding) should refuse it on one printable line', () => {
    const token = `${Buffer.from('{"alg":"HS256","typ": \nWT"}').toString('base64url')}.${b64({})}.x`;
    assert.throws(() => parseJwt(token), (e: unknown) => e instanceof AuthenticationError && /JWT header is not JSON \(.*\\u000a/.test(e.message) && !/[\n\r]/.test(e.message));
  });
});
