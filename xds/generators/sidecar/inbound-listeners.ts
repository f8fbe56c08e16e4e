/**
 * Inbound listeners of a dataplane sidecar (Istio's listener.go / listener_builder.go; every listener of a
 * sidecar: listener-builder.ts):
 * - `virtualInbound` on 0.0.0.0:15006 (original_dst, tls_inspector, http_inspector): per inbound port (the
 *   proxy's service ports, or its Sidecar's `ingress` listeners) a mesh mTLS chain and/or a plaintext chain
 *   by the PeerAuthentication mode, or, for Sidecar `ingress[].tls` on a port whose mode is DISABLE (with
 *   ENABLE_TLS_ON_SIDECAR_INGRESS), one chain terminating the user's TLS; then passthrough chains;
 * - per Sidecar ingress port with `captureMode: NONE`, its chains on a listener of its own bound at
 *   `<bind>:<port>` instead (bound-inbound-listener.ts).
 * A port of unknown protocol is sniffed as outbound ones are (outbound-listeners.ts): per mode an HTTP chain for
 * the HTTP ALPNs before the TCP chain.
 */
import type { EndpointView, MtlsMode, PushContext, Proxy } from '../../../core/index.js';
import { any } from '../grpc/envoy.js';
import { protocolFilters, type NetworkFilterOptions } from './tcp-listener-builder.js';
import { isHttpPort, isSniffedPort } from './cluster-builder.js';
import { proxyInboundPorts } from './inbound-clusters.js';
import { inboundChainPort, virtualInboundInputs, type ChainPort, type InboundChainPort, type VirtualInboundInputs } from './virtual-inbound-inputs.js';
import { inboundMtlsParams, SERVER_TLS_HTTP_ALPN, serverTlsSocket } from './server-tls.js';
import { boundInboundListener, canBindIngressPort, inboundBindAddress } from './bound-inbound-listener.js';
import type { ConflictSink } from './conflict-recorder.js';
import { ENVOY, INBOUND_PASSTHROUGH_CLUSTER, inboundClusterName, MESH_ALPN, SDS_SECRET, sdsSecret, VIRTUAL_INBOUND, VIRTUAL_INBOUND_PORT } from './sidecar-names.js';
import type { Listener } from '../../envoy-types/index.js';
import { additionalAddresses, ipMode, socketAddress, wildcards } from './listener-address.js';
import { hcmFields, plaintextHttpAlpn, resolveListenerOptions, sidecarHcmOptions, type HcmOptions, type SidecarListenerOptions } from './listener-options.js';
import { httpFilters, MESH_HTTP_ALPN, tcpProxy } from './sidecar-filters.js';

/** The inbound HCM with its inline route configuration `inbound|<port>||` to the inbound cluster. */
function inboundHcm(p: ChainPort, h: HcmOptions, bind: string): Record<string, unknown> {
  const cluster = inboundClusterName(p.targetPort);
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typedConfig: any(ENVOY.hcm, {
      statPrefix: `inbound_${bind}_${p.targetPort}`,
      routeConfig: {
        name: cluster,
        virtualHosts: [
          {
            name: `inbound|http|${p.servicePort}`,
            domains: ['*'],
            routes: [{ name: 'default', match: { prefix: '/' }, route: { cluster, timeout: { seconds: 0, nanos: 0 }, maxStreamDuration: { maxStreamDuration: { seconds: 0, nanos: 0 }, grpcTimeoutHeaderMax: { seconds: 0, nanos: 0 } } }, decorator: { operation: `${cluster}/*` } }],
          },
        ],
        validateClusters: { value: false },
      },
      httpFilters: httpFilters(),
      ...hcmFields({ ...h, useRemoteAddress: false }),
      forwardClientCertDetails: 'APPEND_FORWARD',
      setCurrentClientCertDetails: { subject: { value: true }, dns: true, uri: true },
      normalizePath: { value: true },
    }),
  };
}

