/**
 * Client TLS of sidecar clusters (Istio's cluster_tls.go): the DestinationRule's `tls` modes DISABLE,
 * SIMPLE, MUTUAL and MESH_MUTUAL, and auto mTLS (transport socket matches on the endpoints' tlsMode
 * metadata). MESH_MUTUAL and auto mTLS read the workload certificate (`default`) and the root of trust
 * (`ROOTCA`) over SDS from the agent; SIMPLE/MUTUAL with `credentialName` read that secret over SDS;
 * with file paths they read the files over SDS too (`file-cert:` / `file-root:`, served by the agent).
 * Every upstream TLS context carries istiod's TLS parameters (TLS 1.2 to 1.3; SIMPLE and MUTUAL add
 * meshConfig.tlsDefaults' ECDH curves and cipher suites, MESH_MUTUAL and auto mTLS do not, as istiod).
 */
import { ORCH_NAME_PREFIX, type MeshConfig, type PushContext, type Service, type ServiceInstance } from '../../../core/index.js';
import type { ClientTLSSettings } from '../../../crds/index.js';
import { any } from '../grpc/envoy.js';
import { ENVOY, fileCertSecret, fileRootSecret, MESH_ALPN, SDS_SECRET, sdsSecret, struct, TLS_MODE_LABEL, TLS_MODE_MESH } from './sidecar-names.js';

/** The SNI Istio sets for mesh mTLS: `outbound_.<port>_.<subset>_.<host>`. */
export function meshSni(port: number, subset: string, host: string): string {
  return `outbound_.${port}_.${subset}_.${host}`;
}

/**
 * The trust bundle of the proxy's operating system, as Istio names it over SDS (VERIFY_CERTIFICATE_AT_CLIENT:
 * an origination without `caCertificates` verifies against it; agent/sds/file-secrets.ts serves it).
 */
export const SYSTEM_ROOT_SECRET = 'file-root:system';

function sanMatchers(sans: readonly string[]): Record<string, unknown> {
  return sans.length > 0 ? { matchSubjectAltNames: sans.map((s) => ({ exact: s })) } : {};
}

/**
 * The protocol versions of every upstream TLS context, as istiod's defaultUpstreamCommonTLSContext:
 * TLS 1.2 to 1.3 (Envoy's client default maximum is 1.2 without it).
 */
export const UPSTREAM_TLS_PARAMS: Readonly<Record<string, string>> = Object.freeze({ tlsMinimumProtocolVersion: 'TLSv1_2', tlsMaximumProtocolVersion: 'TLSv1_3' });

/** The mesh mTLS transport socket: TLS 1.2-1.3, SDS identity `default`, validation by `ROOTCA` and the expected SANs. */
export function meshMtlsSocket(sans: readonly string[], sni: string): Record<string, unknown> {
  return {
    name: 'envoy.transport_sockets.tls',
    typedConfig: any(ENVOY.upstreamTls, {
      commonTlsContext: {
        tlsParams: { ...UPSTREAM_TLS_PARAMS },
        tlsCertificateSdsSecretConfigs: [sdsSecret(SDS_SECRET.identity)],
        combinedValidationContext: {
          defaultValidationContext: sanMatchers(sans),
          validationContextSdsSecretConfig: sdsSecret(SDS_SECRET.root),
        },
        alpnProtocols: [...MESH_ALPN],
      },
      sni,
    }),
  };
}

/** How SIMPLE or MUTUAL origination is shaped beyond the DestinationRule's settings. */
export interface OriginationOptions {
  /** VERIFY_CERTIFICATE_AT_CLIENT (default true): without `caCertificates`, verify against the system trust bundle. */
  readonly verifyAtClient?: boolean;
  /** The cluster speaks HTTP/2 upstream: advertise `h2` (istiod's isHttp2Cluster). */
  readonly h2?: boolean;
  /** meshConfig.tlsDefaults: its ECDH curves and cipher suites join the TLS parameters (istiod's applyTLSDefaults). */
  readonly tlsDefaults?: MeshConfig['tlsDefaults'];
}

/**
 * The transport socket for SIMPLE or MUTUAL origination from the DestinationRule's settings. The SNI is
 * the DestinationRule's `sni` only: as istiod, none is set without it (with ENABLE_AUTO_SNI, Envoy then
 * takes it from each request's host; see autoSniOptions). Without `caCertificates` (and no
 * `insecureSkipVerify`), `verifyAtClient` (VERIFY_CERTIFICATE_AT_CLIENT, default true) verifies the server
 * against the operating system's trust bundle, as istiod; off, the server is not verified. File paths
 * (`clientCertificate`/`privateKey`, `caCertificates`) become SDS names the agent serves from the files
 * (`file-cert:<chain>~<key>`, `file-root:<ca>`), as istiod for sidecars and gateways alike. An HTTP/2
 * cluster advertises `h2`, as istiod's buildUpstreamTLSContext. The TLS parameters are istiod's: TLS 1.2 to
 * 1.3, with meshConfig.tlsDefaults' ECDH curves and cipher suites when it sets them.
 */
