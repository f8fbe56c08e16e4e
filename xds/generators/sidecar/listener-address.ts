/**
 * The addresses a sidecar's listeners and local clusters use by the IP families of the proxy (istiod's
 * listener_address.go and model.Proxy.DiscoverIPMode): the proxy's IPs (node metadata INSTANCE_IPS) make
 * it IPv4 (all IPv4, or none), IPv6 (all IPv6) or dual-stack (both).
 * - wildcards: `0.0.0.0`, `::`, or both (IPv4 first) for `virtualOutbound`, `virtualInbound` and the
 *   outbound listeners without a service address;
 * - localhosts: `127.0.0.1`, `::1`, or both, the inbound clusters' endpoint (the first);
 * - passthrough bind addresses: `127.0.0.6`, `::6`, or both, the source address of inbound traffic the
 *   sidecar sends to its app (iptables lets it through instead of redirecting it back).
 * MESH_DUAL_STACK (istiod's ISTIO_DUAL_STACK) makes the second family of a dual-stack proxy an
 * `additional_addresses` entry of `virtualOutbound` and `virtualInbound` and an extra source address of
 * the inbound clusters, and lets DNS clusters resolve both families; without it a dual-stack proxy binds
 * IPv4 only there, as istiod (its outbound HTTP listeners and InboundPassthroughCluster take both families
 * either way, as istiod's).
 */
import { isIP } from 'node:net';
import type { Proxy } from '../../../core/index.js';

/** The IP families of a proxy (istiod's IPMode). */
export type IpMode = 'IPv4' | 'IPv6' | 'Dual';

/** istiod's WildcardAddress / WildcardIPv6Address. */
export const WILDCARD_V4 = '0.0.0.0';
export const WILDCARD_V6 = '::';
/** istiod's LocalhostAddress / LocalhostIPv6Address. */
export const LOCALHOST_V4 = '127.0.0.1';
export const LOCALHOST_V6 = '::1';
/** istiod's InboundPassthroughBindIpv4 / Ipv6 ("6 is the magical number for inbound: 15006, 127.0.0.6, ::6"). */
export const PASSTHROUGH_BIND_V4 = '127.0.0.6';
export const PASSTHROUGH_BIND_V6 = '::6';

const modes = new WeakMap<readonly string[], IpMode>();

/**
 * The IP mode of a proxy by its IPs (istiod's DiscoverIPMode): all IPv4 (or none) is IPv4, all IPv6 is
 * IPv6, anything else (both, or an address that is neither) dual-stack.
 */
export function ipMode(proxy: Pick<Proxy, 'ipAddresses'>): IpMode {
  const ips = proxy.ipAddresses;
  let m = modes.get(ips);
  if (m === undefined) {
    m = ips.every((ip) => isIP(ip) === 4) ? 'IPv4' : ips.every((ip) => isIP(ip) === 6) ? 'IPv6' : 'Dual';
    modes.set(ips, m);
  }
  return m;
}

/** The wildcard addresses of a mode, the primary first (istiod's wildCards). */
export function wildcards(mode: IpMode): readonly string[] {
  return mode === 'IPv4' ? [WILDCARD_V4] : mode === 'IPv6' ? [WILDCARD_V6] : [WILDCARD_V4, WILDCARD_V6];
}

/** The localhost addresses of a mode, the primary first (istiod's localHosts). */
export function localhosts(mode: IpMode): readonly string[] {
  return mode === 'IPv4' ? [LOCALHOST_V4] : mode === 'IPv6' ? [LOCALHOST_V6] : [LOCALHOST_V4, LOCALHOST_V6];
}

/** The inbound passthrough source addresses (istiod's getPassthroughBindIPs): a dual-stack proxy without MESH_DUAL_STACK binds IPv4 only. */
export function passthroughBindIps(mode: IpMode, dualStack: boolean): readonly string[] {
  if (mode === 'IPv4') return [PASSTHROUGH_BIND_V4];
  if (mode === 'IPv6') return [PASSTHROUGH_BIND_V6];
  return dualStack ? [PASSTHROUGH_BIND_V4, PASSTHROUGH_BIND_V6] : [PASSTHROUGH_BIND_V4];
}

/** An Envoy socket address. */
export function socketAddress(ip: string, port: number): Record<string, unknown> {
  return { socketAddress: { address: ip, portValue: port } };
}

/** Envoy `additional_addresses` for the extra binds (none: the field is left out). */
export function additionalAddresses(extra: readonly string[], port: number): Record<string, unknown> {
  return extra.length > 0 ? { additionalAddresses: extra.map((ip) => ({ address: socketAddress(ip, port) })) } : {};
}

