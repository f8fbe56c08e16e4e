/**
 * Outbound listeners of a dataplane sidecar (Istio's listener.go / listener_builder.go; every listener of a
 * sidecar: listener-builder.ts):
 * - `virtualOutbound` on 0.0.0.0:15001 (use_original_dst): traffic to no known listener goes to
 *   PassthroughCluster (ALLOW_ANY) or BlackHoleCluster (REGISTRY_ONLY);
 * - outbound listeners per service port (bind_to_port false): HTTP ports share `0.0.0.0_<port>` (HCM
 *   with RDS route configuration `<port>`); TCP and TLS ports: see tcp-listener-builder.ts; ports of
 *   unknown protocol are sniffed (Istio's protocol sniffing): `<vip>_<port>` (or `0.0.0.0_<port>`
 *   without a VIP) with tls_inspector and http_inspector, a chain for the HTTP ALPNs http_inspector
 *   detects (HCM, RDS `<host>:<port>` with a VIP as istiod, else `<port>`) and the TCP chain for
 *   everything else. With Sidecar egress listeners that have a port, a `bind` or
 *   `captureMode: NONE` (see outboundEntries), each such listener's services get listeners on its port at its
 *   bind first (NONE binds the port: the app talks to the proxy at bind:port, so virtualOutbound is not involved
 *   and stays as it is; an HTTP listener on a specific bind has no ALPN match), then the catch-all's.
 * A TCP listener whose `<vip>_<port>` another TCP service already holds is reported to an optional sink (see
 * conflict-recorder.ts).
 */
import { orchServiceOf, type EndpointView, type PushContext, type Proxy, type Service, type ServicePort } from '../../../core/index.js';
import { any } from '../grpc/envoy.js';
import { sidecarScope } from './sidecar-scope.js';
import { interceptionNone, outboundEntries } from './outbound-entries.js';
import { isTlsPort, tcpChain, tlsChains, tlsListenerFilters, type NetworkFilterOptions } from './tcp-listener-builder.js';
import { isHttpPort, isSniffedPort } from './cluster-builder.js';
import type { ConflictSink } from './conflict-recorder.js';
import { sniffedRouteConfigurationName } from './route-builder.js';
import { isUnixBind, unixClusterPort, unixEgressListener, unixListenerName } from './unix-egress.js';
import { BLACKHOLE_CLUSTER, ENVOY, PASSTHROUGH_CLUSTER, provenance, VIRTUAL_OUTBOUND, VIRTUAL_OUTBOUND_PORT } from './sidecar-names.js';
import type { Listener } from '../../envoy-types/index.js';
import { additionalAddresses, ipMode, socketAddress, wildcards, type IpMode } from './listener-address.js';
import { headlessPodBinds, vip } from './headless-pod-listeners.js';
import { plaintextHttpAlpn, resolveListenerOptions, sidecarHcmOptions, type HcmOptions, type SidecarListenerOptions } from './listener-options.js';
import { outboundHcm, sniffingListenerFilters, tcpProxy } from './sidecar-filters.js';

const address = socketAddress;

/** istiod's `PassthroughFilterChain`: tcp_proxy to PassthroughCluster (ALLOW_ANY) or BlackHoleCluster (REGISTRY_ONLY). */
export function passthroughFilterChain(mode: 'ALLOW_ANY' | 'REGISTRY_ONLY'): Record<string, unknown> {
  return { name: 'PassthroughFilterChain', filters: [tcpProxy(mode === 'ALLOW_ANY' ? PASSTHROUGH_CLUSTER : BLACKHOLE_CLUSTER)] };
}

/**
 * The addresses `virtualOutbound` binds, the primary first (istiod's buildVirtualOutboundListener): the
 * proxy's first wildcard (`::` for an IPv6-only proxy); a dual-stack proxy adds `::` with MESH_DUAL_STACK;
 * an IPv6-only one adds 0.0.0.0 with MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS (EKS-style IPv6
 * clusters NAT outbound IPv4).
 */
export function virtualOutboundBinds(proxy: Proxy, listener: SidecarListenerOptions | undefined): readonly string[] {
  const o = resolveListenerOptions(listener);
  const mode = ipMode(proxy);
  if (mode === 'Dual' && o.dualStack) return wildcards(mode);
  if (mode === 'IPv6' && o.ipv4OutboundForIpv6) return [...wildcards('IPv6'), ...wildcards('IPv4')];
  return wildcards(mode).slice(0, 1);
}

/**
 * `virtualOutbound`: original destination, the catch-all chain per outboundTrafficPolicy (the Sidecar's, else
 * the mesh's), on the addresses of virtualOutboundBinds.
 */
