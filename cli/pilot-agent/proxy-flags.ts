/** The flags of `pilot-agent proxy` (document 2). */
import { flag, type Flag } from '../framework/index.js';

/** Every flag of `pilot-agent proxy` with the spec's defaults. */
export const PROXY_FLAGS: readonly Flag[] = [
  flag.int('concurrency', 0, 'number of worker threads to run'),
  flag.string('domain', '', 'DNS domain suffix. If not provided uses ${POD_NAMESPACE}.svc.cluster.local'),
  flag.string('meshConfig', './etc/mesh/config/mesh', 'File name for mesh config. If not specified, a default mesh will be used. This may be overridden by PROXY_CONFIG environment variable or proxy.mesh.io/config annotation.'),
  flag.string('outlierLogPath', '', 'The log path for outlier detection'),
  flag.bool('profiling', false, 'Enable profiling via web interface host:port/debug/pprof/.'),
  flag.string('proxyComponentLogLevel', '', 'The component log level used to start the proxy (deprecated, use proxyLogLevel instead)'),
  flag.string('proxyLogLevel', 'warning,misc:error', 'The log level used to start the proxy (choose from {trace, debug, info, warning, error, critical, off}). Level may also include one or more scopes, such as \'info,misc:error,upstream:debug\''),
  flag.string('serviceCluster', 'mesh-proxy', 'Service cluster'),
  flag.int('stsPort', 0, 'HTTP Port on which to serve Security Token Service (STS). If zero, STS service will not be provided.'),
  flag.string('templateFile', '', 'Go template bootstrap config'),
  flag.string('tokenManagerPlugin', 'CloudTokenExchange', 'Token provider specific plugin name.'),
];
