/**
 * What a sidecar's outbound listeners are built for: service ports and where their listeners go, from the
 * Sidecar scope's egress listeners (istiod's buildSidecarOutboundListeners loop over egress listeners and its
 * listener bindings). The builder is outbound-listeners.ts's buildOutboundListeners.
 */
import type { Proxy, Service, ServicePort } from '../../../core/index.js';
import type { EgressListenerScope, SidecarScope } from './sidecar-scope.js';

/**
 * Whether the proxy does not intercept traffic (node metadata `INTERCEPTION_MODE: NONE`, istiod's
 * GetInterceptionMode; anything else is REDIRECT or TPROXY): then istiod builds neither `virtualOutbound` nor
 * `virtualInbound`, no inbound listener or cluster for the service ports (only Sidecar ingress listeners, bound),
 * and every outbound listener binds its port at 127.0.0.1 (or the egress listener's bind).
 */
export function interceptionNone(proxy: Pick<Proxy, 'metadata'>): boolean {
  return proxy.metadata['INTERCEPTION_MODE'] === 'NONE';
}

/** One service port the outbound listeners are built for, and where (see outboundEntries). */
export interface OutboundEntry {
  readonly svc: Service;
  readonly p: ServicePort;
  /** The address the listener takes instead of the usual one (VIP or 0.0.0.0): a Sidecar egress `bind`. */
  readonly bind?: string;
  /** captureMode NONE: the listener binds its port. */
  readonly bindToPort: boolean;
  /** For the catch-all egress listener: the names the egress listeners with a port built first, which it leaves alone. */
  readonly locked?: ReadonlySet<string>;
}

/**
 * What the outbound listeners are built for (istiod's buildSidecarOutboundListeners): without egress listeners
 * that have a port, a bind or captureMode NONE, every port of every listener service; with them, first each
 * egress listener with a port (its services that have that port, on it with the egress port's protocol, at its
 * bind), then the catch-all's services on all their ports at its bind, leaving alone the listener names the
 * first built. An egress listener on a unix socket (`bind: unix://<path>`, port 0) yields each of its services at its
 * bind with port 0 (one pipe listener, see unix-egress.ts). With `none` (the proxy does
 * not intercept, see interceptionNone) every listener binds, at its egress listener's bind or 127.0.0.1.
 * NOTE: istiod also builds a port's listener for a selected service without that port (its chains then name a
 * cluster no one serves); meshd leaves such a service out.
 */
export function* outboundEntries(scope: SidecarScope, built: ReadonlyMap<string, unknown>, none = false): Generator<OutboundEntry> {
  if (!scope.egressListeners) {
    // NOTE: as istiod, a proxy that does not intercept binds every outbound listener at localhost.
    const at = none ? { bind: '127.0.0.1', bindToPort: true } : { bindToPort: false };
    for (const svc of scope.listenerServices) for (const p of svc.ports) yield { svc, p, ...at };
    return;
  }
  const withBind = (e: EgressListenerScope): { bind?: string; bindToPort: boolean } =>
    none ? { bind: e.bind ?? '127.0.0.1', bindToPort: true } : { ...(e.bind !== undefined ? { bind: e.bind } : {}), bindToPort: e.bindToPort };
  for (const e of scope.egressListeners) {
    if (!e.port) continue;
    const port = e.port;
    for (const svc of e.services) {
      // NOTE: as istiod, a unix socket listener (port 0) takes every service of its egress listener.
      if (!e.unix && !svc.ports.some((x) => x.port === port.number)) continue;
      yield { svc, p: { port: port.number, protocol: port.protocol, name: port.name }, ...withBind(e) };
    }
  }
  const catchAll = scope.egressListeners.find((e) => !e.unix && !e.port);
  if (!catchAll) return;
  // NOTE: read when the catch-all starts: the consumer has built every entry yielded before.
  const locked = new Set(built.keys());
  for (const svc of catchAll.services) for (const p of svc.ports) yield { svc, p, ...withBind(catchAll), locked };
}