export function buildVirtualOutbound(ctx: PushContext, proxy: Proxy, listener?: SidecarListenerOptions): Listener {
  const scope = sidecarScope(ctx, proxy);
  const allowAny = scope.outboundMode === 'ALLOW_ANY';
  const meta = provenance([scope.sidecar]);
  const [bind, ...extra] = virtualOutboundBinds(proxy, listener);
  return {
    ...(meta ? { metadata: meta } : {}),
    name: VIRTUAL_OUTBOUND,
    address: address(bind!, VIRTUAL_OUTBOUND_PORT),
    ...additionalAddresses(extra, VIRTUAL_OUTBOUND_PORT),
    useOriginalDst: { value: true },
    trafficDirection: 'OUTBOUND',
    filterChains: [
      allowAny
        ? { name: 'virtualOutbound-catchall-tcp', filters: [tcpProxy(PASSTHROUGH_CLUSTER)] }
        : { name: 'virtualOutbound-blackhole', filters: [tcpProxy(BLACKHOLE_CLUSTER)] },
    ],
  };
}

/**
 * Where a TCP, TLS or sniffed port of a service without a VIP listens (istiod's buildSidecarOutboundListener):
 * `0.0.0.0`, but for a ServiceEntry `::` on an IPv6-only proxy and `0.0.0.0` plus `::` on a dual-stack one
 * (istiod's override applies to ServiceEntries only: an orchestrator Service without a VIP stays on 0.0.0.0).
 */
function noVipBinds(svc: Service, mode: IpMode): readonly string[] {
  return orchServiceOf(svc) ? wildcards('IPv4') : wildcards(mode);
}

/**
 * Outbound service listeners: `0.0.0.0_<port>` per port with an HTTP service (RDS `<port>`),
 * `<vip>_<port>` per TCP service port with a VIP, and SNI-routed listeners for TLS ports (services on
 * one port share it). A port whose listener name is already taken is dropped (first by host name wins).
 */
