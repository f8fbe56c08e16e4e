/**
 * meshd's secure side, assembled: the CA (ENABLE_CA_SERVER), the TLS listeners (--secureGRPCAddr,
 * --httpsAddr) with --tls-cipher-suites, and xDS authentication (XDS_AUTH, XDS_AUTH_PLAINTEXT,
 * PILOT_ENABLE_XDS_IDENTITY_CHECK). run-discovery.ts calls {@link startSecureSide} once at start, then hands
 * the ADS server to `attachAds` and the CA to the root-certificate distribution.
 */
import type * as grpc from '@grpc/grpc-js';
import { caSettingsFromEnv, type Authenticator, type CaSettings, type MeshCa } from '../../ca/index.js';
import { readMeshConfig, type OrchClient } from '../../controllers/index.js';
import type { Lifecycle, ListenAddress, Logging, Metrics } from '../../core/index.js';
import { XdsAuthenticator, type AdsServer, type XdsStreamAuth } from '../../xds/index.js';
import type { DiscoveryOptions } from './discovery-options.js';
import { oidcAuthenticatorFor, startMeshdCa, tokenAuthenticatorFor, type MeshdCa } from './secure-ca.js';
import { createTlsSource, servingDnsNames, startSecureListeners, type HttpsRoute, type TlsSource } from './secure-listeners.js';
import { parseCipherSuites } from './secure-tls.js';

/** The flags the secure side acts on (taken off the "not acted on yet" list). */
export const SECURE_FLAGS = ['caCertFile', 'httpsAddr', 'secureGRPCAddr', 'tls-cipher-suites', 'tlsCertFile', 'tlsKeyFile'] as const;

/** Thrown for secure-side flags that do not fit together. */
export class SecureFlagError extends Error {
  override readonly name = 'SecureFlagError';
}

/** The running secure side. */
export interface SecureSide {
  /** The CA; undefined with ENABLE_CA_SERVER=false. */
  readonly ca: MeshdCa | undefined;
  readonly tls: TlsSource;
  readonly grpcAddress: ListenAddress;
  readonly httpsAddress: ListenAddress;
  /** xDS check of the plaintext discovery port: set only with XDS_AUTH and XDS_AUTH_PLAINTEXT. */
  readonly plaintextXdsAuth: XdsStreamAuth | undefined;
  /** Serves `ads` on the secure gRPC port (with XDS_AUTH, authenticated). */
  attachAds<P>(ads: AdsServer<P>): void;
  /** Mounts a route on the HTTPS listener (the webhooks). */
  mountHttps(route: HttpsRoute): void;
}

/** Everything the secure side needs from meshd's start. */
export interface SecureSideDeps {
  readonly logging: Logging;
  readonly metrics: Metrics;
  readonly lifecycle: Lifecycle;
  /** grpc-js options of the plaintext discovery server (keepalive, limits), reused on the secure one. */
  readonly grpcOptions: grpc.ServerOptions;
  /** The orchestrator (orch-connection.ts), when configured: Secret store, TokenReview, node lookup. */
  readonly orch?: OrchClient | undefined;
}

/**
 * Starts the CA (unless ENABLE_CA_SERVER=false) and the secure listeners. Without the CA and without
 * --tlsCertFile there is no certificate to serve: the secure listeners stay off (logged) and this resolves
 * undefined. Throws for bad flags or CA material before anything secure is served.
 */
export async function startSecureSide(flags: DiscoveryOptions, deps: SecureSideDeps): Promise<SecureSide | undefined> {
  const { logging, metrics, lifecycle } = deps;
  const env = flags.env;
  const log = logging.scope('ca');
  if ((flags.tlsCertFile === '') !== (flags.tlsKeyFile === '')) {
    throw new SecureFlagError('--tlsCertFile and --tlsKeyFile go together: give both or neither');
  }
  const suites = parseCipherSuites(flags.tlsCipherSuites);
  if (suites.insecure.length > 0) log.warn({ suites: suites.insecure }, '--tls-cipher-suites names insecure cipher suites');
  const settings: CaSettings = caSettingsFromEnv(env, readMeshConfig(flags.meshConfigFile).trustDomain);
  const caEnabled = settings.server.enabled;
  if (!caEnabled && flags.tlsCertFile === '') {
    log.info({}, 'ENABLE_CA_SERVER is false and no --tlsCertFile: the CA and the secure listeners (--secureGRPCAddr, --httpsAddr) are off');
    return undefined;
  }
  const orch = deps.orch;
  const tokenAuthenticator = orch ? tokenAuthenticatorFor(settings, orch) : undefined;
  const meshdCa = caEnabled ? await startMeshdCa({ settings, orch, namespace: flags.namespace, metrics, logger: log, lifecycle, tokenAuthenticator }) : undefined;

  const tls = await createTlsSource(
    flags.tlsCertFile !== ''
      ? { kind: 'files', certFile: flags.tlsCertFile, keyFile: flags.tlsKeyFile, caCertFile: flags.caCertFile, extraTrustPem: meshdCa?.ca.trustBundlePem().join('\n') }
      : { kind: 'ca', ca: meshdCa!.ca, dnsNames: servingDnsNames(flags.namespace, flags.domain, env.string('MESHD_CUSTOM_HOST')), ttlMs: settings.ca.workload.defaultTtlMs },
    log,
  );
  lifecycle.add('serving-certificate', () => tls.stop());

  // NOTE: without the CA, xDS clients are still authenticated the way the CA would: OIDC first, then TokenReview.
  const withoutCa = (): Authenticator[] => {
    const oidc = oidcAuthenticatorFor(settings, { metrics, logger: log, lifecycle });
    return [...(oidc ? [oidc] : []), ...(tokenAuthenticator ? [tokenAuthenticator] : [])];
  };
  const authenticators: readonly Authenticator[] = meshdCa?.authenticators ?? withoutCa();
  const xdsAuth = env.bool('XDS_AUTH')
    ? new XdsAuthenticator({ authenticators, identityCheck: env.bool('PILOT_ENABLE_XDS_IDENTITY_CHECK'), trustedAccounts: settings.server.trustedNodeAccounts })
    : undefined;
  if (xdsAuth && authenticators.length === 0) log.warn({}, 'XDS_AUTH is true but no authenticator is available (no orchestrator, no CA): every xDS client on the secure port is refused');

  const listeners = await startSecureListeners(
    {
      secureGrpcAddr: flags.secureGrpcAddr,
      httpsAddr: flags.httpsAddr,
      grpcOptions: deps.grpcOptions,
      ciphers: suites.ciphers,
      shutdownMs: flags.shutdownMs,
      register: (server) => meshdCa?.service.register(server),
    },
    tls,
  );
  lifecycle.add('secure-listeners', () => listeners.close());
  log.info({ secureGrpc: listeners.grpcAddress.port, https: listeners.httpsAddress.port, xdsAuth: xdsAuth !== undefined, caServer: caEnabled }, 'secure listeners started');
  return {
    ca: meshdCa,
    tls,
    grpcAddress: listeners.grpcAddress,
    httpsAddress: listeners.httpsAddress,
    plaintextXdsAuth: xdsAuth && env.bool('XDS_AUTH_PLAINTEXT') ? xdsAuth : undefined,
    attachAds: (ads) => ads.register(listeners.grpc, { auth: xdsAuth }),
    mountHttps: (route) => listeners.mount(route),
  };
}

/** The CA of a running secure side, for the root-certificate distribution. */
export function secureSideCa(side: SecureSide | undefined): MeshCa | undefined {
  return side?.ca?.ca;
}
