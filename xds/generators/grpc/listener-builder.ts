/**
 * Listeners for proxyless gRPC (Istio grpcgen's LDS):
 * - client listeners, requested by name `<host>:<port>` (FQDN, `name.namespace` or a short name in
 *   the proxy's namespace): an API listener whose HCM points at RDS `outbound|<port>||<fqdn>`;
 * - server listeners, requested by the XdsServer template `xds.mesh.io/grpc/lds/inbound/<ip>:<port>`:
 *   one filter chain with RBAC from AuthorizationPolicy and, under STRICT PeerAuthentication, a
 *   DownstreamTlsContext requiring client certificates.
 */
import type { PushContext, Proxy, Service } from '../../../core/index.js';
import { ADS_SOURCE, any, CERT_PROVIDER, ENVOY, outboundClusterName } from './envoy.js';
import { rbacFilters } from './rbac-builder.js';
import type { FilterChain, HttpConnectionManager, Listener } from '../../envoy-types/index.js';
import { FAULT_FILTER_NAME } from './route-builder.js';

/** The XdsServer listener name template (`%s` = `<ip>:<port>`). */
export const SERVER_LISTENER_TEMPLATE = 'xds.mesh.io/grpc/lds/inbound/%s';
const SERVER_PREFIX = SERVER_LISTENER_TEMPLATE.replace('%s', '');

/** A built listener and what it depends on; `perProxy` listeners must not be shared between proxies. */
export interface BuiltListener {
  readonly resource: Listener;
  readonly dependencies: readonly string[];
  readonly perProxy: boolean;
}

const ROUTER = { name: 'envoy.filters.http.router', typedConfig: any(ENVOY.router, {}) };

/** Splits `<host>:<port>` (IPv6 hosts in brackets). */
export function splitHostPort(name: string): { host: string; port: number } | undefined {
  const i = name.lastIndexOf(':');
  if (i <= 0) return undefined;
  const port = Number(name.slice(i + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  let host = name.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

/** Finds the service a client listener name refers to, trying the name as FQDN, then as a short name. */
export function resolveListenerService(ctx: PushContext, proxy: Proxy, host: string): Service | undefined {
  const candidates = [host];
  const dots = host.split('.').length - 1;
  if (dots === 0) candidates.push(`${host}.${proxy.namespace}.svc.${ctx.domain}`);
  if (dots === 1) candidates.push(`${host}.svc.${ctx.domain}`);
  if (host.endsWith('.svc')) candidates.push(`${host}.${ctx.domain}`);
  for (const c of candidates) {
    const s = ctx.serviceFor(c, proxy.namespace);
    if (s && ctx.serviceVisible(s, proxy.namespace)) return s;
  }
  return undefined;
}

/** Builds a client listener, or undefined when no visible service has that host and port. */
export function buildClientListener(ctx: PushContext, proxy: Proxy, name: string): BuiltListener | undefined {
  const hp = splitHostPort(name);
  if (!hp) return undefined;
  const svc = resolveListenerService(ctx, proxy, hp.host);
  if (!svc || !svc.ports.some((p) => p.port === hp.port)) return undefined;
  const hcm: HttpConnectionManager = {
    statPrefix: name,
    rds: { configSource: ADS_SOURCE, routeConfigName: outboundClusterName(hp.port, '', svc.hostname) },
    httpFilters: [{ name: FAULT_FILTER_NAME, typedConfig: any(ENVOY.fault, {}) }, ROUTER],
  };
  return {
    resource: { name, apiListener: { apiListener: any(ENVOY.hcm, hcm) } },
    dependencies: [`ServiceEntry/${svc.namespace}/${svc.hostname}`],
    perProxy: false,
  };
}

/** Whether a listener name is a server listener name. */
export function isServerListenerName(name: string): boolean {
  return name.startsWith(SERVER_PREFIX);
}

/** Builds the server listener for `xds.mesh.io/grpc/lds/inbound/<ip>:<port>` for this proxy. */
export function buildServerListener(ctx: PushContext, proxy: Proxy, name: string): BuiltListener | undefined {
  const hp = splitHostPort(name.slice(SERVER_PREFIX.length));
  if (!hp) return undefined;
  const mode = ctx.mtlsMode(proxy.namespace, proxy.labels, hp.port);
  const authz = ctx.authorizationPolicies(proxy.namespace, proxy.labels);
  const hcm: HttpConnectionManager = {
    statPrefix: `inbound|${hp.port}`,
    routeConfig: {
      name: `inbound|${hp.port}`,
      virtualHosts: [{ name: 'inbound|http', domains: ['*'], routes: [{ match: { prefix: '/' }, nonForwardingAction: {} }] }],
    },
    httpFilters: [...rbacFilters(authz), ROUTER],
  };
  const chain: FilterChain = {
    name: `inbound|${hp.port}`,
    filters: [{ name: 'envoy.filters.network.http_connection_manager', typedConfig: any(ENVOY.hcm, hcm) }],
  };
  // NOTE: gRPC cannot sniff TLS, so PERMISSIVE is served as plaintext; only STRICT requires mTLS.
  if (mode === 'STRICT') {
    chain.transportSocket = {
      name: 'envoy.transport_sockets.tls',
      typedConfig: any(ENVOY.downstreamTls, {
        commonTlsContext: {
          tlsCertificateProviderInstance: { instanceName: CERT_PROVIDER.instance, certificateName: CERT_PROVIDER.identity },
          validationContext: { caCertificateProviderInstance: { instanceName: CERT_PROVIDER.instance, certificateName: CERT_PROVIDER.rootCert } },
        },
        requireClientCertificate: { value: true },
      }),
    };
  }
  return {
    resource: {
      name,
      address: { socketAddress: { address: hp.host, portValue: hp.port } },
      filterChains: [chain],
    },
    dependencies: ['kind:AuthorizationPolicy', 'kind:PeerAuthentication'],
    perProxy: true,
  };
}