/**
 * A cache-key suffix for what the IP mode changes in shared resources: empty for IPv4 (the keys of IPv4
 * proxies stay as they were), `|IPv6` or `|Dual` otherwise.
 */
export function ipModeKey(proxy: Pick<Proxy, 'ipAddresses'>): string {
  const m = ipMode(proxy);
  return m === 'IPv4' ? '' : `|${m}`;
}

/**
 * Envoy's DNS lookup family of a STRICT_DNS / LOGICAL_DNS cluster for the proxy (istiod's buildCluster):
 * IPv4 `V4_ONLY`; IPv6 `V6_ONLY`, or `ALL` with MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS (the
 * pod reaches IPv4 through a link-local interface); dual-stack `ALL` with MESH_DUAL_STACK (happy
 * eyeballs), else `V4_ONLY`.
 */
export function dnsLookupFamily(mode: IpMode, o: { readonly dualStack?: boolean; readonly ipv4OutboundForIpv6?: boolean }): 'V4_ONLY' | 'V6_ONLY' | 'ALL' {
  if (mode === 'IPv4') return 'V4_ONLY';
  if (mode === 'IPv6') return o.ipv4OutboundForIpv6 === true ? 'ALL' : 'V6_ONLY';
  return o.dualStack === true ? 'ALL' : 'V4_ONLY';
}

/**
 * An inbound cluster's `upstream_bind_config` (istiod's buildInboundCluster): the first passthrough bind
 * address as the source, the others (a dual-stack proxy with MESH_DUAL_STACK) as extra source addresses.
 */
export function inboundUpstreamBind(mode: IpMode, dualStack: boolean): Record<string, unknown> {
  const [first, ...extra] = passthroughBindIps(mode, dualStack);
  return {
    sourceAddress: { address: first!, portValue: 0 },
    ...(extra.length > 0 ? { extraSourceAddresses: extra.map((address) => ({ address: { address, portValue: 0 } })) } : {}),
  };
}

/**
 * InboundPassthroughCluster's `upstream_bind_config` (istiod's buildInboundPassthroughCluster): `127.0.0.6`,
 * `::6` for an IPv6-only proxy, and `::6` as an extra source address of a dual-stack one (Envoy picks the
 * family of the destination; not gated by MESH_DUAL_STACK, as istiod).
 */
export function passthroughUpstreamBind(mode: IpMode): Record<string, unknown> {
  return {
    sourceAddress: { address: mode === 'IPv6' ? PASSTHROUGH_BIND_V6 : PASSTHROUGH_BIND_V4, portValue: 0 },
    ...(mode === 'Dual' ? { extraSourceAddresses: [{ address: { address: PASSTHROUGH_BIND_V6, portValue: 0 } }] } : {}),
  };
}

/**
 * Where a Sidecar ingress listener's default endpoint sends traffic (istiod's buildInboundClustersFromSidecar):
 * `127.0.0.1` the proxy's localhost, IPv4 when it has one (an IPv6-only proxy: `::1`); `[::1]` IPv6
 * localhost when it has one (an IPv4-only proxy: `127.0.0.1`); `0.0.0.0` / `[::]` the proxy's first IPv4 /
 * IPv6 address (else `127.0.0.1` / `::1`); `unix://<path>` a socket; undefined without one or when it does
 * not parse (the original destination).
 */
export function defaultEndpointAddress(proxy: Pick<Proxy, 'ipAddresses'>, defaultEndpoint: string | undefined): Record<string, unknown> | undefined {
  if (!defaultEndpoint) return undefined;
  if (defaultEndpoint.startsWith('unix://')) return { pipe: { path: defaultEndpoint.slice('unix://'.length) } };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(defaultEndpoint);
  if (!m) return undefined;
  const host = m[1] ?? m[2] ?? '';
  const own = (family: 4 | 6): string | undefined => proxy.ipAddresses.find((ip) => isIP(ip) === family);
  const local = localhosts(ipMode(proxy));
  const prefer = (family: 4 | 6): string => local.find((ip) => isIP(ip) === family) ?? local[0]!;
  const address =
    host === WILDCARD_V4 ? (own(4) ?? LOCALHOST_V4) : host === WILDCARD_V6 ? (own(6) ?? LOCALHOST_V6) : host === LOCALHOST_V4 ? prefer(4) : host === LOCALHOST_V6 ? prefer(6) : host;
  return socketAddress(address, Number(m[3]));
}
