/**
 * The Sidecar's connection pool on the proxy's inbound clusters (istiod's SidecarScope.InboundConnectionPoolForPort
 * and, for `inbound|<port>||`, applyConnectionPool in the inbound direction): `ingress[].connectionPool` of the
 * ingress listener on the cluster's port, else the top-level `inboundConnectionPool`, else nothing (the
 * defaults). Inbound, istiod applies the connection pool alone: no HTTP/2 upgrade, outlier detection, load
 * balancer or TLS.
 */
import type { ConnectionPoolSettings, SidecarSpec } from '../../../crds/index.js';
import { any, duration } from '../grpc/envoy.js';
import { ENVOY } from './sidecar-names.js';

/**
 * The connection pool of the inbound cluster on `port` (istiod's InboundConnectionPoolForPort): the one of the
 * Sidecar ingress listener on that port number, else `inboundConnectionPool`; undefined without either.
 */
export function inboundConnectionPoolFor(spec: SidecarSpec | undefined, port: number): ConnectionPoolSettings | undefined {
  if (!spec) return undefined;
  const own = spec.ingress?.find((l) => l.port.number === port && l.connectionPool !== undefined);
  return own?.connectionPool ?? spec.inboundConnectionPool;
}

/** A positive integer setting (istiod: "zero is a valid value if explicitly set, otherwise we want to use the default"; a zero keeps the default). */
function positive(n: number | undefined): number | undefined {
  return n !== undefined && n > 0 ? n : undefined;
}

/**
 * Applies a connection pool to an inbound cluster as istiod's applyConnectionPool: circuit breaker thresholds
 * (HTTP/2 max requests, HTTP/1 max pending requests, max retries, TCP max connections; unset or zero keeps
 * the unlimited default), the TCP connect timeout and keepalive, and HTTP protocol options (idle timeout, from
 * `http` else `tcp`; max requests per connection; max connection duration; the client's protocol with
 * `useClientProtocol`).
 */
export function applyInboundConnectionPool(c: Record<string, unknown>, cp: ConnectionPoolSettings): void {
  const thresholds = { ...((c['circuitBreakers'] as { thresholds: Record<string, unknown>[] } | undefined)?.thresholds[0] ?? {}) };
  const set = (field: string, n: number | undefined): void => {
    if (n !== undefined) thresholds[field] = { value: n };
  };
  set('maxRequests', positive(cp.http?.http2MaxRequests));
  set('maxPendingRequests', positive(cp.http?.http1MaxPendingRequests));
  set('maxRetries', positive(cp.http?.maxRetries));
  set('maxConnections', positive(cp.tcp?.maxConnections));
  c['circuitBreakers'] = { thresholds: [thresholds] };
  if (cp.tcp?.connectTimeout) c['connectTimeout'] = duration(cp.tcp.connectTimeout);
  const ka = cp.tcp?.tcpKeepalive;
  if (ka) c['upstreamConnectionOptions'] = upstreamTcpKeepalive(ka);
  const common: Record<string, unknown> = {};
  const idle = cp.http?.idleTimeout ?? cp.tcp?.idleTimeout;
  if (idle) common['idleTimeout'] = duration(idle);
  const perConnection = positive(cp.http?.maxRequestsPerConnection);
  if (perConnection !== undefined) common['maxRequestsPerConnection'] = { value: perConnection };
  if (cp.tcp?.maxConnectionDuration) common['maxConnectionDuration'] = duration(cp.tcp.maxConnectionDuration);
  const options: Record<string, unknown> = {};
  if (Object.keys(common).length > 0) options['commonHttpProtocolOptions'] = common;
  // NOTE: Envoy requires one upstream protocol choice whenever these options are set; istiod's default is HTTP/1.
  if (cp.http?.useClientProtocol === true) options['useDownstreamProtocolConfig'] = { httpProtocolOptions: {}, http2ProtocolOptions: {} };
  else if (Object.keys(options).length > 0) options['explicitHttpConfig'] = { httpProtocolOptions: {} };
  if (Object.keys(options).length > 0) c['typedExtensionProtocolOptions'] = { ['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']: any(ENVOY.httpProtocolOptions, options) };
}

/** A cluster's `upstream_connection_options` for a connection pool's `tcp.tcpKeepalive` (outbound and inbound clusters alike). */
export function upstreamTcpKeepalive(ka: { readonly probes?: number; readonly time?: string; readonly interval?: string }): Record<string, unknown> {
  return {
    tcpKeepalive: {
      ...(ka.probes !== undefined ? { keepaliveProbes: { value: ka.probes } } : {}),
      ...(ka.time ? { keepaliveTime: { value: Math.floor(duration(ka.time).seconds) } } : {}),
      ...(ka.interval ? { keepaliveInterval: { value: Math.floor(duration(ka.interval).seconds) } } : {}),
    },
  };
}
