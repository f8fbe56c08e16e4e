/**
 * mergeGateways: the Gateway servers a router (gateway) proxy serves, merged per port as istiod's
 * MergeGateways does. A Gateway applies to a router when its `selector` matches the proxy's labels (any
 * namespace: istiod's default without PILOT_SCOPE_GATEWAY_TO_NAMESPACE). A server's port is translated
 * to the target port when the proxy is an endpoint of a service with that port (a Service port 80 ->
 * container port 8080 gives listener `0.0.0.0_8080`). Per port, either plain HTTP servers (sharing one
 * route configuration `http.<port>`) or TLS-wrapped servers (HTTPS, TLS: one filter chain each, told
 * apart by SNI) or one TCP server; a server that conflicts with what its port already holds is dropped
 * and reported, as istiod drops it.
 */
import { labelsMatch, type Config, type EndpointView, type PushContext, type Proxy } from '../../../core/index.js';
import type { GatewayServer, GatewaySpec } from '../../../crds/index.js';
import { proxyInstances } from '../sidecar/inbound-clusters.js';

/** How a server is served: plain HTTP (shared HCM), HTTPS with termination (HCM + TLS), TLS/SNI passthrough, TLS terminated to TCP routes, or plain TCP. */
export type ServerKind = 'http' | 'https' | 'passthrough' | 'auto-passthrough' | 'tls-terminated' | 'tcp';

/** One Gateway server as a router serves it. */
export interface RouterServer {
  readonly gateway: Config;
  /** `namespace/name` of the Gateway (how VirtualService `gateways` name it). */
  readonly gatewayName: string;
  readonly server: GatewayServer;
  /** The server's index in the Gateway (for names). */
  readonly index: number;
  readonly kind: ServerKind;
  /** The route configuration of HTTP and terminated HTTPS servers. */
  readonly routeName?: string;
  /** SNI names of TLS-wrapped servers (hosts without namespace; empty for `*`). */
  readonly sniHosts: readonly string[];
}

/** The servers of one listener port. */
export interface RouterPort {
  /** The port the proxy listens on (the server's port, or its service's target port). */
  readonly port: number;
  readonly bind: string;
  /** `http` (plain HTTP servers), `tls` (SNI-told-apart servers) or `tcp` (one TCP server). */
  readonly mode: 'http' | 'tls' | 'tcp';
  readonly servers: readonly RouterServer[];
}

/** A server left out and why (a conflict on its port). */
export interface RejectedServer {
  readonly gatewayName: string;
  readonly index: number;
  readonly reason: string;
}

/** The Gateways that select a proxy, their servers per port, and the servers left out. */
export interface MergedGateway {
  readonly gateways: readonly Config[];
  readonly gatewayNames: ReadonlySet<string>;
  readonly ports: readonly RouterPort[];
  readonly rejected: readonly RejectedServer[];
  /** Route configuration name -> the servers it serves. */
  readonly serversByRoute: ReadonlyMap<string, readonly RouterServer[]>;
}

const HTTP_PROTOCOLS = new Set(['HTTP', 'HTTP2', 'GRPC', 'GRPC-WEB']);

/** The kind of a server by its port protocol and TLS mode (istiod's gateway.IsHTTPSServerWithTLSTermination and friends). */
export function serverKind(s: GatewayServer): ServerKind {
  const protocol = s.port.protocol.toUpperCase();
  const mode = s.tls?.mode ?? 'SIMPLE';
  if (HTTP_PROTOCOLS.has(protocol)) return 'http';
  if (protocol === 'HTTPS' || protocol === 'TLS') {
    if (mode === 'PASSTHROUGH') return 'passthrough';
    if (mode === 'AUTO_PASSTHROUGH') return 'auto-passthrough';
    return protocol === 'HTTPS' ? 'https' : 'tls-terminated';
  }
  return 'tcp';
}

/** A server host `ns/host` split; a host without a namespace part means any namespace (`*`). */
export function splitServerHost(h: string): { namespace: string; host: string } {
  const i = h.indexOf('/');
  return i < 0 ? { namespace: '*', host: h } : { namespace: h.slice(0, i), host: h.slice(i + 1) };
}

