// The public surface of agent/: pilot-agent's parts (bootstrap, proxy supervision, ...); cli/pilot-agent wires them.
export {
  applyProxyConfigLayer, defaultProxyConfig, parsePodAnnotations, PROXY_CONFIG_ANNOTATION, ProxyConfigError, resolveProxyConfig,
  type ProxyConfig, type ProxyConfigSources, type ResolvedMeshConfig, type TracingConfig,
} from './proxy-config.js';
export { fromProtoJson, ProtoJsonError } from './proto-json.js';
export { BOOTSTRAP_TYPE, BootstrapError, checkBootstrap } from './bootstrap/bootstrap-check.js';
export { bootstrapData, nodeId, nodeMetadata, PROXY_TYPES, type BootstrapInputs, type ProxyType } from './bootstrap/bootstrap-data.js';
export { BUILT_IN_BOOTSTRAP_TEMPLATE } from './bootstrap/bootstrap-template.js';
export { writeBootstrap, type TemplateRenderer, type WrittenBootstrap } from './bootstrap/write-bootstrap.js';
export { proxyArgs, ProxyLogLevelError, splitLogLevel, type ProxyArgsOptions } from './proxy/proxy-args.js';
export { DEFAULT_RESTART_BACKOFF, ProxySupervisor, type ProxyExit, type ProxySupervisorOptions, type RestartBackoff } from './proxy/proxy-supervisor.js';
export { workloadSecretFrom, type CertificateProvider, type WorkloadSecret } from './sds/workload-secret.js';
export { CaCertificateProvider, type CaCertificateProviderOptions } from './sds/ca-certificate-provider.js';
export { SecretCache, type SecretCacheOptions } from './sds/secret-cache.js';
export { ROOT_SECRET, SDS_STREAM_METHOD, SdsServer, SECRET_TYPE_URL, secretResource, WORKLOAD_SECRET } from './sds/sds-server.js';
export { FileSecrets, FILE_CERT_PREFIX, FILE_ROOT_PREFIX, isFileSecretName } from './sds/file-secrets.js';
export { AppProbersError, parseAppProbers, runAppProbe, type AppProber } from './status/app-probers.js';
export { parseProxyStats, proxyNotReadyReason } from './status/proxy-readiness.js';
export { StatusServer, type StatusServerOptions } from './status/status-server.js';
export { iptablesConfigFrom, IptablesConfigError, resolvConfServers, splitList, type IptablesConfig, type IptablesSettings } from './iptables/iptables-config.js';
export { buildRules, jumpTarget, MESH_CHAINS, toRestoreInput, type Family, type Rule, type RuleSet, type Table } from './iptables/iptables-rules.js';
export {
  applyCommands, assertNoMeshRules, binary, cleanCommands, IptablesRunError, meshChainsIn, renderCommands, runCommands, saveTables,
  type IptablesRunnerOptions, type PlannedCommand,
} from './iptables/iptables-runner.js';
export { validateRedirect, VALIDATION_ADDRESS } from './iptables/validate-redirect.js';
export { ADS_STREAM_METHOD, XdsProxy, type XdsProxyOptions, type XdsUpstream } from './xds-proxy/xds-proxy.js';
export { buildAnswer, DNS_TYPES, DnsFormatError, parseQuery, type DnsQuestion } from './dns/dns-message.js';
export { DnsProxy, type DnsProxyOptions, type NameTable } from './dns/dns-proxy.js';
export { dnsNameTable, type NameInfo } from './dns/name-table.js';
export { CERT_FILES, GRPC_SERVER_LISTENER_TEMPLATE, grpcBootstrap, writeCertificateFiles, writeGrpcBootstrap } from './grpc-bootstrap/grpc-bootstrap.js';
export { WasmCache, WasmFetchError, type RegistryCredentials, type WasmCacheOptions } from './wasm/wasm-cache.js';
export { fetchOciWasm, parseOciUrl, type OciReference } from './wasm/oci-image.js';
export { convertRemoteWasm, type ConversionOutcome } from './wasm/ecds-convert.js';
