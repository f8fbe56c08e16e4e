/**
 * The inbound side of a dataplane sidecar's clusters (Istio's cluster_builder.go buildInboundClusters):
 * the proxy's inbound ports (its own service instances' target ports, or its Sidecar's `ingress` listeners),
 * `inbound|<port>||` per port to the original destination or, for a Sidecar ingress `defaultEndpoint`,
 * STATIC to that endpoint, with the Sidecar's inbound connection pool (inbound-connection-pool.ts); bound
 * ingress ports (`captureMode: NONE`) keep their clusters here too. The outbound side is cluster-builder.ts.
 */
import { createHash } from 'node:crypto';
import { parseProtocol, servingService, type Config, type EndpointView, type PushContext, type Proxy, type ServiceInstance, type ServicePort } from '../../../core/index.js';
import type { ConnectionPoolSettings, ServerTLSSettings, SidecarSpec } from '../../../crds/index.js';
import type { Cluster } from '../../envoy-types/index.js';
import { duration } from '../grpc/envoy.js';
import { applyInboundConnectionPool, inboundConnectionPoolFor } from './inbound-connection-pool.js';
import { defaultEndpointAddress, inboundUpstreamBind, ipMode, LOCALHOST_V4, LOCALHOST_V6 } from './listener-address.js';
import { resolveListenerOptions, type SidecarListenerOptions } from './listener-options.js';
import { interceptionNone } from './outbound-entries.js';
import { sidecarScope } from './sidecar-scope.js';
import { inboundClusterName, provenance } from './sidecar-names.js';

/** Envoy's "no limit" for circuit breakers, as Istio sets by default. */
const MAX_UINT32 = 4294967295;

/** Istio's default circuit breaker thresholds (everything unlimited, remaining tracked). */
export function defaultThresholds(): Record<string, unknown> {
  return { maxConnections: { value: MAX_UINT32 }, maxPendingRequests: { value: MAX_UINT32 }, maxRequests: { value: MAX_UINT32 }, maxRetries: { value: MAX_UINT32 }, trackRemaining: true };
}

/** The proxy's own service instances (endpoints whose address is one of the proxy's IPs). */
export function proxyInstances(ctx: PushContext, proxy: Proxy, endpoints: EndpointView): ServiceInstance[] {
  if (proxy.ipAddresses.length === 0) return [];
  const index = instancesByAddress(ctx, endpoints);
  if (proxy.ipAddresses.length === 1) return (index.get(proxy.ipAddresses[0]!) ?? []).map((x) => x.instance);
  const found = [...new Set(proxy.ipAddresses)].flatMap((ip) => index.get(ip) ?? []);
  return found.sort((a, b) => a.position - b.position).map((x) => x.instance);
}

/** Instances by address, with their position in the walk over services then instances (proxyInstances' order). */
type AddressIndex = Map<string, { readonly instance: ServiceInstance; readonly position: number }[]>;

const addressIndexes = new WeakMap<EndpointView, WeakMap<PushContext, AddressIndex>>();

/**
 * The address index of a snapshot's endpoints and services, made once per snapshot.
 * NOTE: without it every proxy walked every instance of the mesh to find its own (per CDS and LDS push).
 */
function instancesByAddress(ctx: PushContext, endpoints: EndpointView): AddressIndex {
  let byCtx = addressIndexes.get(endpoints);
  if (!byCtx) addressIndexes.set(endpoints, (byCtx = new WeakMap()));
  let index = byCtx.get(ctx);
  if (index) return index;
  index = new Map();
  let position = 0;
  for (const svc of ctx.services) {
    // NOTE: every declaration's instances: a workload serves its own namespace's entry of a host that two declare.
    for (const instance of endpoints.declaredInstances(svc.hostname)) {
      let list = index.get(instance.address);
      if (!list) index.set(instance.address, (list = []));
      list.push({ instance, position: position++ });
    }
  }
  byCtx.set(ctx, index);
  return index;
}

/**
 * One inbound port of the proxy: the service port, the application's (target) port, its name and
 * protocol; for a Sidecar `ingress` listener also its TLS settings, default endpoint and the Sidecar.
 */
