// mesh.v1.auth.MeshCertificateService: authenticate the caller, check the CSR names only identities the
// caller may hold, sign, and answer leaf..root. Every refusal carries a gRPC code, a message naming the
// failed check, and a certauth_server_* counter.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { MeshCa } from '../authority/mesh-ca.js';
import { CsrError, decodeCsrPem } from '../pki/csr.js';
import { AuthenticationError, parseSpiffeIdentity, type Authenticator, type CallCredentials, type Caller } from './authenticator.js';
import type { CaMetrics } from './ca-metrics.js';
import { CaRefusal, REFUSAL_STATUS } from './ca-refusal.js';
import { certificateServiceClient, type MeshCertificateRequest, type MeshCertificateResponse } from './certificate-proto.js';
import type { NodeLookup, ServiceAccountRef } from './node-authorizer.js';

/** Metadata key a node proxy sets to ask for another identity on its node (as Istio's ImpersonatedIdentity). */
export const IMPERSONATED_IDENTITY = 'ImpersonatedIdentity';

/** Default cap on the PEM CSR size. */
export const DEFAULT_MAX_CSR_BYTES = 64 * 1024;

/** Settings of the service. */
export interface CertificateServiceOptions {
  readonly trustDomain: string;
  /** CA_TRUSTED_NODE_ACCOUNTS. */
  readonly trustedNodeAccounts: readonly ServiceAccountRef[];
  /** Largest accepted `csr` field, bytes (default 64 KiB). */
  readonly maxCsrBytes?: number;
}

/** Collaborators of the service. */
export interface CertificateServiceDeps {
  readonly ca: MeshCa;
  /** Tried in order; typically [TokenAuthenticator, ClientCertificateAuthenticator]. */
  readonly authenticators: readonly Authenticator[];
  /** Needed only for trusted node accounts; without it node authorization refuses. */
  readonly nodeLookup?: NodeLookup;
  readonly metrics: CaMetrics;
  readonly logger?: Logger;
}

/** The certificate service; `register(server)` adds it to a grpc-js Server the caller owns. */
export class CertificateService {
  readonly #unsubscribe: () => void;

