/**
 * The process-wide options of sidecar listeners (issue 13, LDS), read once at start (see
 * generatorOptionsFromEnv), and the pieces of the HTTP connection manager they shape, as istiod builds
 * them (listener.go buildSidecarOutboundHTTPListenerOpts, listener_builder.go buildHTTPConnectionManager,
 * listener_inbound.go buildSidecarInboundHTTPOpts):
 * - PILOT_SIDECAR_USE_REMOTE_ADDRESS: outbound HCMs set `use_remote_address` (inbound never does);
 * - PILOT_HTTP10, or the proxy's metadata `HTTP10: "1"`: HCMs accept HTTP/1.0
 *   (`http_protocol_options.accept_http_10`); PILOT_HTTP10 alone also lets sniffing chains match the
 *   `http/1.0` ALPN http_inspector sets (without it HTTP/1.0 falls through to the TCP chain, as istiod);
 * - ENABLE_HCM_INTERNAL_NETWORKS (or use_remote_address): `internal_address_config` from the mesh
 *   networks' `fromCidr` endpoints, sorted;
 * - PILOT_ENABLE_ALPN_FILTER: the `mesh.alpn` HTTP filter (Istio's `istio.alpn`, renamed) on outbound HCMs,
 *   which makes the upstream mTLS offer `mesh-http/1.0|1.1`, `mesh-h2` (plus `mesh`) by the downstream protocol;
 * - MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS: an IPv6-only proxy's `virtualOutbound` also
 *   listens on 0.0.0.0 (an `additional_addresses` entry) and its DNS clusters resolve both families;
 * - MESH_DUAL_STACK: a dual-stack proxy's virtual listeners and inbound clusters take both families (see
 *   listener-address.ts);
 * - PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS: see outbound-listeners.ts (headless pod listeners).
 */
import { isIP } from 'node:net';
import type { MeshNetworks, PushContext, Proxy } from '../../../core/index.js';
import { any } from '../grpc/envoy.js';

/** Options of the sidecar listeners; an absent field takes istiod's default ({@link DEFAULT_LISTENER_OPTIONS}). */
export interface SidecarListenerOptions {
  /** PILOT_SIDECAR_USE_REMOTE_ADDRESS (default false). */
  readonly useRemoteAddress?: boolean;
  /** PILOT_HTTP10 (default false). */
  readonly http10?: boolean;
  /** ENABLE_HCM_INTERNAL_NETWORKS (default false). */
  readonly hcmInternalNetworks?: boolean;
  /** PILOT_ENABLE_ALPN_FILTER (default true). */
  readonly alpnFilter?: boolean;
  /** MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS (default false). */
  readonly ipv4OutboundForIpv6?: boolean;
  /** PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS (default true). */
  readonly headlessPodListeners?: boolean;
  /** MESH_DUAL_STACK (default false; istiod's ISTIO_DUAL_STACK). */
  readonly dualStack?: boolean;
}

/** istiod's defaults of the options (the spec's env var defaults). */
export const DEFAULT_LISTENER_OPTIONS: Required<SidecarListenerOptions> = Object.freeze({
  useRemoteAddress: false,
  http10: false,
  hcmInternalNetworks: false,
  alpnFilter: true,
  ipv4OutboundForIpv6: false,
  headlessPodListeners: true,
  dualStack: false,
});

/** The options with istiod's defaults filled in. */
export function resolveListenerOptions(o: SidecarListenerOptions | undefined): Required<SidecarListenerOptions> {
  if (!o) return DEFAULT_LISTENER_OPTIONS;
  const out: Record<string, boolean> = { ...DEFAULT_LISTENER_OPTIONS };
  for (const [k, v] of Object.entries(o)) if (typeof v === 'boolean') out[k] = v;
  return out as unknown as Required<SidecarListenerOptions>;
}

/** Whether the proxy asked for HTTP/1.0 in its own metadata (`HTTP10: "1"`, as istiod's enableHTTP10). */
export function proxyWantsHttp10(proxy: Pick<Proxy, 'metadata'>): boolean {
  return proxy.metadata['HTTP10'] === '1';
}

/** Whether a proxy's HCMs accept HTTP/1.0: PILOT_HTTP10 or the proxy's metadata. */
export function acceptsHttp10(proxy: Pick<Proxy, 'metadata'>, o: Required<SidecarListenerOptions>): boolean {
  return o.http10 || proxyWantsHttp10(proxy);
}

/** The ALPN values http_inspector sets on plaintext HTTP that sniffing HTTP chains match (istiod's plaintextHTTPALPNs). */
export function plaintextHttpAlpn(o: Required<SidecarListenerOptions>): readonly string[] {
  // NOTE: as istiod, without PILOT_HTTP10 an HTTP/1.0 request would only be rejected by the HCM: not matching
  // it lets it pass through the TCP chain.
  return o.http10 ? ['http/1.0', 'http/1.1', 'h2c'] : ['http/1.1', 'h2c'];
}

/** A CIDR range in Envoy's shape. */
export interface CidrRange {
  readonly addressPrefix: string;
  readonly prefixLen: { readonly value: number };
}

