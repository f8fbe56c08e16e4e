// Reads the CA's environment variables once into typed options (docs/contracts.md: core/env).
import type { Env } from '../core/index.js';
import type { CaOptions } from './authority/create-mesh-ca.js';
import { CERTIFICATE_SERVICE_NAME } from './server/certificate-proto.js';
import { parseTrustedNodeAccounts, type ServiceAccountRef } from './server/node-authorizer.js';
import { JWT_POLICIES, type JwtPolicy } from './server/token-authenticator.js';

/** Thrown for a CA setting that is malformed or asks for something not built. */
export class CaOptionsError extends Error {
  override readonly name = 'CaOptionsError';
}

/** Settings of the certificate service. */
export interface CaServerOptions {
  /** ENABLE_CA_SERVER. */
  readonly enabled: boolean;
  /** TOKEN_AUDIENCES, split on commas. */
  readonly tokenAudiences: readonly string[];
  /** REQUIRE_3P_TOKEN. */
  readonly require3pToken: boolean;
  /** JWT_POLICY. */
  readonly jwtPolicy: JwtPolicy;
  /** CA_TRUSTED_NODE_ACCOUNTS. */
  readonly trustedNodeAccounts: readonly ServiceAccountRef[];
  /** TOKEN_ISSUER with its key-resolver settings; undefined when TOKEN_ISSUER is unset. */
  readonly oidc: OidcSettings | undefined;
}

/** OIDC token authentication (TOKEN_ISSUER). */
export interface OidcSettings {
  /** TOKEN_ISSUER: an http(s) URL; bearer tokens are verified as JWTs of this issuer. */
  readonly issuer: string;
  /** PILOT_JWT_PUB_KEY_REFRESH_INTERVAL. */
  readonly jwksRefreshIntervalMs: number;
  /** JWKS_RESOLVER_INSECURE_SKIP_VERIFY. */
  readonly jwksInsecureSkipVerify: boolean;
}

/** Both halves of the CA's configuration. */
export interface CaSettings {
  readonly ca: CaOptions;
  readonly server: CaServerOptions;
}

/**
 * Reads meshd's CA variables from `env` (made by `loadEnv('pilot-discovery')`) for `trustDomain`
 * (mesh config). Throws `CaOptionsError` naming the variable for a bad value.
 */
export function caSettingsFromEnv(env: Env, trustDomain: string): CaSettings {
  const oidc = oidcSettingsFromEnv(env);
  const jwtPolicy = env.string('JWT_POLICY') ?? 'third-party-jwt';
  if (!(JWT_POLICIES as readonly string[]).includes(jwtPolicy)) {
    throw new CaOptionsError(`JWT_POLICY="${jwtPolicy}": unknown policy (use ${JWT_POLICIES.join(' or ')})`);
  }
  const audiences = (env.string('TOKEN_AUDIENCES') ?? 'mesh-ca').split(',').map((a) => a.trim()).filter((a) => a.length > 0);
  if (audiences.length === 0) throw new CaOptionsError('TOKEN_AUDIENCES="": needs at least one audience, e.g. mesh-ca');
  const percentile = env.int('CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE');
  if (percentile <= 0 || percentile >= 100) {
    throw new CaOptionsError(`CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE=${percentile}: use a whole number between 1 and 99`);
  }
  const defaultTtlMs = env.duration('DEFAULT_WORKLOAD_CERT_TTL');
  const maxTtlMs = env.duration('MAX_WORKLOAD_CERT_TTL');
  if (!(defaultTtlMs > 0)) throw new CaOptionsError(`DEFAULT_WORKLOAD_CERT_TTL: must be positive, got ${defaultTtlMs}ms`);
  if (!(maxTtlMs > 0)) throw new CaOptionsError(`MAX_WORKLOAD_CERT_TTL: must be positive, got ${maxTtlMs}ms`);
  const rootTtlMs = env.duration('CERTAUTH_SELF_SIGNED_CA_CERT_TTL');
  if (!(rootTtlMs > 0)) throw new CaOptionsError(`CERTAUTH_SELF_SIGNED_CA_CERT_TTL: must be positive, got ${rootTtlMs}ms`);
  let trustedNodeAccounts: ServiceAccountRef[];
  try {
    trustedNodeAccounts = parseTrustedNodeAccounts(env.string('CA_TRUSTED_NODE_ACCOUNTS'));
  } catch (err) {
    throw new CaOptionsError((err as Error).message);
  }
  return {
    ca: {
      trustDomain,
      rootCaDir: env.string('ROOT_CA_DIR') ?? './etc/cacerts',
      selfSigned: {
        rootTtlMs,
        rsaKeySize: env.int('CERTAUTH_SELF_SIGNED_CA_RSA_KEY_SIZE'),
        checkIntervalMs: env.duration('CERTAUTH_SELF_SIGNED_ROOT_CERT_CHECK_INTERVAL'),
        enableJitter: env.bool('CERTAUTH_ENABLE_JITTER_FOR_ROOT_CERT_ROTATOR'),
        gracePeriodPercentile: percentile,
        useCacertsSecret: env.bool('USE_CACERTS_FOR_SELF_SIGNED_CA'),
      },
      workload: { defaultTtlMs, maxTtlMs },
    },
    server: {
      enabled: env.bool('ENABLE_CA_SERVER'),
      tokenAudiences: audiences,
      require3pToken: env.bool('REQUIRE_3P_TOKEN'),
      jwtPolicy: jwtPolicy as JwtPolicy,
      trustedNodeAccounts,
      oidc,
    },
  };
}

function oidcSettingsFromEnv(env: Env): OidcSettings | undefined {
  const issuer = env.string('TOKEN_ISSUER');
  if (!issuer) return undefined;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new CaOptionsError(`TOKEN_ISSUER="${issuer}": not a URL (use the issuer's https:// URL)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CaOptionsError(`TOKEN_ISSUER="${issuer}": scheme must be https (or http)`);
  const jwksRefreshIntervalMs = env.duration('PILOT_JWT_PUB_KEY_REFRESH_INTERVAL');
  if (!(jwksRefreshIntervalMs > 0)) throw new CaOptionsError(`PILOT_JWT_PUB_KEY_REFRESH_INTERVAL: must be positive, got ${jwksRefreshIntervalMs}ms`);
  return { issuer, jwksRefreshIntervalMs, jwksInsecureSkipVerify: env.bool('JWKS_RESOLVER_INSECURE_SKIP_VERIFY') };
}

/** The gRPC services the meshd assembly registers for the CA: none when ENABLE_CA_SERVER is false. */
export function caServicesToRegister(server: Pick<CaServerOptions, 'enabled'>): readonly (typeof CERTIFICATE_SERVICE_NAME)[] {
  return server.enabled ? [CERTIFICATE_SERVICE_NAME] : [];
}