  constructor(
    readonly options: CertificateServiceOptions,
    readonly deps: CertificateServiceDeps,
  ) {
    const rootGauge = deps.metrics.gauge('certauth_server_root_cert_expiry_timestamp');
    const chainGauge = deps.metrics.gauge('certauth_server_cert_chain_expiry_timestamp');
    this.#unsubscribe = deps.ca.onAuthority((authority) => {
      rootGauge.set(Math.floor(new Date(authority.root.validTo).getTime() / 1000));
      chainGauge.set(Math.floor(authority.chainNotAfter.getTime() / 1000));
    });
  }

  /** Adds mesh.v1.auth.MeshCertificateService to `server`. */
  register(server: grpc.Server): void {
    server.addService(certificateServiceClient().service, {
      CreateCertificate: (
        call: grpc.ServerUnaryCall<MeshCertificateRequest, MeshCertificateResponse>,
        callback: grpc.sendUnaryData<MeshCertificateResponse>,
      ) => {
        const peer = call.getAuthContext()?.sslPeerCertificate;
        const credentials: CallCredentials = { metadata: call.metadata, peerCertificate: peer?.raw };
        this.createCertificate(call.request, credentials).then(
          (chain) => callback(null, { cert_chain: chain }),
          (err: unknown) => callback(this.#toServiceError(err)),
        );
      },
    });
  }

  /** Stops updating the expiry gauges. */
  close(): void {
    this.#unsubscribe();
  }

  /** Handles one request; resolves to the PEM chain (leaf first, root last) or rejects with `CaRefusal`. */
  async createCertificate(request: MeshCertificateRequest, credentials: CallCredentials): Promise<string[]> {
    const { metrics } = this.deps;
    metrics.counter('certauth_server_csr_count').inc();
    const maxBytes = this.options.maxCsrBytes ?? DEFAULT_MAX_CSR_BYTES;
    const csrBytes = Buffer.byteLength(request.csr ?? '', 'utf8');
    if (csrBytes === 0) throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_csr_parsing_err_count', 'csr: empty');
    if (csrBytes > maxBytes) {
      throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_csr_parsing_err_count', `csr: ${csrBytes} bytes exceeds the limit of ${maxBytes} bytes`);
    }
    const caller = await this.#authenticate(credentials);
    let csr;
    try {
      csr = decodeCsrPem(request.csr);
    } catch (err) {
      if (err instanceof CsrError) throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_csr_parsing_err_count', err.message);
      throw err;
    }
    const sans = csr.subjectAltNames;
    const extra = [...sans.dns.map((d) => `DNS:${d}`), ...sans.ips.map((i) => `IP:${i}`), ...sans.emails.map((e) => `email:${e}`)];
    if (extra.length > 0 || sans.other > 0) {
      throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_id_extraction_err_count',
        `csr: subjectAltName may hold only SPIFFE URIs; found ${extra.join(', ') || `${sans.other} other name(s)`}`);
    }
    if (sans.uris.length === 0) throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_id_extraction_err_count', 'csr: no URI subjectAltName (expected the SPIFFE identity)');
    if (new Set(sans.uris).size !== sans.uris.length) {
      throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_id_extraction_err_count', 'csr: repeated URI subjectAltName');
    }
    await this.#authorize(caller, sans.uris, request);
    const ttlMs = Number(request.validity_duration ?? 0) * 1000;
    let chain: string[];
    try {
      chain = await this.deps.ca.signWorkload(csr, sans.uris, ttlMs);
    } catch (err) {
      if (err instanceof CsrError) throw new CaRefusal('INVALID_ARGUMENT', 'certauth_server_csr_parsing_err_count', err.message);
      throw new CaRefusal('INTERNAL', 'certauth_server_csr_sign_err_count', `sign: ${(err as Error).message}`);
    }
    metrics.counter('certauth_server_success_cert_issuance_count').inc();
    return chain;
  }

  async #authenticate(credentials: CallCredentials): Promise<Caller> {
    const failures: string[] = [];
    for (const authenticator of this.deps.authenticators) {
      try {
        const caller = await authenticator.authenticate(credentials);
        if (caller) return caller;
        failures.push(`${authenticator.name}: ${authenticator.absentReason}`);
      } catch (err) {
        if (err instanceof AuthenticationError) failures.push(err.message);
        else if (err instanceof CaRefusal) throw err;
        else failures.push(`${authenticator.name}: ${(err as Error).message}`);
      }
    }
    throw new CaRefusal('UNAUTHENTICATED', 'certauth_server_authentication_failure_count', `authentication failed (${failures.join('; ')})`);
  }

  #isTrustedNodeAccount(caller: Caller): boolean {
    const k = caller.kubernetes;
    return k !== undefined && this.options.trustedNodeAccounts.some((a) => a.namespace === k.namespace && a.serviceAccount === k.serviceAccount);
  }

  async #authorize(caller: Caller, uris: readonly string[], request: MeshCertificateRequest): Promise<void> {
    const impersonated = request.metadata?.fields?.[IMPERSONATED_IDENTITY]?.stringValue;
    const who = caller.kubernetes ? `${caller.kubernetes.namespace}/${caller.kubernetes.serviceAccount}` : caller.identities.join(',');
    if (impersonated) {
      if (!this.#isTrustedNodeAccount(caller)) throw this.#denied(`caller ${who} is not in CA_TRUSTED_NODE_ACCOUNTS and may not set ${IMPERSONATED_IDENTITY}`);
      if (uris.length !== 1 || uris[0] !== impersonated) throw this.#denied(`csr: subjectAltName [${uris.join(', ')}] differs from ${IMPERSONATED_IDENTITY} ${impersonated}`);
      await this.#authorizeOnNode(caller, impersonated);
      return;
    }
    for (const uri of uris) {
      if (caller.identities.includes(uri)) continue;
      if (!this.#isTrustedNodeAccount(caller)) throw this.#denied(`csr: subjectAltName ${uri} is not the caller's identity ${caller.identities.join(', ')}`);
      await this.#authorizeOnNode(caller, uri);
    }
  }

  async #authorizeOnNode(caller: Caller, uri: string): Promise<void> {
    const id = parseSpiffeIdentity(uri);
    if (!id || id.trustDomain !== this.options.trustDomain) throw this.#denied(`node authorization: ${uri} is not a SPIFFE identity of trust domain ${this.options.trustDomain}`);
    const nodeName = caller.kubernetes?.nodeName;
    if (!nodeName) throw this.#denied('node authorization: the caller\'s token carries no kubernetes.io node claim');
    if (!this.deps.nodeLookup) throw this.#denied('node authorization: no node lookup configured');
    if (!(await this.deps.nodeLookup.hasPodOnNode(nodeName, id))) {
      throw this.#denied(`node authorization: no pod of ${id.namespace}/${id.serviceAccount} runs on node ${nodeName}`);
    }
  }

  #denied(message: string): CaRefusal {
    return new CaRefusal('PERMISSION_DENIED', 'certauth_server_authentication_failure_count', message);
  }

  #toServiceError(err: unknown): Partial<grpc.ServiceError> {
    const refusal = err instanceof CaRefusal ? err : new CaRefusal('INTERNAL', 'certauth_server_csr_sign_err_count', `internal error: ${(err as Error).message}`);
    this.deps.metrics.counter(refusal.metric).inc();
    if (refusal.code === 'INTERNAL') this.deps.logger?.error({ err }, 'certificate request failed');
    else this.deps.logger?.debug({ code: refusal.code, reason: refusal.message }, 'certificate request refused');
    return { code: REFUSAL_STATUS[refusal.code], details: refusal.message, message: refusal.message };
  }
}