/**
 * The server side of mesh mTLS: the workload certificate `default`, clients verified by `ROOTCA`, the
 * mesh's TLS parameters (`params`: inboundMtlsParams).
 */
export function inboundMtlsSocket(http: boolean, params: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'envoy.transport_sockets.tls',
    typedConfig: any(ENVOY.downstreamTls, {
      commonTlsContext: {
        tlsParams: params,
        tlsCertificateSdsSecretConfigs: [sdsSecret(SDS_SECRET.identity)],
        combinedValidationContext: { defaultValidationContext: {}, validationContextSdsSecretConfig: sdsSecret(SDS_SECRET.root) },
        alpnProtocols: http ? ['h2', 'http/1.1'] : [],
      },
      requireClientCertificate: { value: true },
    }),
  };
}

/**
 * The chains of an inbound port of unknown protocol: per mode, an HTTP chain for the HTTP ALPNs (mesh
 * mTLS: the `mesh-http/*` a client sidecar offers; plaintext: what http_inspector detects) before the
 * TCP chain for the rest.
 */
function sniffedInboundChains(p: ChainPort, mode: MtlsMode, b: InboundBuild): Record<string, unknown>[] {
  const cluster = inboundClusterName(p.targetPort);
  const tcp = [tcpProxy(cluster, `inbound|${p.targetPort}||`)];
  const http = [inboundHcm(p, b.hcm, b.bind)];
  const port = { destinationPort: { value: p.targetPort } };
  const chains: Record<string, unknown>[] = [];
  if (mode !== 'DISABLE') {
    chains.push(
      { name: `${cluster}-mtls-http`, filterChainMatch: { ...port, transportProtocol: 'tls', applicationProtocols: [...MESH_HTTP_ALPN] }, filters: http, transportSocket: inboundMtlsSocket(true, b.mtlsParams) },
      { name: `${cluster}-mtls-tcp`, filterChainMatch: { ...port, transportProtocol: 'tls', applicationProtocols: [...MESH_ALPN] }, filters: tcp, transportSocket: inboundMtlsSocket(false, b.mtlsParams) },
    );
  }
  if (mode !== 'STRICT') {
    const transport = mode === 'DISABLE' ? {} : { transportProtocol: 'raw_buffer' };
    chains.push(
      { name: `${cluster}-plaintext-http`, filterChainMatch: { ...port, ...transport, applicationProtocols: [...b.httpAlpn] }, filters: http },
      { name: `${cluster}-plaintext-tcp`, filterChainMatch: { ...port, ...transport }, filters: tcp },
    );
  }
  return chains;
}

/**
 * The filter chains of one inbound port by the mode of mTLS the proxy's PeerAuthentication sets for it; a
 * MONGO or REDIS port's TCP chains carry the Mongo or Redis proxy as istiod's inbound ones (protocolFilters).
 */
function inboundChains(p: ChainPort, mode: MtlsMode, b: InboundBuild): Record<string, unknown>[] {
  if (isSniffedPort(p)) return sniffedInboundChains(p, mode, b);
  const http = isHttpPort({ name: p.name, port: p.servicePort, protocol: p.protocol });
  const filters = http ? [inboundHcm(p, b.hcm, b.bind)] : protocolFilters(p.protocol, tcpProxy(inboundClusterName(p.targetPort), `inbound|${p.targetPort}||`), b.filters);
  const chains: Record<string, unknown>[] = [];
  if (mode !== 'DISABLE') {
    chains.push({
      name: `${inboundClusterName(p.targetPort)}-mtls`,
      filterChainMatch: { destinationPort: { value: p.targetPort }, transportProtocol: 'tls', applicationProtocols: [...MESH_ALPN] },
      filters,
      transportSocket: inboundMtlsSocket(http, b.mtlsParams),
    });
  }
  if (mode !== 'STRICT') {
    chains.push({
      name: `${inboundClusterName(p.targetPort)}-plaintext`,
      filterChainMatch: { destinationPort: { value: p.targetPort }, ...(mode === 'DISABLE' ? {} : { transportProtocol: 'raw_buffer' }) },
      filters,
    });
  }
  return chains;
}

