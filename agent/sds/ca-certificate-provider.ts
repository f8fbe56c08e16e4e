/**
 * Workload certificates from meshd's CA (CA_ADDR, CA_PROVIDER `CertAuth`): a fresh key per
 * WORKLOAD_RSA_KEY_SIZE / ECC_* / PKCS8_KEY and a CSR for the pod's SPIFFE identity, sent with the
 * service-account token; the CA's chain ends with its root, which becomes the `ROOTCA` secret.
 */
import { CertificateClient, type CertificateClientOptions, type WorkloadKeyOptions } from '../../ca/index.js';
import { workloadSecretFrom, type CertificateProvider, type WorkloadSecret } from './workload-secret.js';

/** Options of a `CaCertificateProvider`. */
export interface CaCertificateProviderOptions {
  readonly client: CertificateClientOptions;
  /** `spiffe://<trust domain>/ns/<namespace>/sa/<service account>`. */
  readonly identity: string;
  /** SECRET_TTL in ms. */
  readonly ttlMs: number;
  readonly key: WorkloadKeyOptions;
}

/** Issues workload secrets from meshd's CA over gRPC/TLS. */
export class CaCertificateProvider implements CertificateProvider {
  readonly name: string;
  readonly #client: CertificateClient;
  readonly #o: CaCertificateProviderOptions;

  constructor(options: CaCertificateProviderOptions) {
    this.#o = options;
    this.#client = new CertificateClient(options.client);
    this.name = `CA at ${options.client.address}`;
  }

  async issue(): Promise<WorkloadSecret> {
    const issued = await this.#client.requestCertificate({ identity: this.#o.identity, ttlSeconds: Math.round(this.#o.ttlMs / 1000) }, this.#o.key);
    const chain = issued.certChainPem;
    return workloadSecretFrom(chain, issued.keyPem, chain[chain.length - 1]!);
  }

  close(): void {
    this.#client.close();
  }
}