export function buildOutboundListeners(ctx: PushContext, proxy: Proxy, onConflict?: ConflictSink, opts: OutboundListenerOptions = {}): Listener[] {
  const byName = new Map<string, Record<string, unknown>>();
  const kinds = new Map<string, 'http' | 'sniffed' | 'tls' | 'tcp'>();
  const scope = sidecarScope(ctx, proxy);
  const fallthrough = passthroughFilterChain(scope.outboundMode);
  const o = resolveListenerOptions(opts.listener);
  const hcm = sidecarHcmOptions(ctx, proxy, o, true);
  const httpAlpn = plaintextHttpAlpn(o);
  const mode = ipMode(proxy);
  // NOTE: as istiod (buildListenerFromEntry), HTTP ports bind every wildcard of the proxy, the second family
  // of a dual-stack proxy as an additional address (not gated by MESH_DUAL_STACK).
  const [wild, ...wildExtra] = wildcards(mode);
  for (const { svc, p, bind, bindToPort, locked } of outboundEntries(scope, byName, interceptionNone(proxy))) {
    // NOTE: as istiod, a listener an egress listener with a port built is not joined by the catch-all's services.
    const taken = (name: string): boolean => locked?.has(name) === true;
    // NOTE: a bound egress listener (captureMode NONE) binds its port: no `bindToPort: false`.
    const put = (name: string, l: Record<string, unknown>): void => {
      if (bindToPort) delete l['bindToPort'];
      byName.set(name, l);
    };
    if (bind !== undefined && isUnixBind(bind)) {
      // NOTE: one pipe listener per socket (unix-egress.ts): HTTP through RDS `unix://<path>`, else the first service's tcp_proxy.
      const name = unixListenerName(bind);
      const had = kinds.get(name);
      if (had === 'tcp' && !isHttpPort(p)) onConflict?.('pilot_conflict_outbound_listener_tcp_over_current_tcp', `${svc.hostname}:${p.port}`);
      if (had !== undefined || taken(name)) continue;
      kinds.set(name, isHttpPort(p) ? 'http' : 'tcp');
      const chain = isHttpPort(p) ? { name: `${name}-http`, filters: [outboundHcm(`outbound_${name}`, bind, hcm)] } : tcpChain(ctx, proxy, svc, unixClusterPort(svc), name, opts);
      put(name, unixEgressListener(bind, chain));
      continue;
    }
    const pods = bind === undefined && !isHttpPort(p) && o.headlessPodListeners && opts.endpoints ? headlessPodBinds(ctx, svc, p, opts.endpoints) : undefined;
    if (pods) {
      for (const ip of pods) addPodListener(ctx, proxy, svc, p, ip, { byName, kinds, hcm, httpAlpn, onConflict, fallthrough, filters: opts });
      continue;
    }
    if (isHttpPort(p)) {
      const at = bind ?? wild!;
      const name = `${at}_${p.port}`;
      if (taken(name) || byName.has(name)) continue;
      kinds.set(name, 'http');
      // NOTE: as istiod, on a specific bind the HCM takes every connection (no ALPN match, no fallthrough).
      if (at !== '0.0.0.0' && at !== '::') {
        put(name, { name, address: address(at, p.port), bindToPort: { value: false }, trafficDirection: 'OUTBOUND', filterChains: [{ name: `${name}-http`, filters: [outboundHcm(`outbound_${name}`, String(p.port), hcm)] }] });
        continue;
      }
      // NOTE: as istiod, http_inspector picks the HTTP chain; anything else on the port (raw TCP or TLS
      // to an address no service owns) falls through to the outbound traffic policy's cluster.
      put(name, {
        name,
        address: address(at, p.port),
        ...(bind === undefined ? additionalAddresses(wildExtra, p.port) : {}),
        bindToPort: { value: false },
        trafficDirection: 'OUTBOUND',
        listenerFilters: [{ name: 'envoy.filters.listener.http_inspector', typedConfig: any(ENVOY.httpInspector, {}) }],
        listenerFiltersTimeout: { seconds: 0, nanos: 0 },
        continueOnListenerFiltersTimeout: true,
        filterChains: [
          {
            name: `${name}-http`,
            filterChainMatch: { transportProtocol: 'raw_buffer', applicationProtocols: [...httpAlpn] },
            filters: [outboundHcm(`outbound_${name}`, String(p.port), hcm)],
          },
        ],
        defaultFilterChain: fallthrough,
      });
      continue;
    }
    const ip = bind ?? vip(svc);
    // NOTE: without a VIP (or an egress bind), the proxy's wildcards (listener-address.ts), the second as an additional address.
    const [unbound, ...unboundExtra] = noVipBinds(svc, mode);
    const extra = ip ? {} : additionalAddresses(unboundExtra, p.port);
    if (isSniffedPort(p)) {
      const name = `${ip ?? unbound!}_${p.port}`;
      if (taken(name) || byName.has(name)) continue;
      kinds.set(name, 'sniffed');
      put(name, { ...sniffedListener(ctx, proxy, svc, p.port, ip === '0.0.0.0' ? undefined : ip, hcm, httpAlpn, opts, unbound), ...extra });
      continue;
    }
    if (isTlsPort(p)) {
      // NOTE: SNI routing: services on one TLS port share the listener, one chain per SNI.
      const name = `${ip ?? unbound!}_${p.port}`;
      if (taken(name) || (byName.has(name) && kinds.get(name) !== 'tls')) continue; // an HTTP or TCP listener holds the port
      kinds.set(name, 'tls');
      // NOTE: as istiod, a TLS connection with an SNI no chain names follows the outbound traffic policy.
      const l = byName.get(name) ?? { name, address: address(ip ?? unbound!, p.port), ...extra, bindToPort: { value: false }, trafficDirection: 'OUTBOUND', listenerFilters: tlsListenerFilters(), filterChains: [], defaultFilterChain: fallthrough };
      const had = new Set((l['filterChains'] as Record<string, unknown>[]).flatMap((c) => ((c['filterChainMatch'] as { serverNames?: string[] } | undefined)?.serverNames ?? [])));
      const chains = tlsChains(ctx, proxy, svc, p.port).filter((c) => !((c['filterChainMatch'] as { serverNames: string[] }).serverNames.some((n) => had.has(n))));
      (l['filterChains'] as Record<string, unknown>[]).push(...chains);
      put(name, l);
      continue;
    }
    // NOTE: as istiod, a headless TCP service (resolution NONE, no VIP) gets `0.0.0.0_<port>` to its
    // ORIGINAL_DST cluster, so REGISTRY_ONLY does not black-hole it; other services need a VIP.
    if (!ip && svc.resolution !== 'NONE') continue;
    const at = ip ?? unbound!;
    const name = `${at}_${p.port}`;
    if (taken(name)) continue;
    if (byName.has(name)) {
      // NOTE: as istiod, the first service (by host) keeps the listener; the other is counted.
      if (kinds.get(name) === 'tcp') onConflict?.('pilot_conflict_outbound_listener_tcp_over_current_tcp', `${svc.hostname}:${p.port}`);
      continue;
    }
    kinds.set(name, 'tcp');
    put(name, { ...tcpListener(ctx, proxy, svc, p.port, at, opts), ...extra });
  }
  return [...byName.values()];
}

