/**
 * What the sidecar listener builders share (inbound-listeners.ts, outbound-listeners.ts; the router's listeners
 * take outboundHcm too): the ALPN values HTTP chains match, the sniffing listener filters, tcp_proxy, and the
 * HTTP connection manager with its HTTP filters.
 */
import { any } from '../grpc/envoy.js';
import { ADS, ENVOY, HTTP_FILTER } from './sidecar-names.js';
import { alpnFilter, hcmFields, type HcmOptions } from './listener-options.js';

/** The ALPN values http_inspector sets on plaintext HTTP (with PILOT_HTTP10 sniffing chains match them all; see plaintextHttpAlpn). */
export const HTTP_ALPN = ['http/1.1', 'http/1.0', 'h2c'] as const;
/** The ALPN a client sidecar offers for HTTP over mesh mTLS (Istio's `istio-http/1.1`, ..., renamed). */
export const MESH_HTTP_ALPN = ['mesh-http/1.0', 'mesh-http/1.1', 'mesh-h2'] as const;

/** tls_inspector and http_inspector: what a sniffing listener reads before choosing a chain. */
export function sniffingListenerFilters(): Record<string, unknown>[] {
  return [
    { name: 'envoy.filters.listener.tls_inspector', typedConfig: any(ENVOY.tlsInspector, {}) },
    { name: 'envoy.filters.listener.http_inspector', typedConfig: any(ENVOY.httpInspector, {}) },
  ];
}

/** A tcp_proxy network filter to a cluster. */
export function tcpProxy(cluster: string, statPrefix = cluster): Record<string, unknown> {
  return { name: 'envoy.filters.network.tcp_proxy', typedConfig: any(ENVOY.tcpProxy, { statPrefix, cluster }) };
}

/** The HTTP filters of a sidecar HCM: [mesh.alpn,] fault, cors, router (as Istio orders them; authz filters slot in before fault). */
export function httpFilters(alpn = false): Record<string, unknown>[] {
  return [
    ...(alpn ? [alpnFilter()] : []),
    { name: HTTP_FILTER.fault, typedConfig: any(ENVOY.fault, {}) },
    { name: HTTP_FILTER.cors, typedConfig: any(ENVOY.cors, {}) },
    { name: HTTP_FILTER.router, typedConfig: any(ENVOY.router, {}) },
  ];
}

/** An HTTP connection manager reading route configuration `routeName` over ADS (shaped by `h`; none: the defaults). */
export function outboundHcm(statPrefix: string, routeName: string, h: HcmOptions = {}): Record<string, unknown> {
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typedConfig: any(ENVOY.hcm, {
      statPrefix,
      rds: { configSource: ADS, routeConfigName: routeName },
      httpFilters: httpFilters(h.alpnFilter === true),
      ...hcmFields(h),
      normalizePath: { value: true },
      pathWithEscapedSlashesAction: 'KEEP_UNCHANGED',
      streamIdleTimeout: { seconds: 0, nanos: 0 },
    }),
  };
}
