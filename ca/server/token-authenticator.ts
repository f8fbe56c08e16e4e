// Authenticates callers by the Kubernetes service-account token in the `authorization: Bearer` header.
import { systemClock, type Clock } from '../../core/index.js';
import { AuthenticationError, spiffeIdentity, type Authenticator, type CallCredentials, type Caller } from './authenticator.js';
import { CaRefusal } from './ca-refusal.js';
import { printableCause } from './oidc/jwt-verifier.js';

/** Answer of a TokenReview (authentication.k8s.io/v1), reduced to what the CA reads. */
export interface TokenReviewResult {
  readonly authenticated: boolean;
  readonly error?: string;
  /** e.g. `system:serviceaccount:default:sleep`. */
  readonly username?: string;
  /** Audiences the token was accepted for (the intersection with the requested ones). */
  readonly audiences?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Asks the API server whether a token is valid (for `audiences`, when given). */
export interface TokenReviewer {
  review(token: string, audiences: readonly string[] | undefined): Promise<TokenReviewResult>;
}

/** JWT_POLICY values: third-party tokens are reviewed for TOKEN_AUDIENCES, first-party tokens without. */
export const JWT_POLICIES = ['third-party-jwt', 'first-party-jwt'] as const;
export type JwtPolicy = (typeof JWT_POLICIES)[number];

/** Settings of token authentication (TOKEN_AUDIENCES, REQUIRE_3P_TOKEN, JWT_POLICY). */
export interface TokenAuthenticatorOptions {
  readonly trustDomain: string;
  readonly audiences: readonly string[];
  readonly require3pToken: boolean;
  readonly jwtPolicy: JwtPolicy;
  /** Longest time a successful review is reused (never past the token's exp). Default 5 minutes. */
  readonly cacheTtlMs?: number;
  /** Most reviews kept; the oldest is dropped first. Default 10,000. */
  readonly cacheSize?: number;
  /** Wall clock the tokens' `exp` and the review cache are judged by; default the system clock. */
  readonly clock?: Clock;
}

/** The claims the CA reads from a token's payload (the TokenReview checks the signature). */
interface TokenClaims {
  readonly exp?: number;
  readonly aud?: string | string[];
  readonly 'kubernetes.io'?: { readonly node?: { readonly name?: string } };
}

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;
const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

function decodeClaims(token: string): TokenClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AuthenticationError('token: not a JWT (expected three dot-separated parts)');
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    if (claims === null || typeof claims !== 'object') throw new Error('payload is not an object');
    return claims as TokenClaims;
  } catch (err) {
    throw new AuthenticationError(`token: JWT payload is not JSON (${printableCause((err as Error).message)})`);
  }
}

/** Extracts the bearer token of the `authorization` metadata; undefined when there is none. */
export function bearerToken(credentials: CallCredentials): string | undefined {
  for (const value of credentials.metadata.get('authorization')) {
    const text = typeof value === 'string' ? value : value.toString('utf8');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(text);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Token authentication: checks exp and (REQUIRE_3P_TOKEN) the audience claim locally, then a TokenReview
 * for TOKEN_AUDIENCES (third-party-jwt) or without audiences (first-party-jwt). The username must be a
 * service account; its SPIFFE identity is the caller's. Successful reviews are cached per token until the
 * earlier of its exp and `cacheTtlMs`, at most `cacheSize` entries.
 */
export class TokenAuthenticator implements Authenticator {
  readonly name = 'token';
  readonly absentReason = 'no bearer token in the authorization metadata';
  readonly #cache = new Map<string, { caller: Caller; expiresAt: number }>();
  readonly #clock: Clock;

  constructor(
    readonly options: TokenAuthenticatorOptions,
    readonly reviewer: TokenReviewer,
  ) {
    this.#clock = options.clock ?? systemClock;
  }

  async authenticate(credentials: CallCredentials): Promise<Caller | undefined> {
    const token = bearerToken(credentials);
    if (token === undefined) return undefined;
    const now = this.#clock.wallNow();
    const hit = this.#cache.get(token);
    if (hit && hit.expiresAt > now) return hit.caller;
    if (hit) this.#cache.delete(token);

    const claims = decodeClaims(token);
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= now) {
      throw new AuthenticationError(`token: expired at ${new Date(claims.exp * 1000).toISOString()}`);
    }
    const claimedAudiences = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (this.options.require3pToken && claimedAudiences.length === 0) {
      throw new AuthenticationError('token: has no audience and REQUIRE_3P_TOKEN is true (use a projected token for one of TOKEN_AUDIENCES)');
    }
    const thirdParty = this.options.jwtPolicy === 'third-party-jwt';
    const review = await this.reviewer.review(token, thirdParty ? this.options.audiences : undefined);
    if (!review.authenticated) throw new AuthenticationError(`token: rejected by TokenReview${review.error ? `: ${review.error}` : ''}`);
    if (thirdParty && review.audiences && !review.audiences.some((a) => this.options.audiences.includes(a))) {
      throw new AuthenticationError(`token: audiences [${review.audiences.join(',')}] include none of TOKEN_AUDIENCES [${this.options.audiences.join(',')}]`);
    }
    const user = SERVICE_ACCOUNT_USER.exec(review.username ?? '');
    if (!user) {
      throw new CaRefusal('UNAUTHENTICATED', 'certauth_server_id_extraction_err_count',
        `token: user "${review.username ?? ''}" is not a service account (system:serviceaccount:<namespace>:<name>)`);
    }
    const [, namespace, serviceAccount] = user as unknown as [string, string, string];
    const nodeName = claims['kubernetes.io']?.node?.name ?? review.extra?.[NODE_NAME_EXTRA]?.[0];
    const caller: Caller = {
      authenticatedBy: this.name,
      identities: [spiffeIdentity(this.options.trustDomain, namespace, serviceAccount)],
      kubernetes: { namespace, serviceAccount, nodeName },
    };
    this.#remember(token, caller, now, claims.exp);
    return caller;
  }

  #remember(token: string, caller: Caller, now: number, exp: number | undefined): void {
    const limit = now + (this.options.cacheTtlMs ?? 5 * 60_000);
    const expiresAt = typeof exp === 'number' ? Math.min(exp * 1000, limit) : limit;
    const size = this.options.cacheSize ?? 10_000;
    if (size <= 0) return;
    while (this.#cache.size >= size) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(token, { caller, expiresAt });
  }

  /** Number of cached reviews (for tests and debug pages). */
  get cachedReviews(): number {
    return this.#cache.size;
  }
}
