/**
 * Listeners of a router (gateway) proxy (istiod's buildGatewayListeners): one listener `<bind>_<port>`
 * per merged port (see merged-gateway.ts), bound to the port, traffic direction OUTBOUND:
 * - plain HTTP servers: one filter chain, the gateway HCM reading route configuration `http.<port>`;
 * - terminated HTTPS servers: a filter chain each, matched by SNI (the server's hosts; none for `*`),
 *   with a DownstreamTlsContext whose certificates come over SDS (`kubernetes://<credentialName>`, and
 *   `kubernetes://<credentialName>-cacert` to verify clients for MUTUAL; `default` / `ROOTCA` for
 *   MESH_MUTUAL; `file-cert:` / `file-root:` for file paths, as istiod names them) and the HCM reading
 *   `https.<port>.<portName>.<gateway>.<ns>`;
 * - PASSTHROUGH servers: per VirtualService `tls` route bound to the gateway, a chain matching its SNI
 *   hosts (within the server's) with tcp_proxy to the route's destinations;
 * - AUTO_PASSTHROUGH servers: per visible service port and subset whose host the server admits, a chain
 *   matching SNI `outbound_.<port>_.<subset>_.<host>` and the mesh mTLS ALPN, with tcp_proxy to the
 *   SNI-DNAT cluster of that name (sni-dnat.ts; the same shape as istiod's, checked with diff:istiod);
 * - TCP servers and TLS servers with termination: the first VirtualService `tcp` route bound to the
 *   gateway whose hosts meet the server's and whose match applies (port, gateways).
 * A listener left with no filter chain is not sent (istiod omits it too). TLS listeners read SNI with
 * tls_inspector.
 */
import type { Config, PushContext, Proxy } from '../../../core/index.js';
import type { ServerTLSSettings, VirtualServiceSpec } from '../../../crds/index.js';
import { any } from '../grpc/envoy.js';
import { outboundHcm } from '../sidecar/sidecar-filters.js';
import { qualifiedGateway } from '../sidecar/http-routes.js';
import { ENVOY, provenance } from '../sidecar/sidecar-names.js';
import { tcpSourceIpHash } from '../sidecar/route-hash.js';
import { SERVER_TLS_HTTP_ALPN, serverTlsSocket } from '../sidecar/server-tls.js';
import { tcpProxyTo, tlsListenerFilters } from '../sidecar/tcp-listener-builder.js';
import { type MergedGateway, type RouterPort, type RouterServer } from './merged-gateway.js';
import { intersectHosts, virtualServicesForGateway } from './router-route-builder.js';
import type { Listener } from '../../envoy-types/index.js';
import { serverAdmits, sniDnatTargets } from './sni-dnat.js';

/** The ALPN of a client sidecar's mesh mTLS (istiod's `istio`, `istio-peer-exchange`, `istio-http/*` renamed). */
const AUTO_PASSTHROUGH_ALPN = ['mesh', 'mesh-peer-exchange', 'mesh-http/1.0', 'mesh-http/1.1', 'mesh-h2'] as const;

type Obj = Record<string, unknown>;
type L4Match = { port?: number; gateways?: string[]; sniHosts?: string[] };

/** The gateway HCM: the sidecar's outbound HCM with istiod's gateway settings (the remote address is the client's; client certs sanitized). */
function gatewayHcm(statPrefix: string, routeName: string): Obj {
  const hcm = outboundHcm(statPrefix, routeName);
  const tc = hcm['typedConfig'] as Obj;
  return { ...hcm, typedConfig: { ...tc, useRemoteAddress: { value: true }, forwardClientCertDetails: 'SANITIZE_SET' } };
}

function l4Applies(m: L4Match, s: RouterServer, vsNs: string): boolean {
  return (m.port === undefined || m.port === s.server.port.number) && (m.gateways === undefined || m.gateways.length === 0 || m.gateways.some((g) => qualifiedGateway(g, vsNs) === s.gatewayName));
}

/** The chain of a TCP server (or a TLS server terminated to TCP): the first applicable `tcp` route of a bound VirtualService. */
function tcpServerChain(ctx: PushContext, proxy: Proxy, s: RouterServer, listenerName: string): Obj | undefined {
  for (const vs of virtualServicesForGateway(ctx, s.gatewayName, proxy.namespace)) {
    if (intersectHosts(s, vs, ctx.domain).length === 0) continue;
    for (const r of (vs.spec as unknown as VirtualServiceSpec).tcp ?? []) {
      const matches: L4Match[] = r.match && r.match.length > 0 ? r.match : [{}];
      if (!matches.some((m) => l4Applies(m, s, vs.metadata.namespace))) continue;
      const filter = tcpProxyTo(ctx, proxy, vs, r.route ?? [], s.server.port.number, listenerName);
      if (!filter) continue;
      return withMeta({ name: `${listenerName}-tcp-${s.gatewayName}-${s.index}`, filters: [filter] }, [s.gateway, vs]);
    }
  }
  return undefined;
}

