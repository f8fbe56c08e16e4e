/**
 * Sidecar ingress listeners with `captureMode: NONE` (istiod's getBindToPort, inboundCustomListener and
 * buildInboundListener with bindToPort): instead of a chain of `virtualInbound`, the port gets a listener of
 * its own that binds `<bind>:<port>` (bind_to_port, Envoy's default; no original_dst), named `<bind>_<port>`,
 * with the port's chains (mTLS and/or plaintext by PeerAuthentication, or the user's TLS) and only the
 * inspectors those chains need. `bind` defaults to the proxy's first global unicast address (istiod's
 * getSidecarInboundBindIPs), else the wildcard. As istiod's CanBindToPort, a port the proxy cannot bind is
 * left out: a privileged port (1-1023) on a proxy with `UNPRIVILEGED_POD: "true"`, or the proxy's status or
 * Prometheus port (`ENVOY_STATUS_PORT`, `ENVOY_PROMETHEUS_PORT`) on the wildcard address.
 */
import { isIP } from 'node:net';
import type { Proxy } from '../../../core/index.js';
import type { Listener } from '../../envoy-types/index.js';
import { any, duration } from '../grpc/envoy.js';
import { ENVOY } from './sidecar-names.js';

/** Whether an address is a global unicast one (Go's net.IP.IsGlobalUnicast: not unspecified, loopback, link-local or multicast). */
function isGlobalUnicast(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return !(a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224);
  }
  if (family === 6) {
    const lower = ip.toLowerCase();
    return !(lower === '::' || lower === '::1' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb') || lower.startsWith('ff'));
  }
  return false;
}

/** Where a bound ingress listener listens without `bind` (istiod's getSidecarInboundBindIPs): the proxy's first global unicast address, else the wildcard. */
export function inboundBindAddress(proxy: Pick<Proxy, 'ipAddresses'>): string {
  const own = proxy.ipAddresses.find(isGlobalUnicast);
  if (own !== undefined) return own;
  return proxy.ipAddresses.length > 0 && proxy.ipAddresses.every((ip) => isIP(ip) === 6) ? '::' : '0.0.0.0';
}

/** A port number from node metadata (sent as a string or a number); undefined when absent or not a port. */
function metadataPort(proxy: Pick<Proxy, 'metadata'>, key: string): number | undefined {
  const v = proxy.metadata[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
  return n !== undefined && n > 0 && n < 65536 ? n : undefined;
}

/**
 * Whether the proxy can bind a Sidecar ingress port (istiod's CanBindToPort with no push): not a privileged
 * port when the proxy says it is unprivileged (`UNPRIVILEGED_POD`), and not the proxy's own status or
 * Prometheus port when the listener takes the wildcard address (`bind` 0.0.0.0, or no `bind` on an HTTP port).
 */
export function canBindIngressPort(proxy: Pick<Proxy, 'metadata'>, port: number, bindToPort: boolean, bind: string, http: boolean): boolean {
  const unprivileged = ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(String(proxy.metadata['UNPRIVILEGED_POD'] ?? ''));
  if (bindToPort && port > 0 && port < 1024 && unprivileged) return false;
  const wildcard = bind === '0.0.0.0' || (bind === '' && http);
  if (!wildcard) return true;
  return port !== metadataPort(proxy, 'ENVOY_STATUS_PORT') && port !== metadataPort(proxy, 'ENVOY_PROMETHEUS_PORT');
}

/** Whether any chain matches on `what` (istiod's populateListenerFilters reads the chains' matches). */
function chainsNeed(chains: readonly Record<string, unknown>[], what: 'tls' | 'http'): boolean {
  return chains.some((c) => {
    const m = (c['filterChainMatch'] ?? {}) as { transportProtocol?: string; applicationProtocols?: string[] };
    return what === 'tls' ? m.transportProtocol === 'tls' : (m.applicationProtocols ?? []).some((a) => a === 'http/1.1' || a === 'h2c');
  });
}

/**
 * The listener of a bound Sidecar ingress port: `<bind>_<port>` on `<bind>:<port>`, binding the port (no
 * `bindToPort: false`), INBOUND, the port's chains, tls_inspector and http_inspector only where a chain
 * needs them, and the mesh's protocol detection timeout.
 */
export function boundInboundListener(bind: string, port: number, chains: Record<string, unknown>[], protocolDetectionTimeout: string): Listener {
  return {
    name: `${bind}_${port}`,
    address: { socketAddress: { address: bind, portValue: port } },
    trafficDirection: 'INBOUND',
    continueOnListenerFiltersTimeout: true,
    filterChains: chains,
    listenerFilters: [
      ...(chainsNeed(chains, 'tls') ? [{ name: 'envoy.filters.listener.tls_inspector', typedConfig: any(ENVOY.tlsInspector, {}) }] : []),
      ...(chainsNeed(chains, 'http') ? [{ name: 'envoy.filters.listener.http_inspector', typedConfig: any(ENVOY.httpInspector, {}) }] : []),
    ],
    listenerFiltersTimeout: duration(protocolDetectionTimeout),
  };
}