/** How outbound listeners are built: the listener options and, for headless pod listeners, the endpoints. */
export interface OutboundListenerOptions extends NetworkFilterOptions {
  readonly listener?: SidecarListenerOptions;
  /** The snapshot's endpoints; without them headless services keep `0.0.0.0_<port>`. */
  readonly endpoints?: EndpointView;
}

/** A TCP service port's listener `<bind>_<port>`. */
function tcpListener(ctx: PushContext, proxy: Proxy, svc: Service, port: number, bind: string, filters: NetworkFilterOptions): Record<string, unknown> {
  const name = `${bind}_${port}`;
  return { name, address: address(bind, port), bindToPort: { value: false }, trafficDirection: 'OUTBOUND', filterChains: [tcpChain(ctx, proxy, svc, port, name, filters)] };
}

/**
 * A sniffed port's listener `<ip>_<port>` (or `0.0.0.0_<port>`): the HTTP chain (RDS `<host>:<port>` on a
 * specific address, as istiod, else `<port>`) and the TCP chain.
 */
function sniffedListener(ctx: PushContext, proxy: Proxy, svc: Service, port: number, ip: string | undefined, hcm: HcmOptions, httpAlpn: readonly string[], filters: NetworkFilterOptions, unbound = '0.0.0.0'): Record<string, unknown> {
  const name = `${ip ?? unbound}_${port}`;
  return {
    name,
    address: address(ip ?? unbound, port),
    bindToPort: { value: false },
    trafficDirection: 'OUTBOUND',
    listenerFilters: sniffingListenerFilters(),
    filterChains: [
      { name: `${name}-http`, filterChainMatch: { applicationProtocols: [...httpAlpn] }, filters: [outboundHcm(`outbound_${name}`, ip ? sniffedRouteConfigurationName(svc.hostname, port) : String(port), hcm)] },
      tcpChain(ctx, proxy, svc, port, name, filters),
    ],
  };
}

/** The shared state of one outbound build (see buildOutboundListeners). */
interface OutboundBuild {
  readonly byName: Map<string, Record<string, unknown>>;
  readonly kinds: Map<string, 'http' | 'sniffed' | 'tls' | 'tcp'>;
  readonly hcm: HcmOptions;
  readonly httpAlpn: readonly string[];
  readonly onConflict: ConflictSink | undefined;
  readonly fallthrough: Record<string, unknown>;
  readonly filters: NetworkFilterOptions;
}

/**
 * A headless service port's listener on one pod address, `<pod ip>_<port>`, TCP, TLS or sniffed; the first
 * by host wins.
 */
function addPodListener(ctx: PushContext, proxy: Proxy, svc: Service, p: ServicePort, ip: string, b: OutboundBuild): void {
  const name = `${ip}_${p.port}`;
  const kind = isSniffedPort(p) ? 'sniffed' : isTlsPort(p) ? 'tls' : 'tcp';
  if (b.byName.has(name)) {
    if (kind === 'tcp' && b.kinds.get(name) === 'tcp') b.onConflict?.('pilot_conflict_outbound_listener_tcp_over_current_tcp', `${svc.hostname}:${p.port}`);
    return;
  }
  b.kinds.set(name, kind);
  if (kind === 'sniffed') b.byName.set(name, sniffedListener(ctx, proxy, svc, p.port, ip, b.hcm, b.httpAlpn, b.filters));
  else if (kind === 'tcp') b.byName.set(name, tcpListener(ctx, proxy, svc, p.port, ip, b.filters));
  else b.byName.set(name, podTlsListener(ctx, proxy, svc, p.port, ip, b.fallthrough));
}

/**
 * A TLS port's listener on one pod address (istiod's buildSidecarOutboundTLSFilterChainOpts on a bound
 * address): the pod is the destination, so without an applicable VirtualService `tls` route its one chain
 * matches any SNI; with one, the route chains (by SNI) and, for any other SNI, the outbound traffic policy.
 */
function podTlsListener(ctx: PushContext, proxy: Proxy, svc: Service, port: number, ip: string, fallthrough: Record<string, unknown>): Record<string, unknown> {
  const name = `${ip}_${port}`;
  const own = `${svc.hostname}:${port}-tls`;
  const chains = tlsChains(ctx, proxy, svc, port);
  const routed = chains.filter((c) => c['name'] !== own);
  const base = { name, address: address(ip, port), bindToPort: { value: false }, trafficDirection: 'OUTBOUND' };
  if (routed.length > 0) return { ...base, listenerFilters: tlsListenerFilters(), filterChains: routed, defaultFilterChain: fallthrough };
  const { filterChainMatch: _sni, ...anySni } = chains.find((c) => c['name'] === own)!;
  return { ...base, filterChains: [anySni] };
}
