/**
 * `pilot-agent proxy [sidecar|router]`: resolves the ProxyConfig, starts the certificate side (SDS on
 * the workload socket, certificates from meshd's CA), writes the checked bootstrap, then starts and
 * supervises the data-plane proxy until it ends or a signal arrives. On SIGTERM/SIGINT the proxy is
 * drained for the ProxyConfig's terminationDrainDuration, then stopped, then the agent's parts close.
 *
 * Exit codes: 0 when the proxy ended cleanly or was drained and stopped; the proxy's own exit code
 * (128 + signal for a signal) when it kept crashing; 1 for bad configuration, a bad bootstrap template,
 * a missing token or CA root, or an SDS socket that cannot be served.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { AppProbersError, BootstrapError, parseAppProbers, proxyArgs, ProxySupervisor, ProxyLogLevelError, convertRemoteWasm, DnsProxy, dnsNameTable, resolvConfServers, StatusServer, WasmCache, writeBootstrap, writeCertificateFiles, writeGrpcBootstrap, XdsProxy, type AppProber, type NameInfo, type WorkloadSecret, type XdsUpstream, type TemplateRenderer } from '../../agent/index.js';
import type { Logger } from 'pino';
import { createLogging, createMetrics, Lifecycle, SCOPES, type Logging, type Metrics } from '../../core/index.js';
import { newTemplateSet, type GoValue } from '../../templates/index.js';
import { CliError, notImplemented, type RunContext } from '../framework/index.js';
import { proxyOptionsFrom, type ProxyOptions } from './proxy-options.js';
import { certificateOptionsFrom, MESH_ROOT_CERT_PATH, startWorkloadCertificates, TOKEN_PATH, type CertificateOptions } from './workload-certificates.js';

/** Go text/template with Sprig, as Istio renders its bootstrap. */
export const renderGoTemplate: TemplateRenderer = (name, text, data) => {
  const set = newTemplateSet();
  set.parse(name, text);
  return set.execute(name, data as GoValue);
};

/**
 * meshd's ADS endpoint: `discoveryAddress`, TLS (unless controlPlaneAuthPolicy is NONE) verified with
 * XDS_ROOT_CA or the mounted mesh root, and with XDS_AUTH the service-account token on each stream.
 */
