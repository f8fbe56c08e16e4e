/**
 * Mesh-wide configuration (Istio's MeshConfig, field for field for the parts meshd uses) and mesh
 * networks. Read from `--meshConfig` / `--networksConfig` by controllers/; a missing file means the
 * defaults below.
 */

/** The proxy defaults of MeshConfig.defaultConfig (ProxyConfig), the fields meshd reads. */
export interface ProxyConfigDefaults {
  readonly discoveryAddress: string;
  readonly proxyMetadata: Readonly<Record<string, string>>;
  readonly holdApplicationUntilProxyStarts?: boolean;
  readonly [field: string]: unknown;
}

/** MeshConfig.outboundTrafficPolicy. */
export interface OutboundTrafficPolicy {
  readonly mode: 'ALLOW_ANY' | 'REGISTRY_ONLY';
}

/** Mesh configuration. Unknown fields of the file are kept in `extra` (not interpreted). */
export interface MeshConfig {
  readonly rootNamespace: string;
  readonly trustDomain: string;
  readonly trustDomainAliases: readonly string[];
  readonly enableAutoMtls: boolean;
  readonly outboundTrafficPolicy: OutboundTrafficPolicy;
  readonly defaultConfig: ProxyConfigDefaults;
  readonly ingressClass: string;
  readonly ingressService: string;
  readonly ingressControllerMode: 'DEFAULT' | 'STRICT' | 'OFF' | 'UNSPECIFIED';
  readonly accessLogFile: string;
  readonly enableTracing: boolean;
  readonly connectTimeout: string;
  readonly protocolDetectionTimeout: string;
  readonly dnsRefreshRate: string;
  readonly defaultServiceExportTo: readonly string[];
  readonly defaultVirtualServiceExportTo: readonly string[];
  readonly defaultDestinationRuleExportTo: readonly string[];
  readonly localityLbSetting?: Readonly<Record<string, unknown>>;
  /** Istio's `tlsDefaults`: ECDH curves and cipher suites of SIMPLE and MUTUAL upstream TLS (unset: Envoy's). */
  readonly tlsDefaults?: TlsDefaults;
  /** Istio's `meshMTLS`: the minimum TLS version and cipher suites of inbound mesh mTLS (unset: TLS 1.2, istiod's suites). */
  readonly meshMTLS?: MeshMtlsConfig;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** meshConfig.tlsDefaults (Istio's MeshConfig.TLSConfig as tlsDefaults uses it). */
export interface TlsDefaults {
  readonly ecdhCurves?: readonly string[];
  readonly cipherSuites?: readonly string[];
}

/** meshConfig.meshMTLS (Istio's MeshConfig.TLSConfig as meshMTLS uses it; ecdhCurves is refused there, as Istio). */
export interface MeshMtlsConfig {
  readonly minProtocolVersion?: 'TLS_AUTO' | 'TLSV1_2' | 'TLSV1_3';
  readonly cipherSuites?: readonly string[];
}

/** The mesh config meshd uses when the file is absent (Istio's DefaultMeshConfig, renamed). */
export function defaultMeshConfig(): MeshConfig {
  return {
    rootNamespace: 'mesh-system',
    trustDomain: 'cluster.local',
    trustDomainAliases: [],
    enableAutoMtls: true,
    outboundTrafficPolicy: { mode: 'ALLOW_ANY' },
    defaultConfig: { discoveryAddress: 'meshd.mesh-system.svc:15012', proxyMetadata: {} },
    ingressClass: 'mesh',
    ingressService: 'mesh-ingressgateway',
    ingressControllerMode: 'STRICT',
    accessLogFile: '',
    enableTracing: true,
    connectTimeout: '10s',
    protocolDetectionTimeout: '0s',
    dnsRefreshRate: '60s',
    defaultServiceExportTo: ['*'],
    defaultVirtualServiceExportTo: ['*'],
    defaultDestinationRuleExportTo: ['*'],
    extra: {},
  };
}

/** One network of MeshNetworks: where its endpoints come from and its gateways. */
export interface MeshNetwork {
  readonly endpoints: readonly { readonly fromCidr?: string; readonly fromRegistry?: string }[];
  readonly gateways: readonly { readonly registryServiceName?: string; readonly address?: string; readonly port: number; readonly locality?: string }[];
}

/** Mesh networks (`--networksConfig`): network name -> network. */
export interface MeshNetworks {
  readonly networks: Readonly<Record<string, MeshNetwork>>;
}

/** No networks: everything is one network. */
export function defaultMeshNetworks(): MeshNetworks {
  return { networks: {} };
}
