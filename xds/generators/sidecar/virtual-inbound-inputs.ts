/**
 * What `virtualInbound` is built from, gathered per proxy (buildVirtualInboundFrom in inbound-listeners.ts reads
 * these and the process-wide network filter options, nothing else), so that sidecar-inbound-cache.ts can key the
 * bytes by a digest of them:
 * - the inbound ports on `virtualInbound` (proxyInboundPorts: the proxy's own service instances, found by its IPs,
 *   or its Sidecar's `ingress` listeners; a captureMode NONE port has a listener of its own), each as the chains
 *   read it: service and target port, name, protocol (after TLS termination with Sidecar ingress TLS and
 *   ENABLE_TLS_ON_SIDECAR_INGRESS), that TLS, the port's PeerAuthentication mode and the Sidecar's provenance;
 * - the workload's PeerAuthentication mode (the passthrough chains);
 * - the wildcard addresses it binds (the proxy's IP mode, MESH_DUAL_STACK);
 * - the inbound HCM options (PILOT_HTTP10 or the proxy's `HTTP10` metadata, ENABLE_HCM_INTERNAL_NETWORKS with
 *   the mesh networks), the sniffed HTTP ALPNs (PILOT_HTTP10) and the mesh's inbound mTLS parameters.
 * The proxy's IPs themselves, id, locality and other metadata are not read.
 */
import type { EndpointView, MtlsMode, PushContext, Proxy } from '../../../core/index.js';
import type { ServerTLSSettings } from '../../../crds/index.js';
import { proxyInboundPorts, type InboundPort } from './inbound-clusters.js';
import { ipMode, wildcards } from './listener-address.js';
import { plaintextHttpAlpn, resolveListenerOptions, sidecarHcmOptions, type HcmOptions, type SidecarListenerOptions } from './listener-options.js';
import { inboundMtlsParams } from './server-tls.js';
import { provenance } from './sidecar-names.js';
import type { ConflictSink } from './conflict-recorder.js';

/** What an inbound chain reads of its port. */
export type ChainPort = Pick<InboundPort, 'servicePort' | 'targetPort' | 'name' | 'protocol'>;

/** One inbound port as its chains are built from it (see the file comment). */
export interface InboundChainPort {
  readonly port: ChainPort;
  /** Sidecar `ingress[].tls`, only with ENABLE_TLS_ON_SIDECAR_INGRESS. */
  readonly tls?: ServerTLSSettings;
  /** The PeerAuthentication mode of the port for the workload. */
  readonly mode: MtlsMode;
  /** The provenance of the Sidecar whose ingress listener the port is. */
  readonly metadata?: Record<string, unknown>;
}

/** Everything `virtualInbound` is built from (see the file comment). */
export interface VirtualInboundInputs {
  readonly ports: readonly InboundChainPort[];
  /** The workload's PeerAuthentication mode: the passthrough chains. */
  readonly mode: MtlsMode;
  /** The wildcard addresses, the primary first (the others: `additional_addresses`). */
  readonly binds: readonly string[];
  readonly hcm: HcmOptions;
  readonly httpAlpn: readonly string[];
  readonly mtlsParams: Record<string, unknown>;
}

/** The options the inputs read (process-wide, read once at start). */
export interface InboundInputOptions {
  /** ENABLE_TLS_ON_SIDECAR_INGRESS */
  readonly tlsOnSidecarIngress?: boolean;
  readonly listener?: SidecarListenerOptions;
}

/** The protocol a port speaks once its TLS is terminated (Istio's AfterTLSTermination): HTTPS is HTTP, TLS is TCP. */
function afterTlsTermination(p: ChainPort): ChainPort {
  return p.protocol === 'HTTPS' ? { ...p, protocol: 'HTTP' } : p.protocol === 'TLS' ? { ...p, protocol: 'TCP' } : p;
}

/**
 * One inbound port as its chains read it (istiod's buildInboundListeners): with Sidecar ingress TLS (and
 * ENABLE_TLS_ON_SIDECAR_INGRESS) the protocol after TLS termination; the port's PeerAuthentication mode.
 */
export function inboundChainPort(ctx: PushContext, proxy: Proxy, port: InboundPort, opts: InboundInputOptions): InboundChainPort {
  const tls = opts.tlsOnSidecarIngress === true ? port.tls : undefined;
  const base: ChainPort = { servicePort: port.servicePort, targetPort: port.targetPort, name: port.name, protocol: port.protocol };
  const p = tls ? afterTlsTermination(base) : base;
  const metadata = provenance([port.sidecar]);
  return { port: p, ...(tls ? { tls } : {}), mode: ctx.mtlsMode(proxy.namespace, proxy.labels, p.targetPort), ...(metadata ? { metadata } : {}) };
}

/** The inputs of a proxy's `virtualInbound`; `onConflict` hears of inbound ports in conflict (pilot_conflict_inbound_listener). */
export function virtualInboundInputs(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, onConflict: ConflictSink | undefined, opts: InboundInputOptions): VirtualInboundInputs {
  const ports = proxyInboundPorts(ctx, proxy, endpoints, (port) => onConflict?.('pilot_conflict_inbound_listener', `${proxy.id}:${port}`));
  const o = resolveListenerOptions(opts.listener);
  const mode = ipMode(proxy);
  return {
    // NOTE: a Sidecar ingress port with captureMode NONE has a listener of its own (buildBoundInboundListeners).
    ports: ports.filter((p) => p.bindToPort !== true).map((p) => inboundChainPort(ctx, proxy, p, opts)),
    mode: ctx.mtlsMode(proxy.namespace, proxy.labels),
    // NOTE: as istiod (buildInboundListener), the second family of a dual-stack proxy only with MESH_DUAL_STACK.
    binds: o.dualStack ? wildcards(mode) : wildcards(mode).slice(0, 1),
    hcm: sidecarHcmOptions(ctx, proxy, o, false),
    httpAlpn: plaintextHttpAlpn(o),
    mtlsParams: inboundMtlsParams(ctx.meshConfig),
  };
}