export interface InboundPort {
  readonly servicePort: number;
  readonly targetPort: number;
  readonly name: string;
  readonly protocol: ServicePort['protocol'];
  /** Sidecar `ingress[].tls` (taken into account only with ENABLE_TLS_ON_SIDECAR_INGRESS). */
  readonly tls?: ServerTLSSettings;
  /** Sidecar `ingress[].defaultEndpoint`: `127.0.0.1:<port>`, `0.0.0.0:<port>` (the pod IP), `[::1]:<port>`, `[::]:<port>` or `unix://<path>`. */
  readonly defaultEndpoint?: string;
  /** The Sidecar whose ingress listener this is. */
  readonly sidecar?: Config;
  /** Sidecar `ingress[].bind`: the IP a bound ingress listener listens on (empty: the proxy's address; see bound-inbound-listener.ts). */
  readonly bind?: string;
  /** Sidecar `ingress[].captureMode: NONE`: the port gets a listener of its own bound at bind:port, not a `virtualInbound` chain. */
  readonly bindToPort?: boolean;
  /** The Sidecar's connection pool for the port (`ingress[].connectionPool`, else `inboundConnectionPool`) and that Sidecar. */
  readonly connectionPool?: { readonly settings: ConnectionPoolSettings; readonly sidecar: Config };
}

/**
 * The distinct inbound (target) ports of the proxy from its own instances, with the protocol of their
 * service port. Two services whose ports reach one target port with different protocols conflict: the
 * first (by service host) wins and `onConflict` hears of the other (pilot_conflict_inbound_listener).
 */
export function inboundPorts(ctx: PushContext, instances: readonly ServiceInstance[], onConflict?: (port: number) => void): InboundPort[] {
  const seen = new Map<number, InboundPort>();
  for (const i of instances) {
    const protocol = servingService(ctx, i)?.ports.find((p) => p.port === i.servicePort)?.protocol ?? 'TCP';
    const have = seen.get(i.port);
    if (have) {
      if (have.protocol !== protocol) onConflict?.(i.port);
      continue;
    }
    seen.set(i.port, { servicePort: i.servicePort, targetPort: i.port, name: i.servicePortName, protocol });
  }
  return [...seen.values()].sort((a, b) => a.targetPort - b.targetPort);
}

/**
 * The inbound ports of a sidecar (istiod's buildInboundChainConfigs): when the Sidecar that applies
 * has `ingress` listeners, those (port.number is both the service and the target port; no targetPort in
 * the API), first per number wins; else the ports of the proxy's own service instances (inboundPorts).
 * NOTE: as istiod without PILOT_ALLOW_SIDECAR_SERVICE_INBOUND_LISTENER_MERGE, ingress listeners replace
 * the service ports rather than join them.
 */
export function proxyInboundPorts(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, onConflict?: (port: number) => void): InboundPort[] {
  const sidecar = sidecarScope(ctx, proxy).sidecar;
  const spec = sidecar?.spec as SidecarSpec | undefined;
  const ingress = spec?.ingress ?? [];
  // NOTE: as istiod, the Sidecar's connection pool applies to every inbound cluster, of ingress listeners or service ports.
  const pooled = (p: InboundPort): InboundPort => {
    const settings = inboundConnectionPoolFor(spec, p.targetPort);
    return settings && sidecar ? { ...p, connectionPool: { settings, sidecar } } : p;
  };
  // NOTE: as istiod, a proxy that does not intercept gets inbound listeners and clusters for Sidecar ingress listeners only.
  const none = interceptionNone(proxy);
  if ((!sidecar || ingress.length === 0) && none) return [];
  if (!sidecar || ingress.length === 0) {
    const ports = inboundPorts(ctx, proxyInstances(ctx, proxy, endpoints), onConflict);
    return spec?.inboundConnectionPool ? ports.map(pooled) : ports;
  }
  const seen = new Map<number, InboundPort>();
  for (const l of ingress) {
    const n = l.port.number;
    if (n === undefined || seen.has(n)) continue;
    seen.set(n, {
      servicePort: n,
      targetPort: n,
      name: l.port.name ?? '',
      protocol: parseProtocol(l.port.protocol),
      ...(l.tls ? { tls: l.tls } : {}),
      ...(l.defaultEndpoint ? { defaultEndpoint: l.defaultEndpoint } : {}),
      ...(l.bind ? { bind: l.bind } : {}),
      // NOTE: as istiod's getBindToPort: NONE binds, and DEFAULT does on a proxy that does not intercept (IPTABLES never).
      ...(l.captureMode === 'NONE' || ((l.captureMode ?? 'DEFAULT') === 'DEFAULT' && none) ? { bindToPort: true } : {}),
      sidecar,
    });
  }
  return [...seen.values()].sort((a, b) => a.targetPort - b.targetPort).map(pooled);
}

/**
 * What an inbound cluster is built from (buildInboundClusterFrom reads nothing else), so that its cache key can
 * be a digest of it: the target port; the Sidecar ingress default endpoint's address as resolved for the proxy
 * (a `0.0.0.0:<port>` one names the proxy's own IP; none: the original destination); the source addresses
 * (the proxy's IP mode, MESH_DUAL_STACK); the mesh's connect timeout; the Sidecar's connection pool for the port
 * and that Sidecar's provenance.
 */