export function xdsUpstreamFrom(o: ProxyOptions, workloadCertificate: () => WorkloadSecret | undefined = () => undefined): XdsUpstream {
  const address = o.proxy.discoveryAddress;
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  let credentials: XdsUpstream['credentials'] = grpc.credentials.createInsecure();
  if (o.proxy.controlPlaneAuthPolicy !== 'NONE') {
    const rootPath = o.env.string('XDS_ROOT_CA') || MESH_ROOT_CERT_PATH;
    let root: Buffer;
    try {
      root = readFileSync(rootPath);
    } catch (e) {
      throw new CliError(`the xDS root certificate (XDS_ROOT_CA) ${rootPath} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    // NOTE: the workload certificate of the moment is the client certificate (meshd accepts it as the
    // proxy's identity, as istiod does); new credentials only when it rotated, so the channel is reused.
    const rootOnly = grpc.credentials.createSsl(root);
    let last: { chain: string; credentials: grpc.ChannelCredentials } | undefined;
    credentials = () => {
      const cert = workloadCertificate();
      if (!cert) return rootOnly;
      if (last?.chain !== cert.certChainPem) last = { chain: cert.certChainPem, credentials: grpc.credentials.createSsl(root, Buffer.from(cert.keyPem), Buffer.from(cert.certChainPem)) };
      return last.credentials;
    };
  }
  return {
    address,
    credentials,
    serverName: host,
    ...(o.env.bool('XDS_AUTH') ? { token: () => readFileSync(TOKEN_PATH, 'utf8').trim() } : {}),
  };
}

/** Where fetched Wasm modules are kept (Istio's `/var/lib/istio/data/wasm`, renamed, relative to the agent's folder). */
export const WASM_CACHE_DIR = './var/lib/mesh/data/wasm';

/** The Wasm module cache from the WASM_* variables, with its purge running; closed with the agent. */
function startWasmCache(o: ProxyOptions, metrics: Metrics, logger: Logger, lifecycle: Lifecycle): WasmCache {
  const cache = new WasmCache({
    dir: WASM_CACHE_DIR,
    maxRetries: o.env.int('WASM_HTTP_REQUEST_MAX_RETRIES'),
    requestTimeoutMs: o.env.duration('WASM_HTTP_REQUEST_TIMEOUT'),
    expiryMs: o.env.duration('WASM_MODULE_EXPIRY'),
    purgeIntervalMs: o.env.duration('WASM_PURGE_INTERVAL'),
    insecureRegistries: (o.env.string('WASM_INSECURE_REGISTRIES') ?? '').split(',').map((r) => r.trim()).filter((r) => r !== ''),
    metrics,
    logger,
  });
  cache.start();
  lifecycle.add('wasm cache', () => cache.close());
  return cache;
}

/** The DNS proxy at DNS_PROXY_ADDR with the upstream servers of /etc/resolv.conf (mesh names come from NDS). */
async function startDnsProxy(at: { host: string; port: number }, parallel: boolean, metrics: Metrics, logger: Logger): Promise<DnsProxy> {
  let resolv = '';
  try {
    resolv = readFileSync('/etc/resolv.conf', 'utf8');
  } catch {
    logger.warn({}, 'no /etc/resolv.conf: names outside the mesh cannot be resolved');
  }
  const { v4, v6 } = resolvConfServers(resolv);
  try {
    return await DnsProxy.start({ host: at.host, port: at.port, upstreams: [...v4, ...v6], parallel, metrics, logger });
  } catch (e) {
    throw new CliError(`the DNS proxy cannot listen on ${at.host}:${at.port} (DNS_PROXY_ADDR): ${(e as Error).message}`);
  }
}

/** How long the agent's own parts get to close after the proxy stopped. */
const CLOSE_MS = 5_000;

/** Where proxyless gRPC's certificate files go (Istio's OUTPUT_CERTS default, renamed). */
export const GRPC_CERT_DIR = './var/lib/mesh/data';

/**
 * DISABLE_DATAPLANE: no proxy process. The agent serves certificates, the xDS proxy and the status port;
 * with MESH_META_GENERATOR=grpc it writes the gRPC xDS bootstrap and keeps the certificate files fresh.
 * Runs until SIGTERM, SIGINT or POST /quitquitquit; resolves with 0.
 */
async function runWithoutProxy(o: ProxyOptions, certs: CertificateOptions, parts: { logging: Logging; metrics: Metrics; lifecycle: Lifecycle; probers: Map<string, AppProber> }): Promise<number> {
  const { logging, metrics, lifecycle } = parts;
  const log = logging.root;
  const cache = await startWorkloadCertificates(certs, o.bootstrap.sdsSocketPath, { logger: logging.scope('sds'), metrics, lifecycle });
  if (o.bootstrap.metadata['GENERATOR'] === 'grpc') {
    const path = join(o.proxy.configPath, 'grpc-bootstrap.json');
    writeGrpcBootstrap(path, o.bootstrap, GRPC_CERT_DIR);
    log.info({ bootstrap: path, certificates: GRPC_CERT_DIR }, 'gRPC xDS bootstrap written');
    if (cache) {
      const write = (s: WorkloadSecret): void => writeCertificateFiles(GRPC_CERT_DIR, s);
      lifecycle.add('certificate files', cache.subscribe(write));
      if (cache.current) write(cache.current);
    }
  }
  const xds = await XdsProxy.start({ socketPath: o.bootstrap.xdsSocketPath, upstream: xdsUpstreamFrom(o, () => cache?.current), metrics, logger: logging.scope('xdsproxy') });
  lifecycle.add('xds proxy', () => xds.close());
  let stop!: () => void;
  const stopped = new Promise<void>((res) => (stop = res));
  const status = await StatusServer.start({
    host: '0.0.0.0',
    port: o.proxy.statusPort,
    metrics,
    probers: parts.probers,
    onQuit: stop,
    agentNotReadyReason: () => (cache && !cache.current ? 'no workload certificate yet' : undefined),
    logger: logging.scope('healthcheck'),
  });
  lifecycle.add('status server', () => status.close());
  const onSignal = (): void => stop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  await stopped;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  log.info({}, 'asked to stop');
  return 0;
}

/** Runs the proxy command; resolves with the exit code. */
export async function runProxy(ctx: RunContext): Promise<number> {
  const o = proxyOptionsFrom(ctx.flags, ctx.args, ctx.io.env);
  const stsPort = ctx.flags.number('stsPort');
  // NOTE: the token-manager plugins exchange tokens with a cloud provider's STS; none is reachable here.
  if (stsPort > 0) notImplemented(`--stsPort=${stsPort}: the security token service (token manager plugin ${ctx.flags.string('tokenManagerPlugin')})`);
  const certs = certificateOptionsFrom(o.env, o.proxy.discoveryAddress, o.trustDomain, o.bootstrap.podNamespace);
  const withoutProxy = o.env.bool('DISABLE_DATAPLANE');
  if (!withoutProxy) {
    try {
      accessSync(o.proxy.binaryPath, constants.X_OK);
    } catch {
      throw new CliError(`the proxy binary ${o.proxy.binaryPath} (ProxyConfig binaryPath) does not exist or is not executable`);
    }
  }
  let probers: Map<string, AppProber> = new Map();
  const probersText = ctx.io.env['MESH_KUBE_APP_PROBERS'];
  if (probersText) {
    try {
      probers = parseAppProbers(probersText, 'MESH_KUBE_APP_PROBERS');
    } catch (e) {
      if (e instanceof AppProbersError) throw new CliError(e.message);
      throw e;
    }
  }
  const logging = createLogging(o.log, SCOPES['pilot-agent']);
  const log = logging.root;
  const metrics = createMetrics('pilot-agent');
  const lifecycle = new Lifecycle();
  try {
    if (ctx.flags.bool('profiling')) log.warn({ flag: 'profiling' }, 'flag accepted but not acted on yet');
    if (withoutProxy) return await runWithoutProxy(o, certs, { logging, metrics, lifecycle, probers });
    let args: string[];
    let bootstrapPath: string;
    try {
      bootstrapPath = writeBootstrap(o.bootstrap, renderGoTemplate, o.templatePath).path;
      args = proxyArgs({
        bootstrapPath,
        drainDurationMs: o.proxy.drainDurationMs,
        logLevel: o.proxyLogLevel,
        componentLogLevel: o.proxyComponentLogLevel,
        concurrency: o.proxy.concurrency,
        ipv6: o.bootstrap.instanceIps.length > 0 && o.bootstrap.instanceIps.every((ip) => ip.includes(':')),
        outlierLogPath: o.outlierLogPath,
      });
    } catch (e) {
      if (e instanceof BootstrapError || e instanceof ProxyLogLevelError) throw new CliError(e.message);
      throw e;
    }
    const cache = await startWorkloadCertificates(certs, o.bootstrap.sdsSocketPath, { logger: logging.scope('sds'), metrics, lifecycle });
    let onNameTable: ((table: Readonly<Record<string, NameInfo>>) => void) | undefined;
    let lastNameTable: Readonly<Record<string, NameInfo>> = {};
    if (o.dnsProxy) {
      const dns = await startDnsProxy(o.dnsProxy, o.env.bool('DNS_FORWARD_PARALLEL'), metrics, logging.scope('dns'));
      lifecycle.add('dns proxy', () => dns.close());
      onNameTable = (table) => {
        lastNameTable = table;
        dns.setNameTable(dnsNameTable(table, o.bootstrap.podNamespace));
      };
    }
    const wasm = startWasmCache(o, metrics, logging.scope('wasm'), lifecycle);
    const xds = await XdsProxy.start({
      socketPath: o.bootstrap.xdsSocketPath,
      upstream: xdsUpstreamFrom(o, () => cache?.current),
      metrics,
      logger: logging.scope('xdsproxy'),
      convertExtensionConfig: (response) => convertRemoteWasm(response, wasm, metrics),
      ...(onNameTable ? { onNameTable } : {}),
    });
    lifecycle.add('xds proxy', () => xds.close());
    log.info({ bootstrap: bootstrapPath, binary: o.proxy.binaryPath }, 'bootstrap written');
    const supervisor = new ProxySupervisor({
      binaryPath: o.proxy.binaryPath,
      args,
      env: { ...o.childEnv },
      adminPort: o.proxy.proxyAdminPort,
      terminationDrainMs: o.proxy.terminationDrainDurationMs,
      logger: logging.scope('default'),
    });
    let signalled: NodeJS.Signals | 'quitquitquit' | undefined;
    const onSignal = (s: NodeJS.Signals | 'quitquitquit'): void => {
      if (signalled) return;
      signalled = s;
      log.info({ signal: s }, 'asked to stop: draining the proxy');
      void supervisor.stop();
    };
    // NOTE: on all interfaces, as Istio's: the kubelet probes the pod IP.
    const status = await StatusServer.start({
      host: '0.0.0.0',
      port: o.proxy.statusPort,
      proxyAdminPort: o.proxy.proxyAdminPort,
      metrics,
      probers,
      onQuit: () => onSignal('quitquitquit'),
      ...(o.dnsProxy ? { nameTable: () => lastNameTable } : {}),
      logger: logging.scope('healthcheck'),
    });
    lifecycle.add('status server', () => status.close());
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    supervisor.start();
    const exit = await supervisor.exited;
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    if (signalled) return 0;
    if (exit.code !== 0) {
      ctx.io.stderr.write(`Error: the proxy ${o.proxy.binaryPath} exited with ${exit.signal ?? `code ${exit.code}`} after ${exit.restarts} restart(s)\n`);
    }
    return exit.code;
  } finally {
    const closed = await lifecycle.close(CLOSE_MS);
    for (const { name, error } of closed.errors) log.error({ part: name, err: (error as Error).message }, 'closing failed');
    logging.flush();
    logging.close();
  }
}