/** The chains of a PASSTHROUGH server: one per applicable `tls` route of a bound VirtualService, SNI names not yet taken on the port. */
function passthroughChains(ctx: PushContext, proxy: Proxy, s: RouterServer, listenerName: string, taken: Set<string>): Obj[] {
  const chains: Obj[] = [];
  for (const vs of virtualServicesForGateway(ctx, s.gatewayName, proxy.namespace)) {
    const shared = new Set(intersectHosts(s, vs, ctx.domain));
    if (shared.size === 0) continue;
    for (const [i, r] of ((vs.spec as unknown as VirtualServiceSpec).tls ?? []).entries()) {
      const sni = [...new Set(r.match.filter((m) => l4Applies(m, s, vs.metadata.namespace)).flatMap((m) => m.sniHosts ?? []))]
        .filter((h) => [...shared].some((x) => x === h || (x.startsWith('*') && h.endsWith(x.slice(1))) || (h.startsWith('*') && x.endsWith(h.slice(1)))))
        .filter((h) => !taken.has(h));
      if (sni.length === 0) continue;
      const filter = tcpProxyTo(ctx, proxy, vs, r.route ?? [], s.server.port.number, listenerName);
      if (!filter) continue;
      for (const h of sni) taken.add(h);
      chains.push(withMeta({ name: `${listenerName}-passthrough-${vs.metadata.namespace}/${vs.metadata.name}-${i}`, filterChainMatch: { serverNames: sni }, filters: [filter] }, [s.gateway, vs]));
    }
  }
  return chains;
}

/**
 * The chains of an AUTO_PASSTHROUGH server, as istiod's: one per SNI-DNAT cluster (sni-dnat.ts), matching
 * its name as SNI and the mesh mTLS ALPN a client sidecar offers, with tcp_proxy to that cluster (hashed on the
 * source IP when the service's rule says so for the subset, as istiod's buildOutboundNetworkFiltersWithSingleDestination).
 */
function autoPassthroughChains(ctx: PushContext, proxy: Proxy, s: RouterServer, _listenerName: string, taken: Set<string>): Obj[] {
  const chains: Obj[] = [];
  for (const t of sniDnatTargets(ctx, proxy, (svc) => serverAdmits(s, svc))) {
    if (taken.has(t.name)) continue;
    taken.add(t.name);
    chains.push(
      withMeta(
        {
          name: t.name,
          filterChainMatch: { serverNames: [t.name], applicationProtocols: [...AUTO_PASSTHROUGH_ALPN] },
          filters: [{ name: 'envoy.filters.network.tcp_proxy', typedConfig: any(ENVOY.tcpProxy, { statPrefix: t.name, cluster: t.name, ...tcpSourceIpHash(ctx, proxy, t.svc.hostname, t.subset) }) }],
        },
        [s.gateway],
      ),
    );
  }
  return chains;
}

/** `o` with provenance metadata naming `configs` (none when there are none). */
function withMeta(o: Obj, configs: readonly (Config | undefined)[]): Obj {
  const meta = provenance(configs);
  return meta ? { ...o, metadata: meta } : o;
}

function serverMatch(s: RouterServer): Obj {
  return s.sniHosts.length > 0 ? { serverNames: [...s.sniHosts] } : {};
}

/** The listener of one merged port, or undefined when none of its servers yields a filter chain. */
export function buildRouterListener(ctx: PushContext, proxy: Proxy, p: RouterPort): Listener | undefined {
  const name = `${p.bind}_${p.port}`;
  const statPrefix = `outbound_${name}`;
  const chains: Obj[] = [];
  if (p.mode === 'http') {
    const routeName = p.servers[0]!.routeName!;
    chains.push(withMeta({ name: `${name}-http`, filters: [gatewayHcm(statPrefix, routeName)] }, [...new Set(p.servers.map((s) => s.gateway))]));
  } else {
    const taken = new Set<string>();
    for (const s of p.servers) {
      const tls = s.server.tls ?? ({ mode: 'SIMPLE' } as ServerTLSSettings);
      if (s.kind === 'https') {
        chains.push(withMeta({ name: s.routeName!, filterChainMatch: serverMatch(s), transportSocket: serverTlsSocket(tls, SERVER_TLS_HTTP_ALPN), filters: [gatewayHcm(s.server.name || statPrefix, s.routeName!)] }, [s.gateway]));
      } else if (s.kind === 'passthrough') {
        chains.push(...passthroughChains(ctx, proxy, s, name, taken));
      } else if (s.kind === 'auto-passthrough') {
        chains.push(...autoPassthroughChains(ctx, proxy, s, name, taken));
      } else {
        const c = tcpServerChain(ctx, proxy, s, name);
        if (!c) continue;
        chains.push(s.kind === 'tls-terminated' ? { ...c, filterChainMatch: serverMatch(s), transportSocket: serverTlsSocket(tls, []) } : c);
      }
    }
  }
  if (chains.length === 0) return undefined;
  return {
    name,
    address: { socketAddress: { address: p.bind, portValue: p.port } },
    trafficDirection: 'OUTBOUND',
    ...(p.mode === 'tls' ? { listenerFilters: tlsListenerFilters() } : {}),
    filterChains: chains,
  };
}

/** Every listener of a router, sorted by name. */
export function buildRouterListeners(ctx: PushContext, proxy: Proxy, merged: MergedGateway): Listener[] {
  const out: Obj[] = [];
  for (const p of merged.ports) {
    const l = buildRouterListener(ctx, proxy, p);
    if (l) out.push(l);
  }
  return out.sort((a, b) => (String(a['name']) < String(b['name']) ? -1 : 1));
}