export function originationSocket(tls: ClientTLSSettings, o: OriginationOptions = {}): Record<string, unknown> {
  const curves = o.tlsDefaults?.ecdhCurves ?? [];
  const ciphers = o.tlsDefaults?.cipherSuites ?? [];
  const common: Record<string, unknown> = {
    tlsParams: { ...UPSTREAM_TLS_PARAMS, ...(curves.length > 0 ? { ecdhCurves: [...curves] } : {}), ...(ciphers.length > 0 ? { cipherSuites: [...ciphers] } : {}) },
  };
  const sans = tls.subjectAltNames ?? [];
  if (tls.credentialName) {
    // NOTE: Istio names the CA secret of a credential `<name>-cacert`.
    if (tls.mode === 'MUTUAL') common['tlsCertificateSdsSecretConfigs'] = [sdsSecret(`kubernetes://${tls.credentialName}`)];
    if (!tls.insecureSkipVerify) {
      common['combinedValidationContext'] = {
        defaultValidationContext: sanMatchers(sans),
        validationContextSdsSecretConfig: sdsSecret(`kubernetes://${tls.credentialName}-cacert`),
      };
    }
  } else {
    // NOTE: as istiod (constructUpstreamTLS), file paths on the proxy are served over SDS by the agent, which
    // reads and watches them (rotation without a new CDS push): `file-cert:<chain>~<key>`, `file-root:<ca>`.
    if (tls.mode === 'MUTUAL' && tls.clientCertificate && tls.privateKey) {
      common['tlsCertificateSdsSecretConfigs'] = [sdsSecret(fileCertSecret(tls.clientCertificate, tls.privateKey))];
    }
    const root = tls.caCertificates ? fileRootSecret(tls.caCertificates) : o.verifyAtClient !== false ? SYSTEM_ROOT_SECRET : undefined;
    if (!tls.insecureSkipVerify && root) {
      // NOTE: as istiod, a `caCrl` path is read by Envoy itself (a filename, not an SDS secret).
      const crl = tls.caCrl ? { crl: { filename: tls.caCrl } } : {};
      common['combinedValidationContext'] = { defaultValidationContext: { ...sanMatchers(sans), ...crl }, validationContextSdsSecretConfig: sdsSecret(root) };
    }
  }
  if (o.h2 === true) common['alpnProtocols'] = ['h2'];
  return {
    name: 'envoy.transport_sockets.tls',
    typedConfig: any(ENVOY.upstreamTls, { commonTlsContext: common, ...(tls.sni ? { sni: tls.sni } : {}) }),
  };
}

/** Envoy's `UpstreamHttpProtocolOptions` fields that ENABLE_AUTO_SNI sets on a cluster. */
export interface AutoSni {
  readonly autoSni?: true;
  readonly autoSanValidation?: true;
}

/**
 * What ENABLE_AUTO_SNI adds to a SIMPLE or MUTUAL origination cluster (istiod's
 * setAutoSniAndAutoSanValidation): without `sni`, Envoy's `auto_sni` (the SNI is each request's host)
 * and, when no `subjectAltNames` are given and `insecureSkipVerify` is not set, `auto_san_validation`
 * (the server certificate must match that host). Undefined when the flag is off or nothing applies.
 * NOTE: istiod sets them on every such cluster whatever the port's protocol (Envoy reads them for HTTP only).
 */
export function autoSniOptions(tls: ClientTLSSettings, enabled: boolean): AutoSni | undefined {
  if (!enabled || (tls.mode !== 'SIMPLE' && tls.mode !== 'MUTUAL')) return undefined;
  const autoSni = !tls.sni;
  const autoSanValidation = autoSni && (tls.subjectAltNames ?? []).length === 0 && tls.insecureSkipVerify !== true;
  if (!autoSni) return undefined;
  return { autoSni: true, ...(autoSanValidation ? { autoSanValidation: true as const } : {}) };
}

