/**
 * TLS of meshd's secure listeners (--secureGRPCAddr, --httpsAddr): `--tls-cipher-suites` (Go names) to
 * OpenSSL names, and server credentials whose certificate can be swapped without dropping connections.
 */
import type { SecureContextOptions } from 'node:tls';
import * as grpc from '@grpc/grpc-js';

/** Thrown for a bad `--tls-cipher-suites` entry; the message names it. */
export class CipherSuiteError extends Error {
  override readonly name = 'CipherSuiteError';
}

/** TLS 1.3 suites: Go does not let them be configured (always on); Node names them the same way. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'] as const;

/** Go's secure TLS 1.0-1.2 suites (crypto/tls CipherSuites()) and their OpenSSL names. */
const SECURE_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // Go's legacy aliases of the two above.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** Go's insecure suites (crypto/tls InsecureCipherSuites() and the RSA-kex ones): accepted with a warning. */
const INSECURE_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** The parsed `--tls-cipher-suites`. */
export interface CipherSuiteSelection {
  /** The Node `ciphers` string, or undefined for Node's defaults (flag empty). */
  readonly ciphers: string | undefined;
  /** Insecure suites that were asked for (warn about them). */
  readonly insecure: readonly string[];
}

/**
 * Maps Go cipher-suite names to the OpenSSL string Node takes. Empty list: Node's defaults. TLS 1.3 suites
 * stay enabled whatever the list says (as in Go, where they cannot be configured); naming one is accepted.
 * An insecure suite is accepted and reported in `insecure`; an unknown name throws `CipherSuiteError`.
 */
export function parseCipherSuites(names: readonly string[]): CipherSuiteSelection {
  const chosen: string[] = [];
  const insecure: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    if ((TLS13_SUITES as readonly string[]).includes(name)) continue;
    const secure = SECURE_SUITES[name];
    const weak = INSECURE_SUITES[name];
    if (secure) chosen.push(secure);
    else if (weak) {
      chosen.push(weak);
      insecure.push(name);
    } else {
      throw new CipherSuiteError(`--tls-cipher-suites: unknown cipher suite "${name}" (use Go names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)`);
    }
  }
  if (chosen.length === 0) return { ciphers: undefined, insecure };
  return { ciphers: [...TLS13_SUITES, ...new Set(chosen)].join(':'), insecure };
}

/** PEM material of a secure listener. */
export interface TlsMaterial {
  /** Server certificate chain, leaf first. */
  readonly certChainPem: string;
  readonly keyPem: string;
  /** Roots client certificates are verified against (the CA's bundle, plus --caCertFile). */
  readonly trustBundlePem: string;
}

/** Node secure-context options of `material` with `ciphers`. */
export function secureContextOptions(material: TlsMaterial, ciphers: string | undefined): SecureContextOptions {
  return {
    cert: material.certChainPem,
    key: material.keyPem,
    ...(material.trustBundlePem ? { ca: material.trustBundlePem } : {}),
    ...(ciphers ? { ciphers } : {}),
    minVersion: 'TLSv1.2',
  };
}

/**
 * grpc-js server credentials of the secure gRPC listener: request a client certificate without requiring one
 * (token and mTLS callers share the port; the authenticators check what arrives), with the chosen ciphers.
 * `update()` swaps the certificate: new handshakes get it, open connections keep theirs.
 */
export class ReloadableServerCredentials extends grpc.ServerCredentials {
  constructor(
    material: TlsMaterial,
    readonly ciphers: string | undefined,
  ) {
    super({ requestCert: true, rejectUnauthorized: false, ...(ciphers ? { ciphers } : {}) }, secureContextOptions(material, ciphers));
  }

  /** Serves `material` to new handshakes. */
  update(material: TlsMaterial): void {
    this.updateSecureContextOptions(secureContextOptions(material, this.ciphers));
  }

  _equals(other: grpc.ServerCredentials): boolean {
    return other === this;
  }
}
