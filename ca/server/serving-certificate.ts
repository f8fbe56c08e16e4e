// meshd's own TLS identity from the built-in CA (used when no --tlsCertFile is given): issued at start,
// re-issued at half its lifetime and whenever the CA's root changes, with the trust bundle kept current.
import type { Logger } from 'pino';
import type { MeshCa } from '../authority/mesh-ca.js';
import { StaticCertificateProvider, type CaServerTlsMaterial } from './ca-server-credentials.js';

/** What the serving certificate says and how long it lives. */
export interface ServingCertificateOptions {
  /** DNS SANs, e.g. `meshd.mesh-system.svc` (and MESHD_CUSTOM_HOST names). */
  readonly dnsNames: readonly string[];
  /** Lifetime of each serving certificate, ms. */
  readonly ttlMs: number;
}

/**
 * Keeps a `StaticCertificateProvider` (see `createCaServerCredentials`) supplied with a serving certificate
 * from `ca` and the CA's current trust bundle. Call `start()` once; `stop()` cancels renewals.
 */
export class ServingCertificateManager {
  #provider: StaticCertificateProvider | undefined;
  #cancelRenewal: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #issuing: Promise<void> = Promise.resolve();
  #lastRoot: string | undefined;
  #material: CaServerTlsMaterial | undefined;
  #stopped = false;

  constructor(
    readonly ca: MeshCa,
    readonly options: ServingCertificateOptions,
    readonly deps: { readonly logger?: Logger } = {},
  ) {}

  /** Issues the first certificate and returns the provider to build server credentials with. */
  async start(): Promise<StaticCertificateProvider> {
    if (this.#provider) return this.#provider;
    const material = await this.#issue();
    this.#provider = new StaticCertificateProvider(material);
    this.#lastRoot = this.ca.authority.root.fingerprint256;
    this.#unsubscribe = this.ca.onAuthority((authority) => {
      if (authority.root.fingerprint256 === this.#lastRoot) {
        this.#publish({ ...this.#material!, trustBundlePem: this.ca.trustBundlePem().join('') }); // bundle pruned
        return;
      }
      this.#lastRoot = authority.root.fingerprint256;
      void this.renewNow();
    });
    return this.#provider;
  }

  /** Re-issues the serving certificate now (also runs on schedule and on root change); resolves when done. */
  renewNow(): Promise<void> {
    this.#issuing = this.#issuing.then(async () => {
      if (!this.#provider || this.#stopped) return;
      try {
        this.#publish(await this.#issue());
      } catch (err) {
        this.deps.logger?.error({ err }, 'serving certificate renewal failed');
        this.#schedule(Math.min(60_000, this.options.ttlMs / 10));
      }
    });
    return this.#issuing;
  }

  stop(): void {
    this.#stopped = true;
    this.#cancelRenewal?.();
    this.#cancelRenewal = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #publish(material: CaServerTlsMaterial): void {
    this.#material = material;
    this.#provider?.update(material);
  }

  async #issue(): Promise<CaServerTlsMaterial> {
    const issued = await this.ca.issueServingCertificate(this.options.dnsNames, this.options.ttlMs);
    this.#material = { certChainPem: issued.certChainPem.join(''), keyPem: issued.keyPem, trustBundlePem: this.ca.trustBundlePem().join('') };
    this.#schedule(this.options.ttlMs / 2);
    return this.#material;
  }

  #schedule(delayMs: number): void {
    this.#cancelRenewal?.();
    if (this.#stopped) return;
    // NOTE: renewals run on the CA's clock; the timer does not keep the process alive.
    this.#cancelRenewal = this.ca.clock.setTimer(() => {
      this.#cancelRenewal = undefined;
      void this.renewNow();
    }, delayMs);
  }
}