/** The SANs a client expects from a service's endpoints: the DestinationRule's, else the endpoints' SPIFFE identities. */
export function expectedSans(ctx: PushContext, svc: Service, serviceAccounts: Iterable<string>, tls: ClientTLSSettings | undefined): string[] {
  if (tls?.subjectAltNames && tls.subjectAltNames.length > 0) return [...tls.subjectAltNames];
  const sans = new Set<string>(svc.serviceAccounts);
  for (const sa of serviceAccounts) if (sa) sans.add(sa.startsWith('spiffe://') ? sa : ctx.spiffeId(svc.namespace, sa));
  return [...sans].sort();
}

/**
 * The endpoints of a passthrough target (a service with resolution NONE, or a DestinationRule load balancer
 * PASSTHROUGH) on the cluster's port, and whether its cluster is ORIGINAL_DST (auto mTLS infers the mode
 * from them: see clusterTls).
 */
export interface PassthroughTarget {
  readonly instances: readonly ServiceInstance[];
  readonly originalDst: boolean;
}

/**
 * Whether an endpoint takes mesh mTLS (Istio's endpoint TLSMode): its `security.mesh.io/tlsMode` label
 * says so; without the label, a WorkloadEntry or ServiceEntry endpoint with a service account does (as
 * Istio's getTLSModeFromWorkloadEntry), while an orchestrator pod needs the label (the injector sets it).
 */
export function takesMeshMtls(i: ServiceInstance): boolean {
  const label = i.labels[TLS_MODE_LABEL];
  if (label !== undefined) return label === TLS_MODE_MESH;
  const name = i.source.split('/')[2] ?? '';
  return i.serviceAccount !== '' && !name.startsWith(ORCH_NAME_PREFIX);
}

/** What TLS a cluster gets: a fixed transport socket, auto mTLS socket matches, or none. */
export type ClusterTls =
  | { readonly kind: 'none' }
  | { readonly kind: 'socket'; readonly transportSocket: Record<string, unknown> }
  | { readonly kind: 'auto'; readonly transportSocketMatches: readonly Record<string, unknown>[] };

/**
 * The TLS of an outbound cluster. With a DestinationRule `tls.mode`, that mode; without one and with
 * auto mTLS on, a MESH_INTERNAL service whose namespace does not DISABLE mTLS gets socket matches:
 * mesh mTLS for endpoints labelled tlsMode `mesh` (they run a sidecar), plaintext for the others. A
 * passthrough target gets auto mTLS only when all its endpoints on the port take mesh mTLS, as a plain
 * socket on an ORIGINAL_DST cluster (istiod).
 */
export function clusterTls(
  ctx: PushContext,
  svc: Service,
  tls: ClientTLSSettings | undefined,
  at: { port: number; subset: string; passthrough?: PassthroughTarget },
  serviceAccounts: Iterable<string>,
  origination: OriginationOptions = {},
): ClusterTls {
  const sni = meshSni(at.port, at.subset, svc.hostname);
  switch (tls?.mode) {
    case 'DISABLE':
      return { kind: 'none' };
    case 'MESH_MUTUAL':
      return { kind: 'socket', transportSocket: meshMtlsSocket(expectedSans(ctx, svc, serviceAccounts, tls), sni) };
    case 'SIMPLE':
    case 'MUTUAL':
      return { kind: 'socket', transportSocket: originationSocket(tls, { tlsDefaults: ctx.meshConfig.tlsDefaults, ...origination }) };
    default:
      break;
  }
  if (!ctx.meshConfig.enableAutoMtls || svc.location !== 'MESH_INTERNAL') return { kind: 'none' };
  if (ctx.mtlsMode(svc.namespace, {}, at.port) === 'DISABLE') return { kind: 'none' };
  const pt = at.passthrough;
  // NOTE: as istiod's BestEffortInferServiceMTLSMode, passthrough traffic gets mTLS only when every endpoint
  // on the port takes it; on an ORIGINAL_DST cluster istiod keeps it a plain transport socket (no matches).
  if (pt && (pt.instances.length === 0 || !pt.instances.every(takesMeshMtls))) return { kind: 'none' };
  if (pt?.originalDst) return { kind: 'socket', transportSocket: meshMtlsSocket(expectedSans(ctx, svc, serviceAccounts, tls), sni) };
  return {
    kind: 'auto',
    transportSocketMatches: [
      { name: `tlsMode-${TLS_MODE_MESH}`, match: struct({ tlsMode: TLS_MODE_MESH }), transportSocket: meshMtlsSocket(expectedSans(ctx, svc, serviceAccounts, tls), sni) },
      { name: 'tlsMode-disabled', match: struct({}), transportSocket: { name: 'envoy.transport_sockets.raw_buffer', typedConfig: any(ENVOY.rawBuffer, {}) } },
    ],
  };
}
