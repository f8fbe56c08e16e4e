/**
 * Sidecar egress listeners on unix domain sockets (`egress[].bind: unix://<path>` with port 0), as istiod builds
 * them (buildSidecarOutboundListeners with a unix bind, buildListenerFromEntry, util.BuildAddress): one listener
 * `<bind>_0` on the pipe `<path>`, bound (the app connects to the socket; no original destination). An HTTP port
 * takes an HCM whose RDS route configuration is named after the bind (`unix://<path>`) and holds the virtual
 * hosts of every HTTP port of the listener's services (istiod's mergeAllVirtualHosts: `host:port` domains only for
 * ports other than 80, and the port stripped from the Host before matching: only port 80's virtual hosts ever match,
 * a request for another port takes the catch-all, as with istiod); any other protocol takes `tcp_proxy` to the first service (the port of a one-port
 * service, else 0 as istiod, which names a cluster no one serves; a further service is a TCP-over-TCP conflict).
 */
import type { Service } from '../../../core/index.js';

/** The prefix of a unix domain socket bind (istiod's UnixAddressPrefix). */
export const UNIX_ADDRESS_PREFIX = 'unix://';

/** Whether a bind (or route configuration name) is a unix domain socket. */
export function isUnixBind(bind: string): boolean {
  return bind.startsWith(UNIX_ADDRESS_PREFIX);
}

/** The listener name istiod's getListenerName gives a unix socket bind: `<bind>_0`. */
export function unixListenerName(bind: string): string {
  return `${bind}_0`;
}

/** The upstream port of a TCP unix socket listener's `tcp_proxy` (see the file comment). */
export function unixClusterPort(svc: Service): number {
  return svc.ports.length === 1 ? svc.ports[0]!.port : 0;
}

/** The listener of a unix socket bind with its one filter chain (bound: no `bindToPort: false`). */
export function unixEgressListener(bind: string, chain: Record<string, unknown>): Record<string, unknown> {
  return { name: unixListenerName(bind), address: { pipe: { path: bind.slice(UNIX_ADDRESS_PREFIX.length) } }, trafficDirection: 'OUTBOUND', filterChains: [chain] };
}
