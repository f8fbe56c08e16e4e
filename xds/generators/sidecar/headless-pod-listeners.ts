/**
 * Headless pod listeners (istiod's per-instance outbound listeners, PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS):
 * which pod addresses a headless service's ports get listeners on, and the per-proxy removal of the
 * proxy's own. The listeners themselves are built in outbound-listeners.ts.
 */
import { isIP } from 'node:net';
import { orchServiceOf, type EndpointView, type PushContext, type Proxy, type Service, type ServicePort } from '../../../core/index.js';
import { isHttpPort } from './cluster-builder.js';
import { resolveListenerOptions, type SidecarListenerOptions } from './listener-options.js';
import { sidecarScope } from './sidecar-scope.js';

/** The VIP of a service for listeners (its first address), or undefined for a headless one. */
export function vip(svc: Service): string | undefined {
  const a = svc.addresses.find((x) => x !== '' && x !== '0.0.0.0');
  return a;
}

/**
 * The pod addresses a headless service's TCP, TLS or sniffed port gets listeners on (istiod's per-instance
 * listeners, PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS): undefined when the service is not headless
 * (resolution NONE without a VIP) or is a plain ServiceEntry (no workloadSelector) with no endpoints on
 * the port, which keeps `0.0.0.0_<port>`; else the distinct IP addresses of its endpoints on the port,
 * none for an orchestrator Service or selector ServiceEntry without endpoints (as istiod: "traffic will
 * never work", and a wildcard listener could conflict on a scale down). The proxy's own address is kept
 * here and dropped per proxy (see {@link withoutOwnPodListeners}), so that the set is shared.
 */
export function headlessPodBinds(ctx: PushContext, svc: Service, p: ServicePort, endpoints: EndpointView): readonly string[] | undefined {
  if (svc.resolution !== 'NONE' || vip(svc) !== undefined) return undefined;
  const ips = [...new Set(endpoints.instancesOf(svc).filter((i) => i.servicePort === p.port && isIP(i.address) !== 0).map((i) => i.address))];
  if (ips.length > 0) return ips;
  if (orchServiceOf(svc)) return [];
  const spec = ctx.configs.get(svc.source)?.spec as { workloadSelector?: unknown } | undefined;
  return spec?.workloadSelector !== undefined ? [] : undefined;
}

/**
 * The outbound listeners without the proxy's own headless pod listeners (istiod skips an instance at the
 * proxy's first IP: the app reaching itself by pod IP does not pass the outbound listener). `podListeners`
 * names the listeners built from pod addresses.
 */
export function withoutOwnPodListeners<T extends { name: string }>(listeners: readonly T[], podListeners: ReadonlySet<string>, proxy: Proxy): T[] {
  const own = proxy.ipAddresses[0];
  if (own === undefined || podListeners.size === 0) return [...listeners];
  return listeners.filter((l) => !(podListeners.has(l.name) && l.name.startsWith(`${own}_`) && !l.name.slice(own.length + 1).includes('_')));
}

/** Names of listeners that are headless pod listeners (their address is not the service's). */
export function podListenerNames(ctx: PushContext, proxy: Proxy, opts: { readonly listener?: SidecarListenerOptions; readonly endpoints?: EndpointView }): Set<string> {
  const out = new Set<string>();
  const o = resolveListenerOptions(opts.listener);
  if (!o.headlessPodListeners || !opts.endpoints) return out;
  for (const svc of sidecarScope(ctx, proxy).listenerServices) {
    for (const p of svc.ports) {
      if (isHttpPort(p)) continue;
      for (const ip of headlessPodBinds(ctx, svc, p, opts.endpoints) ?? []) out.add(`${ip}_${p.port}`);
    }
  }
  return out;
}
