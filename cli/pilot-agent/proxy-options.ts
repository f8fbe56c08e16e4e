/**
 * `pilot-agent proxy`: its flags and environment read once and checked, then the ProxyConfig layers
 * (mesh config file, PROXY_CONFIG, pod annotation) resolved. Every bad value is a CliError naming the
 * flag, variable, file or annotation it came from.
 */
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { PROXY_TYPES, ProxyConfigError, resolveProxyConfig, type BootstrapInputs, type ProxyConfig, type ProxyType } from '../../agent/index.js';
import { buildInfo, EnvError, loadEnv, type Env, type LogOptions } from '../../core/index.js';
import { logOptionsFrom } from '../common/logging-flags.js';
import { CliError, type FlagValues } from '../framework/index.js';

/** The pod's annotations file (downward API), relative to the working directory as in Istio. */
export const POD_ANNOTATIONS_PATH = './etc/mesh/pod/annotations';
/** The agent's SDS socket (Istio's workload SDS path). */
export const SDS_SOCKET_PATH = './var/run/secrets/workload-spiffe-uds/socket';

/** Everything `pilot-agent proxy` runs with. */
export interface ProxyOptions {
  readonly log: LogOptions;
  readonly env: Env;
  readonly proxy: ProxyConfig;
  readonly trustDomain: string;
  readonly bootstrap: BootstrapInputs;
  /** `--templateFile`, else the ProxyConfig's proxyBootstrapTemplatePath; undefined for the built-in template. */
  readonly templatePath?: string;
  readonly proxyLogLevel: string;
  readonly proxyComponentLogLevel: string;
  readonly outlierLogPath: string;
  /** Where the DNS proxy listens (DNS_PROXY_ADDR), when MESH_META_DNS_CAPTURE is true. */
  readonly dnsProxy?: { readonly host: string; readonly port: number };
  /** The environment the proxy process gets (the agent's own, as in Istio). */
  readonly childEnv: Readonly<Record<string, string | undefined>>;
}

/** `MESH_META_FOO=bar` -> `{ FOO: 'bar' }`, from the raw environment. */
export function meshMetadataFrom(vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) if (k.startsWith('MESH_META_') && v !== undefined) out[k.slice('MESH_META_'.length)] = v;
  return out;
}

function localIps(): string[] {
  const ips: string[] = [];
  for (const addrs of Object.values(networkInterfaces())) for (const a of addrs ?? []) if (!a.internal) ips.push(a.address);
  return ips;
}

/** Reads and checks the proxy command's flags, args and environment. */
export function proxyOptionsFrom(flags: FlagValues, args: readonly string[], vars: Readonly<Record<string, string | undefined>>): ProxyOptions {
  let env: Env;
  try {
    env = loadEnv('pilot-agent', vars);
  } catch (e) {
    if (e instanceof EnvError) throw new CliError(e.message);
    throw e;
  }
  const proxyType = (args[0] ?? 'sidecar') as ProxyType;
  if (!PROXY_TYPES.includes(proxyType)) throw new CliError(`proxy: "${args[0]}" is not a proxy type (sidecar or router)`);
  let resolved;
  try {
    resolved = resolveProxyConfig({
      meshConfigPath: flags.string('meshConfig'),
      ...(env.string('PROXY_CONFIG') !== undefined ? { proxyConfigEnv: env.string('PROXY_CONFIG')! } : {}),
      annotationsPath: POD_ANNOTATIONS_PATH,
    });
  } catch (e) {
    if (e instanceof ProxyConfigError) throw new CliError(e.message);
    throw e;
  }
  let proxy = resolved.proxy;
  const concurrency = flags.number('concurrency');
  if (concurrency < 0) throw new CliError(`--concurrency: ${concurrency} is negative`);
  if (concurrency > 0) proxy = { ...proxy, concurrency };
  if (flags.changed('serviceCluster')) proxy = { ...proxy, serviceCluster: flags.string('serviceCluster') };
  const templatePath = flags.string('templateFile') || proxy.proxyBootstrapTemplatePath || undefined;
  const namespace = env.string('POD_NAMESPACE') ?? 'default';
  const metadata = meshMetadataFrom(vars);
  const instanceIps = (metadata['INSTANCE_IPS'] ?? '').split(',').filter(Boolean);
  const bootstrap: BootstrapInputs = {
    proxyType,
    proxy,
    podName: env.string('POD_NAME') ?? '',
    podNamespace: namespace,
    instanceIps: instanceIps.length > 0 ? instanceIps : localIps(),
    domain: flags.string('domain') || `${namespace}.svc.cluster.local`,
    ...(env.string('SERVICE_ACCOUNT') ? { serviceAccount: env.string('SERVICE_ACCOUNT')! } : {}),
    ...(env.string('CLUSTER_ID') ? { clusterId: env.string('CLUSTER_ID')! } : {}),
    meshVersion: buildInfo().version,
    metadata,
    xdsSocketPath: join(proxy.configPath, 'XDS'),
    sdsSocketPath: SDS_SOCKET_PATH,
  };
  let dnsProxy: { host: string; port: number } | undefined;
  if (metadata['DNS_CAPTURE'] === 'true') {
    const addr = env.string('DNS_PROXY_ADDR') ?? 'localhost:15053';
    const m = /^(.*):(\d+)$/.exec(addr);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new CliError(`DNS_PROXY_ADDR="${addr}" is not host:port`);
    dnsProxy = { host: m[1] === 'localhost' || m[1] === '' ? '127.0.0.1' : m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  }
  return {
    ...(dnsProxy ? { dnsProxy } : {}),
    log: logOptionsFrom(flags),
    env,
    proxy,
    trustDomain: env.isSet('TRUST_DOMAIN') ? env.string('TRUST_DOMAIN')! : resolved.trustDomain,
    bootstrap,
    ...(templatePath ? { templatePath: resolve(templatePath) } : {}),
    proxyLogLevel: flags.string('proxyLogLevel'),
    proxyComponentLogLevel: flags.string('proxyComponentLogLevel'),
    outlierLogPath: flags.string('outlierLogPath'),
    childEnv: vars,
  };
}
