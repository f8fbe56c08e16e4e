/** The flags of `pilot-discovery discovery` and the one typed options object they become, with the environment. */
import { MAX_DURATION_MS, type Env } from '../../core/startup.js';
import type { LogOptions } from '../../core/index.js';
import { flag, type Flag, type FlagValues } from '../framework/index.js';
import { logOptionsFrom } from '../common/logging-flags.js';

/** Every flag of `pilot-discovery discovery` with the spec's defaults. */
export const DISCOVERY_FLAGS: readonly Flag[] = [
  flag.string('caCertFile', '', 'File containing the x509 Server CA Certificate'),
  flag.stringToString('clusterAliases', {}, 'Alias names for clusters'),
  flag.string('clusterID', 'Orchestrator', 'The ID of the cluster that this meshd instance resides'),
  flag.string('clusterRegistriesNamespace', 'mesh-system', 'Namespace for ConfigMap which stores clusters configs'),
  flag.string('configDir', '', 'Directory to watch for updates to config yaml files. If specified, the files will be used as the source of config, rather than a CRD client.'),
  flag.string('ctrlz_address', 'localhost', "The IP Address to listen on for the ControlZ introspection facility. Use '*' to indicate all addresses."),
  flag.uint16('ctrlz_port', 9876, 'The IP port to use for the ControlZ introspection facility'),
  flag.string('domain', 'cluster.local', 'DNS domain suffix'),
  flag.string('grpcAddr', ':15010', "Discovery service gRPC address"),
  flag.string('httpAddr', ':8080', 'Discovery service HTTP address'),
  flag.string('httpsAddr', ':15017', 'Injection and validation service HTTPS address'),
  flag.duration('keepaliveInterval', 30_000, 'The time interval if no activity on the connection it pings the peer to see if the transport is alive'),
  flag.duration('keepaliveMaxServerConnectionAge', MAX_DURATION_MS, 'Maximum duration a connection will be kept open on the server side before it is closed gracefully'),
  flag.duration('keepaliveTimeout', 10_000, 'After having pinged for keepalive check, the client waits for a duration of keepaliveTimeout and if no activity is seen even after that the connection is closed.'),
  flag.string('orchconfig', '', 'Use an orchestrator configuration file instead of in-cluster configuration'),
  flag.int('orchApiBurst', 160, 'Maximum burst for throttle when communicating with the orchestrator API; must be non-negative'),
  flag.float32('orchApiQPS', 80, 'Maximum QPS when communicating with the orchestrator API; must be non-negative'),
  flag.string('meshConfig', './etc/mesh/config/mesh', 'File name for mesh config. If not specified, a default mesh will be used.'),
  flag.string('monitoringAddr', ':15014', 'HTTP address to use for pilot\'s self-monitoring information'),
  flag.string('namespace', 'mesh-system', 'Select a namespace where the controller resides. If not set, uses ${POD_NAMESPACE} environment variable', { short: 'n' }),
  flag.string('networksConfig', './etc/mesh/config/meshNetworks', 'File name for mesh networks config. If not specified, a default mesh networks will be used.'),
  flag.bool('profile', false, 'Enable profiling via web interface host:port/debug/pprof'),
  // NOTE: not in the spec; an extra flag of this implementation (issue 11: the replayable event log).
  flag.string('record', '', 'Write every input meshd acts on (config, registry and mesh config changes, proxy connects and requests, with their times) to this event log file, asynchronously; replay it with `meshctl x replay FILE`. Empty: no log.'),
  flag.stringSlice('registries', ['Orchestrator'], 'Comma separated list of platform service registries to read from (choose one or more from {Orchestrator, Mock})'),
  flag.string('secureGRPCAddr', ':15012', 'Discovery service secured gRPC address'),
  flag.duration('shutdownDuration', 10_000, 'Duration the discovery server needs to terminate gracefully'),
  flag.stringSlice('tls-cipher-suites', [], 'Comma-separated list of cipher suites for meshd TLS server. If omitted, the default Go cipher suites will be used.'),
  flag.string('tlsCertFile', '', 'File containing the x509 Certificate for HTTPS.'),
  flag.string('tlsKeyFile', '', 'File containing the x509 private key matching the certificate file.'),
];

/** The service registries `--registries` accepts. */
export const REGISTRIES = ['Orchestrator', 'Mock'] as const;
export type Registry = (typeof REGISTRIES)[number];

