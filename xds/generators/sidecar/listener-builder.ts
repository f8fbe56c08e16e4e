/**
 * Listeners of a dataplane sidecar (Istio's listener.go / listener_builder.go), every one sorted by name:
 * `virtualOutbound` and the outbound service listeners (outbound-listeners.ts), `virtualInbound` and the
 * listeners of Sidecar ingress ports with `captureMode: NONE` (inbound-listeners.ts); what they share is in
 * sidecar-filters.ts. Conflicts are reported to an optional sink (see conflict-recorder.ts): a TCP listener whose
 * `<vip>_<port>` another TCP service already holds, two inbound ports on one target port with different
 * protocols.
 */
import { definedFields, type EndpointView, type PushContext, type Proxy } from '../../../core/index.js';
import { interceptionNone } from './outbound-entries.js';
import type { ConflictSink } from './conflict-recorder.js';
import type { Listener } from '../../envoy-types/index.js';
import { podListenerNames, withoutOwnPodListeners } from './headless-pod-listeners.js';
import { buildBoundInboundListeners, buildVirtualInbound, type InboundListenerOptions } from './inbound-listeners.js';
import { buildOutboundListeners, buildVirtualOutbound, type OutboundListenerOptions } from './outbound-listeners.js';

/** Every listener of a sidecar, sorted by name. */
export function buildSidecarListeners(ctx: PushContext, proxy: Proxy, endpoints: EndpointView, onConflict?: ConflictSink, opts: InboundListenerOptions = {}): Listener[] {
  const outOpts: OutboundListenerOptions = { endpoints, ...definedFields(opts, ['redisFilter', 'mongoFilter', 'listener']) };
  const outbound = withoutOwnPodListeners(buildOutboundListeners(ctx, proxy, onConflict, outOpts) as (Listener & { name: string })[], podListenerNames(ctx, proxy, outOpts), proxy);
  // NOTE: as istiod, a proxy that does not intercept (INTERCEPTION_MODE NONE) gets no virtual listeners.
  const virtual = interceptionNone(proxy) ? [] : [buildVirtualOutbound(ctx, proxy, opts.listener), buildVirtualInbound(ctx, proxy, endpoints, onConflict, opts)];
  const all = [...virtual, ...buildBoundInboundListeners(ctx, proxy, endpoints, opts), ...outbound];
  return all.sort((a, b) => ((a['name'] as string) < (b['name'] as string) ? -1 : 1));
}
