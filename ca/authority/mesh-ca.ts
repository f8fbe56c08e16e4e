// The signing core: issues workload certificates from a CSR's key for already-authorized identities.
import { createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { systemClock, type Clock } from '../../core/index.js';
import type { CsrProof, DecodedCsr } from '../pki/csr.js';
import type { SigningAuthority } from './ca-material.js';
import type { LeafIssuer } from './leaf-profile.js';
import { sharedSignerPool, type SignerPool } from './signer-pool.js';

const leafIssuerOf = (authority: SigningAuthority): LeafIssuer => ({ name: authority.issuerName, keyId: authority.issuerKeyId, key: authority.signingKey });

/** Workload certificate lifetimes (DEFAULT_WORKLOAD_CERT_TTL, MAX_WORKLOAD_CERT_TTL), ms. */
export interface WorkloadTtlOptions {
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
}

/** Whether the CA's material is self-signed by meshd (rotatable) or plugged in from ROOT_CA_DIR. */
export type CaMode = 'self-signed' | 'plugged-in';

/**
 * Issues workload certificates like Istio's (the profile is in leaf-profile.ts) on the signer threads. The
 * signing state can be swapped (root rotation); each signature uses the state current when it started.
 * `clock` (default the system clock) dates the certificates and runs the timers of the CA's helpers
 * (root rotation, serving-certificate renewal).
 */
export class MeshCa {
  #authority: SigningAuthority;
  /** The signer threads' view of the authority, one object per authority (threads are sent it once). */
  #issuer: LeafIssuer;
  readonly #listeners = new Set<(authority: SigningAuthority) => void>();

  constructor(
    authority: SigningAuthority,
    readonly mode: CaMode,
    readonly ttl: WorkloadTtlOptions,
    readonly clock: Clock = systemClock,
    readonly signer: SignerPool = sharedSignerPool(),
  ) {
    this.#authority = authority;
    this.#issuer = leafIssuerOf(authority);
  }

  /** The current signing state. */
  get authority(): SigningAuthority {
    return this.#authority;
  }

  /** Swaps in a new signing state (after rotation) and tells the listeners. */
  replaceAuthority(authority: SigningAuthority): void {
    this.#authority = authority;
    this.#issuer = leafIssuerOf(authority);
    for (const listener of this.#listeners) listener(authority);
  }

  /** Calls `listener` now and after every `replaceAuthority`; returns the unsubscribe function. */
  onAuthority(listener: (authority: SigningAuthority) => void): () => void {
    this.#listeners.add(listener);
    listener(this.#authority);
    return () => this.#listeners.delete(listener);
  }

  /** The trusted roots as PEM, active first. */
  trustBundlePem(): string[] {
    return this.#authority.trustedRoots.map((r) => r.toString());
  }

  /** DEFAULT_WORKLOAD_CERT_TTL for a non-positive request, else the request capped at MAX_WORKLOAD_CERT_TTL. */
  effectiveTtlMs(requestedMs: number): number {
    if (!(requestedMs > 0)) return this.ttl.defaultTtlMs;
    return Math.min(requestedMs, this.ttl.maxTtlMs);
  }

  /**
   * Signs a workload certificate for the CSR's key with URI SANs `uris` (already authorized), after checking
   * the CSR's signature (rejects with `CsrError` when it fails). Resolves to the PEM chain: leaf, signing
   * certificate and intermediates, root last.
   */
  async signWorkload(csr: Pick<DecodedCsr, 'subjectPublicKeyInfo' | 'proof'>, uris: readonly string[], requestedTtlMs: number): Promise<string[]> {
    return this.#signLeaf(csr.subjectPublicKeyInfo, { uris }, this.effectiveTtlMs(requestedTtlMs), csr.proof);
  }

  /** Signs a leaf for `subjectPublicKeyInfo`; with `proof`, the CSR signature over that key is checked first. */
  async #signLeaf(subjectPublicKeyInfo: Buffer, sans: { uris?: readonly string[]; dns?: readonly string[] }, ttlMs: number, proof?: CsrProof): Promise<string[]> {
    const authority = this.#authority;
    const now = this.clock.date();
    const leafPem = await this.signer.sign({
      issuer: this.#issuer,
      subjectPublicKeyInfo,
      sans,
      notBefore: now,
      notAfter: new Date(now.getTime() + ttlMs),
      proof,
    });
    return [leafPem, ...authority.chainAfterLeaf];
  }

  /**
   * Issues a serving certificate for meshd's own TLS listeners (DNS SANs such as
   * `meshd.mesh-system.svc`): a fresh RSA 2048 key, signed with the CA's chain. Used when no
   * --tlsCertFile is given.
   */
  async issueServingCertificate(dnsNames: readonly string[], ttlMs: number): Promise<{ certChainPem: string[]; keyPem: string }> {
    if (dnsNames.length === 0) throw new Error('serving certificate: needs at least one DNS name');
    const key = await new Promise<KeyObject>((resolve, reject) => {
      generateKeyPair('rsa', { modulusLength: 2048 }, (err, _pub, priv) => (err ? reject(err) : resolve(priv)));
    });
    const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
    const certChainPem = await this.#signLeaf(spki, { dns: dnsNames }, ttlMs);
    return { certChainPem, keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }
}
