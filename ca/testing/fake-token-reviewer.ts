// A TokenReviewer that plays the API server: it issues HMAC-signed JWTs and reviews them the way a
// TokenReview does (signature, expiry, audience intersection), for unit and integration tests.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock } from '../../core/index.js';
import type { TokenReviewResult, TokenReviewer } from '../server/token-authenticator.js';

/** Claims of a test token. */
export interface FakeTokenClaims {
  readonly namespace: string;
  readonly serviceAccount: string;
  /** Omit for a legacy (first-party) token without audience. */
  readonly audiences?: readonly string[];
  /** Seconds since the epoch; omit for no expiry. */
  readonly exp?: number;
  /** Bound node (`kubernetes.io.node.name`). */
  readonly nodeName?: string;
  /** Overrides the username (`system:serviceaccount:<ns>:<sa>`), e.g. to test a non-service-account user. */
  readonly username?: string;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Issues and reviews test tokens; counts reviews in `reviews`. */
export class FakeTokenReviewer implements TokenReviewer {
  readonly #secret = randomBytes(32);
  reviews = 0;

  /** @param clock the wall clock `exp` is judged by; default the system clock */
  constructor(readonly clock: Clock = systemClock) {}

  /** A signed token with the given claims. */
  issue(claims: FakeTokenClaims): string {
    const payload: Record<string, unknown> = {
      sub: claims.username ?? `system:serviceaccount:${claims.namespace}:${claims.serviceAccount}`,
    };
    if (claims.audiences) payload.aud = [...claims.audiences];
    if (claims.exp !== undefined) payload.exp = claims.exp;
    if (claims.nodeName) payload['kubernetes.io'] = { namespace: claims.namespace, node: { name: claims.nodeName } };
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
    return `${unsigned}.${this.#sign(unsigned)}`;
  }

  #sign(text: string): string {
    return createHmac('sha256', this.#secret).update(text).digest('base64url');
  }

  review(token: string, audiences: readonly string[] | undefined): Promise<TokenReviewResult> {
    this.reviews++;
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return Promise.resolve({ authenticated: false, error: 'malformed token' });
    const expected = Buffer.from(this.#sign(`${header}.${payload}`));
    const got = Buffer.from(signature);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) {
      return Promise.resolve({ authenticated: false, error: 'invalid bearer token' });
    }
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub: string; aud?: string[]; exp?: number };
    if (claims.exp !== undefined && claims.exp * 1000 <= this.clock.wallNow()) return Promise.resolve({ authenticated: false, error: 'token has expired' });
    let accepted: string[] | undefined;
    if (audiences) {
      accepted = (claims.aud ?? []).filter((a) => audiences.includes(a));
      if (accepted.length === 0) return Promise.resolve({ authenticated: false, error: 'token audiences are invalid' });
    }
    return Promise.resolve({ authenticated: true, username: claims.sub, audiences: accepted ?? claims.aud ?? [] });
  }
}
