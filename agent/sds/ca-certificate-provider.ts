/**
 * Workload certificates from meshd's CA (CA_ADDR, CA_PROVIDER `CertAuth`): a fresh key per
 * WORKLOAD_RSA_KEY_SIZE / ECC_* / PKCS8_KEY and a CSR for the pod's SPIFFE identity, sent with the
 * service-account token; the CA's chain ends with its root, which becomes the `ROOTCA` secret. Each CSR
 * counts in `num_outgoing_requests{request_type="csr"}`, its milliseconds in `outgoing_latency`, and a
 * failure in `num_failed_outgoing_requests`, as Istio's CA clients count them.
 */
import { CertificateClient, type CertificateClientOptions, type WorkloadKeyOptions } from '../../ca/index.js';
import type { Metrics } from '../../core/index.js';
import { workloadSecretFrom, type CertificateProvider, type WorkloadSecret } from './workload-secret.js';

/** Options of a `CaCertificateProvider`. */
export interface CaCertificateProviderOptions {
  readonly client: CertificateClientOptions;
  /** `spiffe://<trust domain>/ns/<namespace>/sa/<service account>`. */
  readonly identity: string;
  /** SECRET_TTL in ms. */
  readonly ttlMs: number;
  readonly key: WorkloadKeyOptions;
  /** Counts the CSRs (see the file comment) when given. */
  readonly metrics?: Metrics;
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
    const m = this.#o.metrics;
    const labels = { request_type: 'csr' };
    m?.counter('num_outgoing_requests').inc(labels);
    // NOTE: performance.now() measures for the metric only.
    const started = performance.now();
    let issued;
    try {
      issued = await this.#client.requestCertificate({ identity: this.#o.identity, ttlSeconds: Math.round(this.#o.ttlMs / 1000) }, this.#o.key);
    } catch (e) {
      m?.counter('num_failed_outgoing_requests').inc(labels);
      throw e;
    } finally {
      m?.counter('outgoing_latency').inc(labels, performance.now() - started);
    }
    const chain = issued.certChainPem;
    return workloadSecretFrom(chain, issued.keyPem, chain[chain.length - 1]!);
  }

  close(): void {
    this.#client.close();
  }
}