export interface InboundClusterInputs {
  readonly targetPort: number;
  readonly address?: Record<string, unknown>;
  readonly bind: Record<string, unknown>;
  readonly connectTimeout: string;
  readonly pool?: { readonly settings: ConnectionPoolSettings; readonly metadata: Record<string, unknown> | undefined };
}

/** The inputs of the inbound cluster of port `p` of a proxy (see InboundClusterInputs). */
export function inboundClusterInputs(ctx: PushContext, proxy: Proxy, p: InboundPort, listener?: SidecarListenerOptions): InboundClusterInputs {
  const address = defaultEndpointAddress(proxy, p.defaultEndpoint);
  return {
    targetPort: p.targetPort,
    ...(address ? { address } : {}),
    bind: inboundUpstreamBind(ipMode(proxy), resolveListenerOptions(listener).dualStack),
    connectTimeout: ctx.meshConfig.connectTimeout,
    ...(p.connectionPool ? { pool: { settings: p.connectionPool.settings, metadata: provenance([p.connectionPool.sidecar]) } } : {}),
  };
}

/** The XdsCache key of an inbound cluster: its port and a digest of its inputs. */
export function inboundClusterKey(i: InboundClusterInputs): string {
  return `scds-inbound|${i.targetPort}|${createHash('sha256').update(JSON.stringify(i)).digest('base64url')}`;
}

/**
 * The dependencies of the inbound cluster of port `p`: the Sidecar whose ingress listener or connection pool
 * shaped it (a mesh config change is a full push naming nothing, which clears all; the rest is in the key).
 */
export function inboundClusterDependencies(p: InboundPort): string[] {
  const sidecar = p.connectionPool?.sidecar ?? p.sidecar;
  return sidecar ? [`Sidecar/${sidecar.metadata.namespace}/${sidecar.metadata.name}`] : [];
}

/**
 * The inbound cluster of an inbound port: `inbound|<port>||` to the original destination or, for a Sidecar
 * ingress listener with a default endpoint, STATIC to that endpoint (bound to 127.0.0.6 unless it is localhost or
 * a socket, so that iptables lets the proxy's own connection through, as istiod).
 */
export function buildProxyInboundCluster(ctx: PushContext, proxy: Proxy, p: InboundPort, listener?: SidecarListenerOptions): Cluster {
  return buildInboundClusterFrom(inboundClusterInputs(ctx, proxy, p, listener));
}

/**
 * An inbound cluster from its inputs: without a default endpoint `inbound|<port>||` ORIGINAL_DST to the
 * application's port, bound to `bind` (127.0.0.6; `::6` for an IPv6-only proxy: inboundUpstreamBind), as Istio;
 * with one STATIC (see buildProxyInboundCluster). Either with the Sidecar's inbound connection pool for the port
 * when there is one (see inbound-connection-pool.ts).
 */
export function buildInboundClusterFrom(i: InboundClusterInputs): Cluster {
  const name = inboundClusterName(i.targetPort);
  const common = { name, connectTimeout: duration(i.connectTimeout), circuitBreakers: { thresholds: [defaultThresholds()] }, commonLbConfig: {} };
  if (!i.address) {
    return withConnectionPool(i.pool, {
      ...common,
      type: 'ORIGINAL_DST',
      lbPolicy: 'CLUSTER_PROVIDED',
      upstreamBindConfig: i.bind,
      originalDstLbConfig: { upstreamPortOverride: { value: i.targetPort } },
    });
  }
  const ip = (i.address['socketAddress'] as { address?: string } | undefined)?.address;
  return withConnectionPool(i.pool, {
    ...common,
    type: 'STATIC',
    loadAssignment: { clusterName: name, endpoints: [{ lbEndpoints: [{ endpoint: { address: i.address } }] }] },
    ...(ip !== undefined && ip !== LOCALHOST_V4 && ip !== LOCALHOST_V6 ? { upstreamBindConfig: i.bind } : {}),
  });
}

/** A cluster with the Sidecar's inbound connection pool applied (istiod's applyConnectionPool) and naming that Sidecar; as is without one. */
function withConnectionPool(pool: InboundClusterInputs['pool'], c: Cluster): Cluster {
  if (!pool) return c;
  const out: Record<string, unknown> = { metadata: pool.metadata, ...c };
  applyInboundConnectionPool(out, pool.settings);
  return out as Cluster;
}
