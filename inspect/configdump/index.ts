// Config dumps of data-plane proxies and istioctl's views of them (proxy-config).
export { ConfigDump, parseConfigDump, configRef, pick, type Json } from './config-dump.js';
export { formatTable } from './text-table.js';
export { clusterTable, filterClusters, parseClusterName, type ClusterFilter } from './cluster-table.js';
export { listenerTable, filterListeners, listenerType, listenerAddress, describeChainMatch, describeDestination, type ListenerFilter } from './listener-table.js';
export { routeTable, filterRoutes, describeDomains, describeMatch, type RouteFilter } from './route-table.js';
export { endpointTable, endpointsFromClusters, endpointsFromDump, filterEndpoints, type EndpointRow, type EndpointFilter } from './endpoint-table.js';
export { secretRows, secretTable, redactSecrets, type SecretRow } from './secret-table.js';
export {
  renderProxyConfig,
  fileConfigSource,
  podConfigSource,
  proxyLogLevels,
  parseLogLevel,
  PROXY_CONFIG_KINDS,
  PROXY_CONFIG_OUTPUTS,
  PROXY_LOG_LEVELS,
  type ProxyConfigKind,
  type ProxyConfigOutput,
  type ProxyConfigSource,
  type ProxyConfigOptions,
} from './proxy-config.js';
