// TLS server credentials that request a client certificate without requiring one (Go's
// VerifyClientCertIfGiven), so token callers and mTLS callers share one listener.
import * as grpc from '@grpc/grpc-js';

/** PEM inputs of the secure listener. */
export interface CaServerTlsMaterial {
  /** Server certificate chain, leaf first. */
  readonly certChainPem: string;
  readonly keyPem: string;
  /** Roots offered to clients as acceptable client-certificate issuers. */
  readonly trustBundlePem: string;
}

/**
 * A certificate provider serving both the identity and the CA roles from fixed material; `update()` swaps
 * it (e.g. after root rotation) and the server picks the new context for new connections.
 * NOTE: listeners get the current material in a microtask, not synchronously: grpc-js 1.14 registers its
 * server watcher only after subscribing to the provider, so a synchronous first update would be lost.
 */
export class StaticCertificateProvider implements grpc.experimental.CertificateProvider {
  #material: CaServerTlsMaterial;
  readonly #caListeners = new Set<grpc.experimental.CaCertificateUpdateListener>();
  readonly #identityListeners = new Set<grpc.experimental.IdentityCertificateUpdateListener>();

  constructor(material: CaServerTlsMaterial) {
    this.#material = material;
  }

  /** Replaces the material and notifies the server. */
  update(material: CaServerTlsMaterial): void {
    this.#material = material;
    for (const l of this.#caListeners) l(this.#caUpdate());
    for (const l of this.#identityListeners) l(this.#identityUpdate());
  }

  #caUpdate(): grpc.experimental.CaCertificateUpdate {
    return { caCertificate: Buffer.from(this.#material.trustBundlePem) };
  }

  #identityUpdate(): grpc.experimental.IdentityCertificateUpdate {
    return { certificate: Buffer.from(this.#material.certChainPem), privateKey: Buffer.from(this.#material.keyPem) };
  }

  addCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    this.#caListeners.add(listener);
    queueMicrotask(() => {
      if (this.#caListeners.has(listener)) listener(this.#caUpdate());
    });
  }

  removeCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    this.#caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.#identityListeners.add(listener);
    queueMicrotask(() => {
      if (this.#identityListeners.has(listener)) listener(this.#identityUpdate());
    });
  }

  removeIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.#identityListeners.delete(listener);
  }
}

/**
 * Server credentials for the CA's listener: present `certChainPem`/`keyPem`, request (not require) a client
 * certificate. Client certificates are verified by `ClientCertificateAuthenticator`, not by TLS.
 * NOTE: one provider serves both roles because grpc-js 1.14's
 * `createCertificateProviderServerCredentials` swaps its first two arguments internally.
 */
export function createCaServerCredentials(provider: StaticCertificateProvider): grpc.ServerCredentials {
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, false);
}
