// Authenticates callers by a bearer JWT verified locally against the TOKEN_ISSUER's JWKS (OIDC), the way
// Istio's JWT authenticator does when an issuer is configured: signature, iss, aud, exp/nbf, then the
// Kubernetes service-account identity from the claims.
import { systemClock, type Clock } from '../../../core/index.js';
import { AuthenticationError, spiffeIdentity, type Authenticator, type CallCredentials, type Caller } from '../authenticator.js';
import { bearerToken } from '../token-authenticator.js';
import { JwksFetchError, type JwksResolver } from './jwks-resolver.js';
import { keyFitsAlgorithm, parseJwt, verifySignature, type ParsedJwt, type VerificationKey } from './jwt-verifier.js';

/** Settings of OIDC token authentication. */
export interface OidcTokenAuthenticatorOptions {
  readonly trustDomain: string;
  /** TOKEN_ISSUER: the `iss` every token must carry. */
  readonly issuer: string;
  /** TOKEN_AUDIENCES: the token's `aud` must name at least one. */
  readonly audiences: readonly string[];
  /** Allowed clock skew for exp/nbf. Default 60 s. */
  readonly clockSkewMs?: number;
  /** Wall clock `exp` and `nbf` are judged by; default the system clock. */
  readonly clock?: Clock;
}

/**
 * A claim's value as it appears in the token, for a refusal message (at most 100 characters).
 * NOTE: found by fuzzing (ca/testing/ca-fuzz-surface.ts): `String(claim)` printed an object claim as
 * "[object Object]", which names nothing the caller can find in its token.
 */
function claimText(v: unknown): string {
  const text = v === undefined ? 'absent' : (JSON.stringify(v) ?? String(v));
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}

/** `seconds` since the epoch as an ISO time, or as the number when no date holds it (a hostile 1e308). */
function timeText(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? `${seconds} s after the epoch` : d.toISOString();
}

const SERVICE_ACCOUNT_SUBJECT = /^system:serviceaccount:([^:]+):([^:]+)$/;

interface KubernetesClaims {
  readonly namespace?: unknown;
  readonly serviceaccount?: { readonly name?: unknown };
  readonly node?: { readonly name?: unknown };
}

/**
 * Verifies bearer tokens as JWTs of `issuer`. Every refusal is an `AuthenticationError` naming the check:
 * malformed, alg, unknown key, signature, issuer, audience, expired, not yet valid, unreachable issuer,
 * identity.
 */
export class OidcTokenAuthenticator implements Authenticator {
  readonly name = 'oidc';
  readonly absentReason = 'no bearer token in the authorization metadata';
  readonly #clock: Clock;

  constructor(
    readonly options: OidcTokenAuthenticatorOptions,
    readonly resolver: JwksResolver,
  ) {
    this.#clock = options.clock ?? systemClock;
  }

  async authenticate(credentials: CallCredentials): Promise<Caller | undefined> {
    const token = bearerToken(credentials);
    if (token === undefined) return undefined;
    const jwt = parseJwt(token);
    await this.#verifySignature(jwt);
    this.#checkClaims(jwt.claims);
    return this.#caller(jwt.claims);
  }

  async #verifySignature(jwt: ParsedJwt): Promise<void> {
    const { alg, kid } = jwt.header;
    const candidates = (keys: readonly VerificationKey[]): VerificationKey[] =>
      keys.filter((k) => (kid === undefined || k.kid === kid) && keyFitsAlgorithm(k, alg));
    let found = candidates(await this.#keys(() => this.resolver.keys()));
    if (found.length === 0) found = candidates(await this.#keys(() => this.resolver.refetchForUnknownKid()));
    if (found.length === 0) {
      throw new AuthenticationError(`oidc: unknown key: issuer ${this.options.issuer} has no ${alg} key${kid === undefined ? '' : ` with kid "${kid}"`}`);
    }
    if (!found.some((k) => verifySignature(jwt, k))) throw new AuthenticationError(`oidc: bad signature (${alg}${kid === undefined ? '' : `, kid "${kid}"`})`);
  }

  async #keys(get: () => Promise<readonly VerificationKey[]>): Promise<readonly VerificationKey[]> {
    try {
      return await get();
    } catch (err) {
      if (err instanceof JwksFetchError) throw new AuthenticationError(`oidc: issuer unreachable: ${err.message}`);
      throw err;
    }
  }

  #checkClaims(claims: Readonly<Record<string, unknown>>): void {
    const { issuer, audiences } = this.options;
    if (claims['iss'] !== issuer) throw new AuthenticationError(`oidc: wrong issuer ${claimText(claims['iss'])} (expected "${issuer}")`);
    const aud = claims['aud'];
    const tokenAudiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    if (!tokenAudiences.some((a) => audiences.includes(a))) {
      throw new AuthenticationError(`oidc: audience [${tokenAudiences.join(',')}] includes none of TOKEN_AUDIENCES [${audiences.join(',')}]`);
    }
    const now = this.#clock.wallNow();
    const skew = this.options.clockSkewMs ?? 60_000;
    const exp = claims['exp'];
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new AuthenticationError('oidc: token has no numeric exp claim');
    if (exp * 1000 + skew <= now) throw new AuthenticationError(`oidc: token expired at ${timeText(exp)}`);
    const nbf = claims['nbf'];
    if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf))) throw new AuthenticationError('oidc: nbf claim is not a number');
    if (typeof nbf === 'number' && nbf * 1000 - skew > now) throw new AuthenticationError(`oidc: token not valid before ${timeText(nbf)}`);
  }

  #caller(claims: Readonly<Record<string, unknown>>): Caller {
    const k8s = (claims['kubernetes.io'] ?? {}) as KubernetesClaims;
    let namespace = typeof k8s.namespace === 'string' ? k8s.namespace : undefined;
    let serviceAccount = typeof k8s.serviceaccount?.name === 'string' ? k8s.serviceaccount.name : undefined;
    if (namespace === undefined || serviceAccount === undefined) {
      const m = SERVICE_ACCOUNT_SUBJECT.exec(typeof claims['sub'] === 'string' ? claims['sub'] : '');
      if (!m) {
        throw new AuthenticationError(`oidc: no service-account identity: neither kubernetes.io.namespace + kubernetes.io.serviceaccount.name nor sub ${claimText(claims['sub'])} (system:serviceaccount:<namespace>:<name>)`);
      }
      [namespace, serviceAccount] = [m[1]!, m[2]!];
    }
    const nodeName = typeof k8s.node?.name === 'string' ? k8s.node.name : undefined;
    return {
      authenticatedBy: this.name,
      identities: [spiffeIdentity(this.options.trustDomain, namespace, serviceAccount)],
      kubernetes: { namespace, serviceAccount, nodeName },
    };
  }
}