function byAge(a: Config, b: Config): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = `${a.metadata.namespace}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The Gateways whose selector matches the proxy's labels, oldest first (an empty selector selects nothing). */
export function gatewaysFor(ctx: PushContext, proxy: Proxy): Config[] {
  return ctx.configs
    .byIndex('kind', 'Gateway')
    .filter((g) => {
      const sel = (g.spec as GatewaySpec).selector;
      return sel !== undefined && Object.keys(sel).length > 0 && labelsMatch(sel, proxy.labels);
    })
    .sort(byAge);
}

/** The route configuration name of a server (istiod's gatewayRDSRouteName). */
function routeNameOf(kind: ServerKind, s: GatewayServer, listenerPort: number, gw: Config): string | undefined {
  if (kind === 'http') return `http.${listenerPort}`;
  if (kind === 'https') return `https.${s.port.number}.${s.port.name}.${gw.metadata.name}.${gw.metadata.namespace}`;
  return undefined;
}

const memo = new WeakMap<PushContext, WeakMap<EndpointView, Map<string, MergedGateway>>>();

/** See the file comment; memoized per PushContext, endpoint view (port translation reads it), proxy labels and IPs. */
export function mergeGateways(ctx: PushContext, proxy: Proxy, endpoints: EndpointView): MergedGateway {
  let byEndpoints = memo.get(ctx);
  if (!byEndpoints) memo.set(ctx, (byEndpoints = new WeakMap()));
  let perCtx = byEndpoints.get(endpoints);
  if (!perCtx) byEndpoints.set(endpoints, (perCtx = new Map()));
  const key = `${JSON.stringify(Object.entries(proxy.labels).sort())}\n${proxy.ipAddresses.join(',')}`;
  const known = perCtx.get(key);
  if (known) return known;
  const targets = new Map<number, number>();
  for (const i of proxyInstances(ctx, proxy, endpoints)) if (!targets.has(i.servicePort)) targets.set(i.servicePort, i.port);
  const gateways = gatewaysFor(ctx, proxy);
  const ports = new Map<string, { port: number; bind: string; mode: RouterPort['mode']; servers: RouterServer[]; sni: Set<string> }>();
  const rejected: RejectedServer[] = [];
  const serversByRoute = new Map<string, RouterServer[]>();
  for (const gw of gateways) {
    const gatewayName = `${gw.metadata.namespace}/${gw.metadata.name}`;
    for (const [index, server] of ((gw.spec as GatewaySpec).servers ?? []).entries()) {
      const kind = serverKind(server);
      const port = targets.get(server.port.number) ?? server.port.number;
      const bind = server.bind ?? '0.0.0.0';
      const mode: RouterPort['mode'] = kind === 'http' ? 'http' : kind === 'tcp' ? 'tcp' : 'tls';
      const sniHosts = mode === 'tls' ? [...new Set(server.hosts.map((h) => splitServerHost(h).host))].filter((h) => h !== '*') : [];
      const pk = `${bind}_${port}`;
      const have = ports.get(pk);
      if (have && have.mode !== mode) {
        rejected.push({ gatewayName, index, reason: `port ${port} already serves ${have.mode.toUpperCase()} servers; a ${server.port.protocol} server cannot share it` });
        continue;
      }
      if (have && mode === 'tcp') {
        rejected.push({ gatewayName, index, reason: `port ${port} already serves a TCP server` });
        continue;
      }
      if (have && mode === 'tls') {
        // NOTE: as istiod, a TLS server whose SNI names are all taken on the port (or that catches every
        // name while the port already has servers) can never be selected: drop it.
        const clash = sniHosts.length === 0 ? have.servers.length > 0 && have.sni.has('*') : sniHosts.every((h) => have.sni.has(h));
        if (clash) {
          rejected.push({ gatewayName, index, reason: `port ${port}: another server already serves SNI ${sniHosts.length === 0 ? '*' : sniHosts.join(', ')}` });
          continue;
        }
      }
      const routeName = routeNameOf(kind, server, port, gw);
      const rs: RouterServer = { gateway: gw, gatewayName, server, index, kind, sniHosts, ...(routeName ? { routeName } : {}) };
      const entry = have ?? { port, bind, mode, servers: [], sni: new Set<string>() };
      entry.servers.push(rs);
      for (const h of sniHosts.length > 0 ? sniHosts : ['*']) entry.sni.add(h);
      ports.set(pk, entry);
      if (routeName) serversByRoute.set(routeName, [...(serversByRoute.get(routeName) ?? []), rs]);
    }
  }
  const merged: MergedGateway = {
    gateways,
    gatewayNames: new Set(gateways.map((g) => `${g.metadata.namespace}/${g.metadata.name}`)),
    ports: [...ports.values()].map(({ port, bind, mode, servers }) => ({ port, bind, mode, servers })).sort((a, b) => a.port - b.port || (a.bind < b.bind ? -1 : 1)),
    rejected,
    serversByRoute,
  };
  perCtx.set(key, merged);
  return merged;
}
