// Client of mesh.v1.auth.MeshCertificateService: makes a key and CSR, asks the CA over gRPC/TLS with a
// bearer token, and returns the key with the signed chain.
import * as grpc from '@grpc/grpc-js';
import { createCsrPem } from '../pki/csr.js';
import { certificateServiceClient, type MeshCertificateRequest, type MeshCertificateResponse } from '../server/certificate-proto.js';
import { generateWorkloadKey, type WorkloadKey, type WorkloadKeyOptions } from './workload-key.js';

/** Where and how to reach the CA. */
export interface CertificateClientOptions {
  /** `host:port` of meshd's secure gRPC listener (15012). */
  readonly address: string;
  /** PEM roots that sign the CA server's certificate. */
  readonly rootCertPem: string;
  /** TLS server name to verify, when it differs from the address host (e.g. `meshd.mesh-system.svc`). */
  readonly serverName?: string;
  /** Returns the bearer token for each request (e.g. reads the projected token file). */
  readonly token?: () => string | Promise<string>;
  /** Client certificate for mTLS authentication with an existing identity. */
  readonly clientCertificate?: { readonly certChainPem: string; readonly keyPem: string };
  /** Per-request deadline, ms (default 10 s). */
  readonly timeoutMs?: number;
  /** Extra grpc-js channel options, e.g. `{ 'grpc.use_local_subchannel_pool': 1 }` for a connection of its own. */
  readonly channelOptions?: grpc.ChannelOptions;
}

/** What to ask for. */
export interface CertificateRequest {
  /** SPIFFE identity to put in the CSR, e.g. `spiffe://cluster.local/ns/default/sa/sleep`. */
  readonly identity: string;
  /** Requested lifetime in seconds; 0 asks for the CA's default. */
  readonly ttlSeconds?: number;
  /** Impersonated identity for node proxies (metadata `ImpersonatedIdentity`). */
  readonly impersonatedIdentity?: string;
}

/** A signed workload certificate: the key, and the chain leaf first, root last. */
export interface IssuedCertificate extends WorkloadKey {
  readonly certChainPem: readonly string[];
}

/** A CreateCertificate call failed; `code` is the gRPC status. */
export class CertificateRequestError extends Error {
  override readonly name = 'CertificateRequestError';
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

type UnaryCall = (
  request: MeshCertificateRequest,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: MeshCertificateResponse) => void,
) => grpc.ClientUnaryCall;

/** One channel to the CA; `close()` it when done. */
export class CertificateClient {
  readonly #client: grpc.Client;

  constructor(readonly options: CertificateClientOptions) {
    const Ctor = certificateServiceClient();
    const credentials = grpc.credentials.createSsl(
      Buffer.from(options.rootCertPem),
      options.clientCertificate ? Buffer.from(options.clientCertificate.keyPem) : null,
      options.clientCertificate ? Buffer.from(options.clientCertificate.certChainPem) : null,
    );
    this.#client = new Ctor(options.address, credentials, {
      ...options.channelOptions,
      ...(options.serverName ? { 'grpc.ssl_target_name_override': options.serverName } : {}),
    });
  }

  /** Generates a key per `keyOptions`, then calls `createCertificate` with a CSR for it. */
  async requestCertificate(request: CertificateRequest, keyOptions: WorkloadKeyOptions): Promise<IssuedCertificate> {
    const key = await generateWorkloadKey(keyOptions);
    const certChainPem = await this.createCertificate(createCsrPem(key.privateKey, { uris: [request.identity] }), request);
    return { ...key, certChainPem };
  }

  /** Sends a PEM CSR as is; resolves to the chain (leaf first) or rejects with `CertificateRequestError`. */
  async createCertificate(csrPem: string, request: Omit<CertificateRequest, 'identity'> = {}): Promise<string[]> {
    const metadata = new grpc.Metadata();
    if (this.options.token) metadata.set('authorization', `Bearer ${await this.options.token()}`);
    const body: MeshCertificateRequest = {
      csr: csrPem,
      validity_duration: request.ttlSeconds ?? 0,
      metadata: request.impersonatedIdentity ? { fields: { ImpersonatedIdentity: { stringValue: request.impersonatedIdentity } } } : null,
    };
    const call = (this.#client as unknown as { CreateCertificate: UnaryCall }).CreateCertificate.bind(this.#client);
    const response = await new Promise<MeshCertificateResponse>((resolve, reject) => {
      call(body, metadata, { deadline: Date.now() + (this.options.timeoutMs ?? 10_000) }, (err, res) => {
        if (err) reject(new CertificateRequestError(err.code, err.details || err.message));
        else resolve(res!);
      });
    });
    if (response.cert_chain.length === 0) throw new CertificateRequestError(grpc.status.INTERNAL, 'CreateCertificate: empty cert_chain in response');
    return response.cert_chain;
  }

  close(): void {
    this.#client.close();
  }
}
