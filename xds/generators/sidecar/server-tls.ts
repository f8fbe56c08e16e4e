/**
 * The server side of TLS a proxy terminates with user certificates (istiod's BuildListenerTLSContext):
 * shared by gateway servers (router) and Sidecar `ingress[].tls` (sidecar). Certificates come over SDS
 * under the names istiod gives them, which the agent serves: `file-cert:<chain>~<key>` and
 * `file-root:<ca>` for file paths, `kubernetes://<credentialName>` (and `-cacert` to verify clients),
 * `default` / `ROOTCA` for MESH_MUTUAL. Also the TLS parameters of inbound mesh mTLS (inboundMtlsParams).
 */
import type { MeshConfig } from '../../../core/index.js';
import type { ServerTLSSettings } from '../../../crds/index.js';
import { any } from '../grpc/envoy.js';
import { ENVOY, fileCertSecret, fileRootSecret, SDS_SECRET, sdsSecret } from './sidecar-names.js';

type Obj = Record<string, unknown>;

/** The ALPN istiod's BuildListenerTLSContext offers on a terminated TLS server (HTTP/2, then HTTP/1.1). */
export const SERVER_TLS_HTTP_ALPN = ['h2', 'http/1.1'] as const;

/** The SDS secret names of a server's certificate and of the CA verifying clients (istiod's names). */
export function serverSecrets(tls: ServerTLSSettings): { certs: string[]; ca?: string } {
  if (tls.mode === 'MESH_MUTUAL') return { certs: [SDS_SECRET.identity], ca: SDS_SECRET.root };
  const names = tls.credentialNames && tls.credentialNames.length > 0 ? tls.credentialNames : tls.credentialName ? [tls.credentialName] : [];
  if (names.length > 0) return { certs: names.map((n) => `kubernetes://${n}`), ...(tls.mode === 'MUTUAL' || tls.mode === 'OPTIONAL_MUTUAL' ? { ca: `kubernetes://${names[0]!}-cacert` } : {}) };
  // NOTE: as istiod, `tlsCertificates` (up to an RSA and an ECDSA pair) are file certificates over SDS, one secret each.
  const files = tls.tlsCertificates && tls.tlsCertificates.length > 0 ? tls.tlsCertificates : tls.serverCertificate ? [{ serverCertificate: tls.serverCertificate, privateKey: tls.privateKey }] : [];
  const certs = files.map((f) => fileCertSecret(f.serverCertificate ?? '', f.privateKey ?? ''));
  // NOTE: as istiod, clients are verified for MUTUAL and OPTIONAL_MUTUAL only, with the mesh root when no CA file is given.
  const verifies = tls.mode === 'MUTUAL' || tls.mode === 'OPTIONAL_MUTUAL';
  return { certs, ...(verifies ? { ca: tls.caCertificates ? fileRootSecret(tls.caCertificates) : SDS_SECRET.root } : {}) };
}

/**
 * Envoy's TlsProtocol for the API's TLS version (istiod's convertTLSProtocol): `TLSV1_2` is Envoy's
 * `TLSv1_2`; `TLS_AUTO` (or unset) leaves Envoy's default.
 */
export function envoyTlsProtocol(v: string | undefined): string | undefined {
  const m = /^TLSV1_([0-3])$/.exec(v ?? '');
  return m ? `TLSv1_${m[1]!}` : undefined;
}

/** istiod's SupportedCiphers: the cipher suites inbound mesh mTLS allows unless meshMTLS.cipherSuites names others. */
export const MESH_MTLS_CIPHER_SUITES: readonly string[] = Object.freeze([
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
  'AES128-GCM-SHA256',
]);

/**
 * The TLS parameters of inbound mesh mTLS (istiod's BuildInboundTLS): minimum TLS 1.3 when
 * meshMTLS.minProtocolVersion is TLSV1_3, else 1.2 (GetMinTLSVersion); maximum 1.3; meshMTLS.cipherSuites
 * when set, else istiod's strong suites.
 */
export function inboundMtlsParams(mesh: Pick<MeshConfig, 'meshMTLS'>): Obj {
  return {
    tlsMinimumProtocolVersion: mesh.meshMTLS?.minProtocolVersion === 'TLSV1_3' ? 'TLSv1_3' : 'TLSv1_2',
    tlsMaximumProtocolVersion: 'TLSv1_3',
    cipherSuites: [...(mesh.meshMTLS?.cipherSuites ?? MESH_MTLS_CIPHER_SUITES)],
  };
}

/**
 * The DownstreamTlsContext transport socket of a terminating server: its certificates and, for
 * MUTUAL / OPTIONAL_MUTUAL / MESH_MUTUAL, the CA (and SANs) clients are verified with; a client
 * certificate is required for MUTUAL and MESH_MUTUAL; protocol versions and cipher suites as set (for
 * SIMPLE, MUTUAL and OPTIONAL_MUTUAL);
 * `alpn` offered (SERVER_TLS_HTTP_ALPN or none).
 */
export function serverTlsSocket(tls: ServerTLSSettings, alpn: readonly string[]): Obj {
  const { certs, ca } = serverSecrets(tls);
  const common: Obj = { tlsCertificateSdsSecretConfigs: certs.map(sdsSecret), alpnProtocols: [...alpn] };
  if (ca) {
    const sans = (tls.subjectAltNames ?? []).map((exact) => ({ sanType: 'DNS', matcher: { exact } }));
    common['combinedValidationContext'] = { defaultValidationContext: sans.length > 0 ? { matchTypedSubjectAltNames: sans } : {}, validationContextSdsSecretConfig: sdsSecret(ca) };
  }
  const params: Obj = {};
  // NOTE: as istiod (isSimpleOrMutual), versions and cipher suites apply to SIMPLE, MUTUAL and OPTIONAL_MUTUAL only.
  const userTls = tls.mode === 'SIMPLE' || tls.mode === 'MUTUAL' || tls.mode === 'OPTIONAL_MUTUAL';
  const min = envoyTlsProtocol(tls.minProtocolVersion);
  const max = envoyTlsProtocol(tls.maxProtocolVersion);
  if (userTls && min) params['tlsMinimumProtocolVersion'] = min;
  if (userTls && max) params['tlsMaximumProtocolVersion'] = max;
  if (userTls && tls.cipherSuites && tls.cipherSuites.length > 0) params['cipherSuites'] = [...tls.cipherSuites];
  if (Object.keys(params).length > 0) common['tlsParams'] = params;
  const requireClient = tls.mode === 'MUTUAL' || tls.mode === 'MESH_MUTUAL';
  return { name: 'envoy.transport_sockets.tls', typedConfig: any(ENVOY.downstreamTls, { commonTlsContext: common, requireClientCertificate: { value: requireClient } }) };
}