/** How inbound listeners are built: process-wide options, read once at start (see generatorOptionsFromEnv). */
export interface InboundListenerOptions extends NetworkFilterOptions {
  /** ENABLE_TLS_ON_SIDECAR_INGRESS (default false): Sidecar `ingress[].tls` takes effect. */
  readonly tlsOnSidecarIngress?: boolean;
  /** The listener options of listener-options.ts (absent fields: istiod's defaults). */
  readonly listener?: SidecarListenerOptions;
}

/** What the inbound chains of one proxy share: its HCM options and the sniffed HTTP ALPNs. */
interface InboundBuild {
  readonly hcm: HcmOptions;
  readonly httpAlpn: readonly string[];
  /** PILOT_ENABLE_REDIS_FILTER / PILOT_ENABLE_MONGO_FILTER on the proxy's own TCP chains. */
  readonly filters: NetworkFilterOptions;
  /** The proxy's primary wildcard (`0.0.0.0`, or `::` for an IPv6-only proxy), in inbound stat prefixes. */
  readonly bind: string;
  /** The TLS parameters of inbound mesh mTLS (inboundMtlsParams of the mesh config). */
  readonly mtlsParams: Record<string, unknown>;
}

/**
 * The chain of a Sidecar ingress port that terminates TLS with the user's certificates (istiod's
 * getTLSFilterChainMatchOptions + BuildListenerTLSContext): TLS to the port, the HCM (HTTPS) or tcp_proxy
 * (TLS) behind a DownstreamTlsContext offering `h2`, `http/1.1` as istiod does for every sidecar ingress.
 * Plaintext to the port matches no chain (Envoy does not fall back from a port's chains to port-less ones).
 */
function tlsIngressChain(p: ChainPort, tls: NonNullable<InboundChainPort['tls']>, b: InboundBuild): Record<string, unknown> {
  const cluster = inboundClusterName(p.targetPort);
  const http = isHttpPort({ name: p.name, port: p.servicePort, protocol: p.protocol });
  return {
    name: `${cluster}-tls`,
    filterChainMatch: { destinationPort: { value: p.targetPort }, transportProtocol: 'tls' },
    filters: http ? [inboundHcm(p, b.hcm, b.bind)] : [tcpProxy(cluster, `inbound|${p.targetPort}||`)],
    transportSocket: serverTlsSocket(tls, SERVER_TLS_HTTP_ALPN),
  };
}

/**
 * The chains of one inbound port (istiod's buildInboundListeners): with Sidecar ingress TLS (and
 * ENABLE_TLS_ON_SIDECAR_INGRESS; the port's protocol is then the one after TLS termination, see
 * inboundChainPort) the user's TLS replaces the mTLS/plaintext chains only where the port's PeerAuthentication
 * mode is DISABLE (istiod: "to avoid conflicts"); otherwise the chains of the mode. Chains of a Sidecar ingress
 * listener name the Sidecar.
 */
function inboundPortChains(c: InboundChainPort, b: InboundBuild): Record<string, unknown>[] {
  const chains = c.tls && c.mode === 'DISABLE' ? [tlsIngressChain(c.port, c.tls, b)] : inboundChains(c.port, c.mode, b);
  const meta = c.metadata;
  return meta ? chains.map((x) => ({ metadata: meta, ...x })) : chains;
}

/**
 * `virtualInbound`: per-port chains (the proxy's service ports, or its Sidecar's ingress listeners), then
 * passthrough chains for other ports (mTLS and/or plaintext per the workload's mode).
 */