function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** `a.b.c.d/n`, `x::y/n` or a bare IP (a /32 or /128) as a CIDR range; undefined when it is none (as istiod's AddrStrToPrefix). */
export function parseCidr(s: string): (CidrRange & { readonly family: 4 | 6 }) | undefined {
  const slash = s.indexOf('/');
  const ip = slash < 0 ? s : s.slice(0, slash);
  const family = isIP(ip);
  if (family !== 4 && family !== 6) return undefined;
  const max = family === 4 ? 32 : 128;
  const bitsText = slash < 0 ? String(max) : s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > max) return undefined;
  return { addressPrefix: canonicalIp(ip), prefixLen: { value: bits }, family };
}

function ipBytes(ip: string, family: 4 | 6): number[] {
  if (family === 4) return ip.split('.').map(Number);
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => [Number.parseInt(g, 16) >> 8, Number.parseInt(g, 16) & 0xff]);
}

/**
 * The HCM `internal_address_config` of the mesh networks (istiod's MeshNetworksToEnvoyInternalAddressConfig):
 * every `fromCidr` endpoint that parses, IPv4 before IPv6, by address then prefix length; undefined when none.
 */
export function internalAddressConfig(networks: MeshNetworks): { cidrRanges: CidrRange[] } | undefined {
  const ranges: (CidrRange & { family: 4 | 6; bytes: number[] })[] = [];
  for (const name of Object.keys(networks.networks).sort()) {
    for (const ep of networks.networks[name]!.endpoints) {
      const r = ep.fromCidr === undefined ? undefined : parseCidr(ep.fromCidr);
      if (r) ranges.push({ ...r, bytes: ipBytes(r.addressPrefix, r.family) });
    }
  }
  if (ranges.length === 0) return undefined;
  const cmp = (a: (typeof ranges)[number], b: (typeof ranges)[number]): number => {
    if (a.family !== b.family) return a.family - b.family;
    for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== b.bytes[i]) return a.bytes[i]! - b.bytes[i]!;
    return a.prefixLen.value - b.prefixLen.value;
  };
  return { cidrRanges: ranges.sort(cmp).map((r) => ({ addressPrefix: r.addressPrefix, prefixLen: { value: r.prefixLen.value } })) };
}

/** The `mesh.alpn` HTTP filter's name and config message (Istio's `istio.alpn`, renamed; proto in xds/protos/mesh-protos.ts). */
export const ALPN_FILTER = { name: 'mesh.alpn', message: 'mesh.envoy.config.filter.http.alpn.v2alpha1.FilterConfig' } as const;

/** The `mesh.alpn` filter: per downstream HTTP version, the ALPN the upstream mesh mTLS offers (istiod's xdsfilters.Alpn). */
export function alpnFilter(): Record<string, unknown> {
  return {
    name: ALPN_FILTER.name,
    typedConfig: any(ALPN_FILTER.message, {
      alpnOverride: [
        { upstreamProtocol: 'HTTP10', alpnOverride: ['mesh-http/1.0', 'mesh'] },
        { upstreamProtocol: 'HTTP11', alpnOverride: ['mesh-http/1.1', 'mesh'] },
        { upstreamProtocol: 'HTTP2', alpnOverride: ['mesh-h2', 'mesh'] },
      ],
    }),
  };
}

/** What the process-wide listener options and the proxy make of one HCM (see listener-options.ts). */
export interface HcmOptions {
  /** `use_remote_address` (outbound with PILOT_SIDECAR_USE_REMOTE_ADDRESS). */
  readonly useRemoteAddress?: boolean;
  /** `http_protocol_options.accept_http_10` (PILOT_HTTP10 or the proxy's metadata HTTP10). */
  readonly acceptHttp10?: boolean;
  /** `internal_address_config` (ENABLE_HCM_INTERNAL_NETWORKS, or with use_remote_address). */
  readonly internalAddressConfig?: Record<string, unknown>;
  /** The `mesh.alpn` filter (outbound, PILOT_ENABLE_ALPN_FILTER). */
  readonly alpnFilter?: boolean;
}

/** The HCM options of a sidecar's outbound (`outbound`) or inbound HCMs, as istiod builds them. */
export function sidecarHcmOptions(ctx: PushContext, proxy: Proxy, o: Required<SidecarListenerOptions>, outbound: boolean): HcmOptions {
  const useRemoteAddress = outbound && o.useRemoteAddress;
  const iac = o.hcmInternalNetworks || useRemoteAddress ? internalAddressConfig(ctx.networks) : undefined;
  return { useRemoteAddress, acceptHttp10: acceptsHttp10(proxy, o), alpnFilter: outbound && o.alpnFilter, ...(iac ? { internalAddressConfig: iac } : {}) };
}

/** The HCM fields the options set (none by default). */
export function hcmFields(h: HcmOptions): Record<string, unknown> {
  return {
    useRemoteAddress: { value: h.useRemoteAddress === true },
    ...(h.acceptHttp10 === true ? { httpProtocolOptions: { acceptHttp_10: true } } : {}),
    ...(h.internalAddressConfig ? { internalAddressConfig: h.internalAddressConfig } : {}),
  };
}
