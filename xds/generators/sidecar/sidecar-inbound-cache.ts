/**
 * The XdsCache entry of `virtualInbound`: every sidecar of one workload (same namespace, labels, ports, Sidecar,
 * PeerAuthentications, IP mode and the metadata that matters) gets the same bytes, built and encoded once.
 *
 * The key is a digest of exactly what the builder reads: buildVirtualInboundFrom reads only the
 * VirtualInboundInputs gathered per proxy (virtual-inbound-inputs.ts) and the process-wide network filter
 * options (PILOT_ENABLE_REDIS_FILTER / PILOT_ENABLE_MONGO_FILTER, read once at start, so not in the key), and the
 * inputs are the key: the inbound ports (from the proxy's own service instances, found by its IPs, or its
 * Sidecar's `ingress` listeners: service and target port, name, protocol, Sidecar ingress TLS with
 * ENABLE_TLS_ON_SIDECAR_INGRESS, the Sidecar's provenance), the PeerAuthentication mode of each port and of the
 * workload (the proxy's namespace and labels through the PeerAuthentications that select it), the wildcard
 * addresses (the proxy's IP mode, MESH_DUAL_STACK), the inbound HCM options (PILOT_HTTP10 or the proxy's `HTTP10`
 * metadata, the mesh networks with ENABLE_HCM_INTERNAL_NETWORKS), the sniffed HTTP ALPNs and the mesh's inbound
 * mTLS parameters. The proxy's IPs only pick its instances; they, its id and locality are not read.
 * `pilot_conflict_inbound_listener` (named by the proxy's id) is reported per proxy while the inputs are gathered,
 * on a hit as on a miss.
 *
 * Dependencies: `kind:PeerAuthentication`, the Sidecar that applies (`Sidecar/<ns>/<name>`) and the services of
 * the proxy's instances (`ServiceEntry/<ns>/<host>`), so a change to any of them clears the entries it shaped; a
 * mesh config change is a full push naming nothing, which clears all. A new service selecting the workload, a
 * new Sidecar or PeerAuthentication that starts to apply, or new proxy labels change the inputs, hence the key.
 * Captured Sidecar ingress ports (`captureMode: NONE`, bound-inbound-listener.ts) stay per proxy: they read the
 * proxy's IPs and metadata.
 */
import { createHash } from 'node:crypto';
import { servingService, type PushContext, type PushSnapshot, type Proxy } from '../../../core/index.js';
import type { XdsCache } from '../../cache/xds-cache.js';
import type { ConflictSink } from './conflict-recorder.js';
import { proxyInstances } from './inbound-clusters.js';
import { buildVirtualInboundFrom, type InboundListenerOptions } from './inbound-listeners.js';
import { sidecarScope } from './sidecar-scope.js';
import { VIRTUAL_INBOUND } from './sidecar-names.js';
import { virtualInboundInputs, type VirtualInboundInputs } from './virtual-inbound-inputs.js';

/** The cache key of `virtualInbound` built from `inputs`: a digest of them (see the file comment). */
export function virtualInboundKey(inputs: VirtualInboundInputs): string {
  return `slds-inbound|${createHash('sha256').update(JSON.stringify(inputs)).digest('base64url')}`;
}

/** The dependencies of a proxy's `virtualInbound`: every PeerAuthentication, its Sidecar, the services of its instances. */
export function virtualInboundDependencies(ctx: PushContext, proxy: Proxy, snap: Pick<PushSnapshot, 'endpoints'>): string[] {
  const deps = new Set<string>(['kind:PeerAuthentication']);
  const sidecar = sidecarScope(ctx, proxy).sidecar;
  if (sidecar) deps.add(`Sidecar/${sidecar.metadata.namespace}/${sidecar.metadata.name}`);
  for (const i of proxyInstances(ctx, proxy, snap.endpoints)) {
    const svc = servingService(ctx, i);
    if (svc) deps.add(`ServiceEntry/${svc.namespace}/${svc.hostname}`);
  }
  return [...deps].sort();
}

/**
 * The encoded `virtualInbound` of a proxy: from the cache when a proxy with the same inputs built it, else built,
 * encoded and cached with the snapshot's token (refused when a change invalidated its inputs meanwhile).
 */
export function cachedVirtualInbound(
  cache: XdsCache,
  ctx: PushContext,
  proxy: Proxy,
  snap: PushSnapshot,
  encode: (listener: Record<string, unknown>) => Uint8Array,
  sink: ConflictSink | undefined,
  opts: InboundListenerOptions,
): { name: string; body: Uint8Array } {
  const inputs = virtualInboundInputs(ctx, proxy, snap.endpoints, sink, opts);
  const key = virtualInboundKey(inputs);
  const hit = cache.get(key, snap.token);
  if (hit) return { name: VIRTUAL_INBOUND, body: hit };
  const body = encode(buildVirtualInboundFrom(inputs, opts));
  cache.set(key, body, virtualInboundDependencies(ctx, proxy, snap), snap.token);
  return { name: VIRTUAL_INBOUND, body };
}
