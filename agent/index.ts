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
