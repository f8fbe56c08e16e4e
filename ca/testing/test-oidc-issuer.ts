// A real OIDC issuer for tests: HTTP or HTTPS on 127.0.0.1:0 serving `/.well-known/openid-configuration`
// and a JWKS of keys made with node:crypto, and a signer of tokens with those keys.
import { generateKeyPairSync, sign as cryptoSign, createHmac, type KeyObject } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueTestCaCert } from './test-pki.js';

/** A signing key of the test issuer. */
export interface TestIssuerKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: KeyObject;
}

/** Claims for a service-account token; defaults are a valid token for `default/sleep` and `mesh-ca`. */
export interface TestTokenClaims {
  readonly [claim: string]: unknown;
}

/** A running test issuer. */
export interface TestOidcIssuer {
  /** e.g. `https://127.0.0.1:43123/issuer`. */
  readonly issuer: string;
  /** Keys published in the JWKS (mutable: push or splice to rotate). */
  readonly published: TestIssuerKey[];
  /** Requests served for the discovery document and for the JWKS. */
  readonly requests: { discovery: number; jwks: number };
  /** When false, every request answers 503. */
  available: boolean;
  /** Makes a key (not yet published). */
  newKey(alg: 'RS256' | 'ES256', kid: string): TestIssuerKey;
  /** Signs `claims` with `key` (header alg/kid from the key unless `header` overrides). */
  sign(claims: TestTokenClaims, key: TestIssuerKey, header?: Readonly<Record<string, unknown>>): string;
  /** A compact token with `alg: HS256` signed with `secret`, or `alg: none` when secret is undefined. */
  signUnsafe(claims: TestTokenClaims, secret: string | undefined): string;
  close(): Promise<void>;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Starts an issuer on 127.0.0.1:0, HTTPS with a self-signed certificate unless `tls` is false. */
export async function startTestOidcIssuer(options: { tls: boolean; path?: string } = { tls: true }): Promise<TestOidcIssuer> {
  const path = options.path ?? '/issuer';
  let base = '';
  const published: TestIssuerKey[] = [];
  const requests = { discovery: 0, jwks: 0 };
  const state = { available: true };
  const handler: http.RequestListener = (req, res) => {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!state.available) return send(503, { error: 'unavailable' });
    if (req.url === `${path}/.well-known/openid-configuration`) {
      requests.discovery++;
      return send(200, { issuer: base, jwks_uri: `${base}/keys`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
    }
    if (req.url === `${path}/keys`) {
      requests.jwks++;
      const keys = published.map((k) => ({ ...k.privateKey.export({ format: 'jwk' }), d: undefined, p: undefined, q: undefined, dp: undefined, dq: undefined, qi: undefined, kid: k.kid, alg: k.alg, use: 'sig' }));
      return send(200, { keys: JSON.parse(JSON.stringify(keys)) as unknown });
    }
    return send(404, { error: 'not found' });
  };
  let server: http.Server;
  if (options.tls) {
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const cert = await issueTestCaCert('test-oidc-issuer', key, undefined, new Date(Date.now() - 60_000), 3600_000);
    server = https.createServer({ key: cert.keyPem, cert: cert.certPem }, handler);
  } else {
    server = http.createServer(handler);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    issuer: base,
    published,
    requests,
    get available() {
      return state.available;
    },
    set available(value: boolean) {
      state.available = value;
    },
    newKey(alg, kid) {
      const privateKey = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
      return { kid, alg, privateKey };
    },
    sign(claims, key, header = {}) {
      const input = `${b64({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })}.${b64(claims)}`;
      const signature = key.alg === 'ES256'
        ? cryptoSign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
        : cryptoSign('sha256', Buffer.from(input), key.privateKey);
      return `${input}.${signature.toString('base64url')}`;
    },
    signUnsafe(claims, secret) {
      const input = `${b64({ alg: secret === undefined ? 'none' : 'HS256', typ: 'JWT' })}.${b64(claims)}`;
      return `${input}.${secret === undefined ? '' : createHmac('sha256', secret).update(input).digest('base64url')}`;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
