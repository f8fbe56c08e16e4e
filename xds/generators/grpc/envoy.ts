/**
 * Small builders shared by the proxyless generators: Envoy type names, durations, config sources,
 * cluster names. Objects use protobufjs's camelCase plain-object form (see xds/protos/codec.ts).
 */
import { parseDuration } from '../../../core/index.js';
import type {
  AnyMessage, ConfigSource, DownstreamTlsContext, Duration, HTTPFault, HttpConnectionManager, RbacFilter, Router, UpstreamTlsContext,
} from '../../envoy-types/index.js';

/** Full names of the Envoy messages the generators build. */
export const ENVOY = {
  listener: 'envoy.config.listener.v3.Listener',
  route: 'envoy.config.route.v3.RouteConfiguration',
  cluster: 'envoy.config.cluster.v3.Cluster',
  endpoint: 'envoy.config.endpoint.v3.ClusterLoadAssignment',
  hcm: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  router: 'envoy.extensions.filters.http.router.v3.Router',
  fault: 'envoy.extensions.filters.http.fault.v3.HTTPFault',
  rbac: 'envoy.extensions.filters.http.rbac.v3.RBAC',
  upstreamTls: 'envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
  downstreamTls: 'envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
} as const;

/** `type.googleapis.com/<name>` */
export function typeUrl(name: string): string {
  return `type.googleapis.com/${name}`;
}

/** The typed configs meshd puts in Any fields, by message name: `any` checks their fields. */
interface TypedConfigs {
  [ENVOY.hcm]: HttpConnectionManager;
  [ENVOY.router]: Router;
  [ENVOY.fault]: HTTPFault;
  [ENVOY.rbac]: RbacFilter;
  [ENVOY.upstreamTls]: UpstreamTlsContext;
  [ENVOY.downstreamTls]: DownstreamTlsContext;
}

/** An Any in expanded form: `{ '@type': url, ...fields }`; the fields are typed for the messages of `ENVOY`. */
export function any<N extends string>(name: N, fields: N extends keyof TypedConfigs ? TypedConfigs[N] : object): AnyMessage & { readonly '@type': string } {
  return { '@type': typeUrl(name), ...fields };
}

/** google.protobuf.Duration from milliseconds. */
export function durationMs(ms: number): Duration & { seconds: number; nanos: number } {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** google.protobuf.Duration from a Go/Istio duration string (`1s`, `500ms`). */
export function duration(text: string): Duration & { seconds: number; nanos: number } {
  return durationMs(parseDuration(text));
}

/** ConfigSource pointing back at the ADS stream. */
export const ADS_SOURCE: Readonly<ConfigSource> = { ads: {}, resourceApiVersion: 'V3' };

/** `outbound|<port>|<subset>|<host>`, the Istio cluster name. */
export function outboundClusterName(port: number, subset: string, host: string): string {
  return `outbound|${port}|${subset}|${host}`;
}

/** Parses `outbound|<port>|<subset>|<host>`; undefined for other names. */
export function parseOutboundClusterName(name: string): { port: number; subset: string; host: string } | undefined {
  const parts = name.split('|');
  if (parts.length !== 4 || parts[0] !== 'outbound') return undefined;
  const port = Number(parts[1]);
  if (!Number.isInteger(port) || port <= 0) return undefined;
  return { port, subset: parts[2]!, host: parts[3]! };
}

/** The certificate provider instance names the proxyless bootstrap declares (file_watcher). */
export const CERT_PROVIDER = { instance: 'default', rootCert: 'ROOTCA', identity: 'default' } as const;

/** gRPC status names (as in Istio's HTTPFaultInjection.Abort.grpcStatus) to codes. */
export const GRPC_STATUS: Readonly<Record<string, number>> = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

/** FractionalPercent from a percentage (0-100, fractional allowed), in millionths. */
export function fractionalPercent(percent: number): { numerator: number; denominator: 'MILLION' } {
  return { numerator: Math.round(Math.max(0, Math.min(100, percent)) * 10_000), denominator: 'MILLION' };
}