export function buildVirtualInbound(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, onConflict?: ConflictSink, opts: InboundListenerOptions = {}): Listener {
  return buildVirtualInboundFrom(virtualInboundInputs(ctx, proxy, endpoints, onConflict, opts), opts);
}

/** `virtualInbound` from its inputs (virtual-inbound-inputs.ts) and the process-wide network filter options alone. */
export function buildVirtualInboundFrom(i: VirtualInboundInputs, filters: NetworkFilterOptions): Listener {
  const [bind, ...extra] = i.binds;
  const b: InboundBuild = { hcm: i.hcm, httpAlpn: i.httpAlpn, filters, bind: bind!, mtlsParams: i.mtlsParams };
  const chains: Record<string, unknown>[] = [];
  for (const p of i.ports) chains.push(...inboundPortChains(p, b));
  const mtls = i.mode;
  if (mtls !== 'DISABLE') {
    chains.push({
      name: 'virtualInbound-mtls',
      filterChainMatch: { transportProtocol: 'tls', applicationProtocols: [...MESH_ALPN] },
      filters: [tcpProxy(INBOUND_PASSTHROUGH_CLUSTER)],
      transportSocket: inboundMtlsSocket(false, b.mtlsParams),
    });
  }
  if (mtls !== 'STRICT') {
    chains.push({ name: 'virtualInbound', filterChainMatch: mtls === 'DISABLE' ? {} : { transportProtocol: 'raw_buffer' }, filters: [tcpProxy(INBOUND_PASSTHROUGH_CLUSTER)] });
  }
  const listener: Record<string, unknown> = {
    name: VIRTUAL_INBOUND,
    address: socketAddress(b.bind, VIRTUAL_INBOUND_PORT),
    ...additionalAddresses(extra, VIRTUAL_INBOUND_PORT),
    trafficDirection: 'INBOUND',
    listenerFilters: [
      { name: 'envoy.filters.listener.original_dst', typedConfig: any(ENVOY.originalDst, {}) },
      { name: 'envoy.filters.listener.tls_inspector', typedConfig: any(ENVOY.tlsInspector, {}) },
      { name: 'envoy.filters.listener.http_inspector', typedConfig: any(ENVOY.httpInspector, {}) },
    ],
    listenerFiltersTimeout: { seconds: 0, nanos: 0 },
    continueOnListenerFiltersTimeout: true,
    filterChains: chains,
  };
  return listener;
}

/**
 * The listeners of the Sidecar ingress ports with captureMode NONE (see bound-inbound-listener.ts): each binds
 * `<bind>:<port>` with the chains the port would have had in `virtualInbound`; a port the proxy cannot bind
 * is left out (its cluster stays, as istiod).
 */
export function buildBoundInboundListeners(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, opts: InboundListenerOptions = {}): Listener[] {
  const ports = proxyInboundPorts(ctx, proxy, endpoints).filter((p) => p.bindToPort === true);
  if (ports.length === 0) return [];
  const o = resolveListenerOptions(opts.listener);
  // NOTE: the chains' stat prefixes name the proxy's wildcard, as in virtualInbound.
  const [wild] = wildcards(ipMode(proxy));
  const b: InboundBuild = { hcm: sidecarHcmOptions(ctx, proxy, o, false), httpAlpn: plaintextHttpAlpn(o), filters: opts, bind: wild!, mtlsParams: inboundMtlsParams(ctx.meshConfig) };
  const out: Listener[] = [];
  for (const p of ports) {
    const http = isHttpPort({ name: p.name, port: p.servicePort, protocol: p.protocol });
    if (!canBindIngressPort(proxy, p.targetPort, true, p.bind ?? '', http)) continue;
    out.push(boundInboundListener(p.bind ?? inboundBindAddress(proxy), p.targetPort, inboundPortChains(inboundChainPort(ctx, proxy, p, opts), b), ctx.meshConfig.protocolDetectionTimeout));
  }
  return out;
}