/** Everything `discovery` was told by its command line and environment, parsed and checked once at start. */
export interface DiscoveryOptions {
  /** The raw logging flags, validated by `createLogging`. */
  readonly log: LogOptions;
  /** The environment, parsed and validated by `loadEnv`. */
  readonly env: Env;
  /** MESH_GPRC_MAXRECVMSGSIZE and MESH_GPRC_MAXSTREAMS. */
  readonly grpcLimits: { readonly maxRecvMsgSize: number; readonly maxConcurrentStreams: number };
  readonly caCertFile: string;
  readonly clusterAliases: Readonly<Record<string, string>>;
  readonly clusterId: string;
  readonly clusterRegistriesNamespace: string;
  readonly configDir: string;
  readonly ctrlz: { readonly address: string; readonly port: number };
  readonly domain: string;
  readonly grpcAddr: string;
  readonly httpAddr: string;
  readonly httpsAddr: string;
  readonly keepalive: { readonly intervalMs: number; readonly maxServerConnectionAgeMs: number; readonly timeoutMs: number };
  readonly orchconfig: string;
  readonly orchApiBurst: number;
  readonly orchApiQps: number;
  readonly meshConfigFile: string;
  readonly monitoringAddr: string;
  /** `--namespace`, else POD_NAMESPACE (the caller resolves the fallback). */
  readonly namespace: string;
  readonly networksConfigFile: string;
  readonly profile: boolean;
  /** `--record`: the event log file to write; empty for none. */
  readonly record: string;
  readonly registries: readonly Registry[];
  readonly secureGrpcAddr: string;
  readonly shutdownMs: number;
  readonly tlsCipherSuites: readonly string[];
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
}

/** Thrown for flag values that parse but make no sense (unknown registry, negative QPS). */
export class DiscoveryFlagError extends Error {
  override readonly name = 'DiscoveryFlagError';
}

/**
 * Builds the typed options from parsed flags and the loaded environment. POD_NAMESPACE, when set, is the
 * namespace unless `--namespace` is given on the command line.
 */
export function discoveryOptionsFrom(flags: FlagValues, env: Env): DiscoveryOptions {
  const podNamespace = env.isSet('POD_NAMESPACE') ? env.string('POD_NAMESPACE') : undefined;
  const registries = flags.strings('registries');
  for (const r of registries) {
    if (!(REGISTRIES as readonly string[]).includes(r)) {
      throw new DiscoveryFlagError(`--registries: unknown registry "${r}" (use ${REGISTRIES.join(' or ')})`);
    }
  }
  if (flags.number('orchApiQPS') < 0) throw new DiscoveryFlagError('--orchApiQPS must be non-negative');
  if (flags.number('orchApiBurst') < 0) throw new DiscoveryFlagError('--orchApiBurst must be non-negative');
  return {
    log: logOptionsFrom(flags),
    env,
    grpcLimits: { maxRecvMsgSize: env.int('MESH_GPRC_MAXRECVMSGSIZE'), maxConcurrentStreams: env.int('MESH_GPRC_MAXSTREAMS') },
    caCertFile: flags.string('caCertFile'),
    clusterAliases: flags.map('clusterAliases'),
    clusterId: flags.string('clusterID'),
    clusterRegistriesNamespace: flags.string('clusterRegistriesNamespace'),
    configDir: flags.string('configDir'),
    ctrlz: { address: flags.string('ctrlz_address'), port: flags.number('ctrlz_port') },
    domain: flags.string('domain'),
    grpcAddr: flags.string('grpcAddr'),
    httpAddr: flags.string('httpAddr'),
    httpsAddr: flags.string('httpsAddr'),
    keepalive: {
      intervalMs: flags.duration('keepaliveInterval'),
      maxServerConnectionAgeMs: flags.duration('keepaliveMaxServerConnectionAge'),
      timeoutMs: flags.duration('keepaliveTimeout'),
    },
    orchconfig: flags.string('orchconfig'),
    orchApiBurst: flags.number('orchApiBurst'),
    orchApiQps: flags.number('orchApiQPS'),
    meshConfigFile: flags.string('meshConfig'),
    monitoringAddr: flags.string('monitoringAddr'),
    namespace: flags.changed('namespace') || !podNamespace ? flags.string('namespace') : podNamespace,
    networksConfigFile: flags.string('networksConfig'),
    profile: flags.bool('profile'),
    record: flags.string('record'),
    registries: registries as readonly Registry[],
    secureGrpcAddr: flags.string('secureGRPCAddr'),
    shutdownMs: flags.duration('shutdownDuration'),
    tlsCipherSuites: flags.strings('tls-cipher-suites'),
    tlsCertFile: flags.string('tlsCertFile'),
    tlsKeyFile: flags.string('tlsKeyFile'),
  };
}
