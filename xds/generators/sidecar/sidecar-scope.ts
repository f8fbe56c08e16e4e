/**
 * The Sidecar resource that applies to a proxy and what it lets the proxy see (Istio's SidecarScope):
 * the oldest Sidecar in the proxy's namespace whose workloadSelector matches its labels, else the
 * namespace's Sidecar without selector, else the root namespace's. Its `egress[].hosts`
 * (`namespace/dnsName`, namespace `*` any, `.` the Sidecar's own, `~` none; dnsName `*`, `*.suffix` or
 * exact) narrow the services the proxy gets clusters, listeners and routes for; its
 * `outboundTrafficPolicy.mode` overrides the mesh's. Without a Sidecar a proxy sees every service exported to its namespace.
 * When an egress listener has a port, a `bind` or captureMode NONE, the scope also lists the egress listeners
 * (`egressListeners`): listeners are then built per egress listener (outbound-entries.ts) and route configuration
 * `<port>` takes the virtual hosts of the port's egress listener (`routeServices`), as istiod.
 */
import { hostMatches, labelsMatch, orchServiceOf, parseProtocol, resolveShortName, viewerChoice, type Config, type PushContext, type Proxy, type Service, type ServicePort } from '../../../core/index.js';
import type { SidecarEgressListener, SidecarSpec, VirtualServiceSpec } from '../../../crds/index.js';

/**
 * One Sidecar egress listener as the outbound listener builder reads it (istiod's IstioEgressListenerWrapper):
 * its port (none: the catch-all), where it binds and the services its hosts select.
 */
export interface EgressListenerScope {
  /** The egress listener's port; undefined for the catch-all (which takes every port of its services). */
  readonly port?: { readonly number: number; readonly protocol: ServicePort['protocol']; readonly name: string };
  /** `bind`, or 127.0.0.1 when the listener binds without one (captureMode NONE); undefined: the usual addresses (VIP or 0.0.0.0). */
  readonly bind?: string;
  /** captureMode NONE: the listeners bind their port (the app talks to the proxy directly), not reached through virtualOutbound. */
  readonly bindToPort: boolean;
  /** `bind: unix://<path>` (port 0): one listener on the socket for all its services (unix-egress.ts), routes `unix://<path>`. */
  readonly unix: boolean;
  /** The visible services its hosts select, in host order. */
  readonly services: readonly Service[];
}

/** The scope of one proxy. */
export interface SidecarScope {
  /** The Sidecar that applies, if any. */
  readonly sidecar: Config | undefined;
  /**
   * Services the proxy gets clusters (and endpoints) for, in host order: the egress hosts' and their VirtualServices'
   * destinations, each with only the ports the Sidecar takes of it (see scopePorts).
   */
  readonly services: readonly Service[];
  /**
   * Services the proxy gets outbound listeners and virtual hosts for, in host order: those the egress
   * hosts select (Istio's egress listener services). A service in `services` only as a VirtualService's
   * destination gets a cluster, not a listener or virtual host (as istiod: a request to it follows the
   * outbound traffic policy). Without a Sidecar, the same as `services`.
   */
  readonly listenerServices: readonly Service[];
  /** ALLOW_ANY or REGISTRY_ONLY, from the Sidecar or else the mesh config. */
  readonly outboundMode: 'ALLOW_ANY' | 'REGISTRY_ONLY';
  /**
   * True when a Sidecar's egress leaves some visible services out or has a listener that trims them to its port; only
   * then can the destinations of VirtualServices add to the scope, so only then can a VirtualService change which
   * clusters it has.
   */
  readonly narrowed: boolean;
  /** Whether the proxy's scope includes a service. */
  includes(svc: Service): boolean;
  /**
   * Whether the scope includes port `port` of a service: the service has it and, when an egress listener with a port
   * trims the service's ports (see scopePorts), kept it. NOTE: `serviceFor` returns the service whole, as its identity
   * is what other lookups key on; this is what says which of its ports the proxy gets clusters and endpoints for.
   */
  includesPort(svc: Service, port: number): boolean;
  /**
   * The service of a host name for this scope's proxies: for a host several services declare, the declaration the
   * Sidecar's egress hosts choose (see sidecarChoice), else the namespace's ({@link PushContext.serviceFor}).
   */
  serviceFor(hostname: string): Service | undefined;
  /**
   * The Sidecar's egress listeners when one of them has a port, a bind or captureMode NONE (istiod then builds
   * listeners per egress listener, see outbound-listeners.ts); undefined otherwise (every listener service on
   * every port of it, as without a Sidecar).
   */
  readonly egressListeners: readonly EgressListenerScope[] | undefined;
  /** A digest of `egressListeners` ('' when undefined), for the cache keys of what they shape. */
  readonly egressDigest: string;
  /**
   * The services whose virtual hosts route configuration `<port>` holds (istiod's GetEgressListenerForRDS): with
   * `egressListeners`, those of the first egress listener on the port, else of the catch-all (none without one);
   * otherwise the listener services.
   */
  routeServices(port: number): readonly Service[];
  /**
   * The services whose virtual hosts route configuration `unix://<path>` holds (istiod's GetEgressListenerForRDS
   * with port 0): those of the egress listener bound to that socket, else of the catch-all (none without one).
   */
  unixRouteServices(bind: string): readonly Service[];
}

/**
 * The egress listeners of a Sidecar (see SidecarScope.egressListeners), undefined when none has a port, a bind or
 * captureMode NONE. `selected[i]`: the services the hosts of egress listener i select.
 */
function egressListenersOf(egress: readonly SidecarEgressListener[], selected: readonly (readonly Service[])[]): EgressListenerScope[] | undefined {
  if (!egress.some((e) => e.port !== undefined || (e.bind ?? '') !== '' || e.captureMode === 'NONE')) return undefined;
  return egress.map((e, i) => {
    const bind = e.bind ?? '';
    const unix = bind.startsWith('unix://');
    // NOTE: as istiod, a unix socket bind also binds (there is no original destination to hand off from).
    const bindToPort = e.captureMode === 'NONE' || unix;
    return {
      ...(e.port?.number !== undefined ? { port: { number: e.port.number, protocol: parseProtocol(e.port.protocol), name: e.port.name ?? '' } } : {}),
      ...(bind !== '' ? { bind } : bindToPort ? { bind: '127.0.0.1' } : {}),
      bindToPort,
      unix,
      services: selected[i]!,
    };
  });
}

function byAge(a: Config, b: Config): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** The Sidecar that applies to a proxy (see the file comment). */
export function sidecarFor(ctx: PushContext, proxy: Proxy): Config | undefined {
  const selectorOf = (c: Config): Readonly<Record<string, string>> | undefined => (c.spec as SidecarSpec).workloadSelector?.labels;
  const inNs = [...ctx.configs.byIndex('kindNamespace', `Sidecar/${proxy.namespace}`)].sort(byAge);
  // NOTE: istiod gives a gateway (router) its namespace's default scope: no Sidecar selects it by labels.
  const labels = proxy.type === 'router' ? {} : proxy.labels;
  const selected = inNs.find((c) => {
    const sel = selectorOf(c);
    return sel !== undefined && Object.keys(sel).length > 0 && labelsMatch(sel, labels);
  });
  if (selected) return selected;
  const nsWide = inNs.find((c) => !selectorOf(c) || Object.keys(selectorOf(c)!).length === 0);
  if (nsWide) return nsWide;
  const root = ctx.meshConfig.rootNamespace;
  if (root === proxy.namespace) return undefined;
  return [...ctx.configs.byIndex('kindNamespace', `Sidecar/${root}`)].sort(byAge).find((c) => !selectorOf(c) || Object.keys(selectorOf(c)!).length === 0);
}

/** Whether an egress host (`ns/dnsName`) of a Sidecar in `sidecarNs` selects a service. */
export function egressHostSelects(entry: string, sidecarNs: string, svc: Service): boolean {
  const slash = entry.indexOf('/');
  const ns = slash < 0 ? '*' : entry.slice(0, slash);
  const host = slash < 0 ? entry : entry.slice(slash + 1);
  if (ns === '~') return false;
  if (ns !== '*' && (ns === '.' ? sidecarNs : ns) !== svc.namespace) return false;
  return host === '*' || hostMatches(host, svc.hostname);
}

/** Whether an HTTP route applies to sources in `ns` as far as its matches' `sourceNamespace` tells (istiod's filter). */
function routeSeesNamespace(matches: readonly { readonly sourceNamespace?: string }[] | undefined, ns: string): boolean {
  let seen = true;
  for (const m of matches ?? []) {
    if (!m.sourceNamespace) continue;
    if (m.sourceNamespace === ns) return true;
    seen = false;
  }
  return seen;
}

/**
 * The destination (and mirror) hosts of a VirtualService's HTTP, TCP and TLS routes (and of its delegates' HTTP routes),
 * as FQDNs, each with the ports its destinations name (0: a destination without a port, i.e. every port). HTTP routes
 * whose matches name other source namespaces than `sourceNs` are left out (istiod's
 * virtualServiceDestinationsFilteredBySourceNamespace).
 */
function destinationPorts(ctx: PushContext, vs: Config, sourceNs: string, out = new Map<string, Set<number>>(), depth = 0): Map<string, Set<number>> {
  const spec = vs.spec as unknown as VirtualServiceSpec;
  const add = (host: string, port: number | undefined): void => {
    const fqdn = resolveShortName(host, vs.metadata.namespace, ctx.domain);
    let ports = out.get(fqdn);
    if (!ports) out.set(fqdn, (ports = new Set()));
    ports.add(port ?? 0);
  };
  for (const r of spec.http ?? []) {
    if (!routeSeesNamespace(r.match, sourceNs)) continue;
    if (r.delegate && depth === 0) {
      const ns = r.delegate.namespace ?? vs.metadata.namespace;
      const child = ctx.configs.byIndex('kindNamespace', `VirtualService/${ns}`).find((c) => c.metadata.name === r.delegate!.name);
      if (child) destinationPorts(ctx, child, sourceNs, out, depth + 1);
    }
    for (const d of r.route ?? []) add(d.destination.host, d.destination.port?.number);
    if (r.mirror) add(r.mirror.host, r.mirror.port?.number);
    for (const m of r.mirrors ?? []) add(m.destination.host, m.destination.port?.number);
  }
  for (const r of [...(spec.tcp ?? []), ...(spec.tls ?? [])]) for (const d of r.route ?? []) add(d.destination.host, d.destination.port?.number);
  return out;
}

/** The port an egress listener trims its services to (istiod's needsPortMatch): its port, unless 0 (a unix socket) or HTTP_PROXY. */
function egressMatchPort(e: SidecarEgressListener): number | undefined {
  const n = e.port?.number;
  return n !== undefined && n !== 0 && (e.port?.protocol ?? '').toUpperCase() !== 'HTTP_PROXY' ? n : undefined;
}

/** The ports of each service in a scope: every port, or the listed ones. */
type ScopePorts = Map<Service, 'all' | Set<number>>;

/**
 * The services of a Sidecar's scope with the ports each brings (istiod's collectImportedServices): per egress listener
 * (none: one importing every host), the services its hosts select, then the destinations of their VirtualServices. A listener
 * with a port (egressMatchPort) keeps only that port of each (a service without it is left out); a destination brings
 * the ports the VirtualService names for it (every port when one of its destinations names none). What several
 * listeners bring of one service adds up.
 */
function scopePorts(
  ctx: PushContext,
  proxyNs: string,
  listeners: readonly SidecarEgressListener[],
  selectedBy: readonly (readonly Service[])[],
  visible: ReadonlySet<Service>,
  serviceFor: (host: string) => Service | undefined,
): ScopePorts {
  const out: ScopePorts = new Map();
  let whole = 0;
  const add = (svc: Service, ports: 'all' | readonly number[]): void => {
    const had = out.get(svc);
    if (had === 'all' || (ports !== 'all' && ports.length === 0)) return;
    if (ports === 'all') {
      out.set(svc, 'all');
      whole++;
    } else out.set(svc, new Set([...(had ?? []), ...ports]));
  };
  listeners.forEach((e, i) => {
    const match = egressMatchPort(e);
    const onMatch = (svc: Service): number[] => (svc.ports.some((p) => p.port === match) ? [match!] : []);
    const selected = selectedBy[i]!;
    for (const svc of selected) add(svc, match === undefined ? 'all' : onMatch(svc));
    // NOTE: as Istio, the destinations of the VirtualServices of selected hosts join the scope, so every route the
    // proxy gets names a cluster it also gets. Once every visible service has every port, they can add nothing.
    if (whole === visible.size) return;
    for (const svc of selected) {
      const vs = ctx.virtualService(svc.hostname, proxyNs);
      for (const [host, ports] of vs ? destinationPorts(ctx, vs, proxyNs) : []) {
        const dest = serviceFor(host);
        if (!dest || !visible.has(dest)) continue;
        if (match !== undefined) add(dest, onMatch(dest));
        else add(dest, ports.has(0) ? 'all' : dest.ports.filter((p) => ports.has(p.port)).map((p) => p.port));
      }
    }
  });
  return out;
}

/** A service with only `ports` of its ports (itself when that is all of them). */
function withPorts(svc: Service, ports: 'all' | ReadonlySet<number>): Service {
  if (ports === 'all' || svc.ports.every((p) => ports.has(p.port))) return svc;
  return { ...svc, ports: svc.ports.filter((p) => ports.has(p.port)) };
}

/**
 * The declarations a Sidecar's egress listeners choose for the hosts several services declare, where they differ
 * from the namespace's choice (istiod's SidecarScope: each egress listener selects among the services exported to
 * the namespace, the first listener's pick stays, an orchestrator Service replaces a ServiceEntry). A Sidecar without
 * egress imports every host of every namespace.
 */
function sidecarChoice(ctx: PushContext, proxyNs: string, sidecar: Config, visible: readonly Service[]): ReadonlyMap<string, Service> {
  const spec = sidecar.spec as SidecarSpec;
  const listeners = spec.egress && spec.egress.length > 0 ? spec.egress.map((e) => e.hosts ?? []) : [['*/*']];
  const out = new Map<string, Service>();
  for (const v of visible) {
    if (!ctx.hostShared(v.hostname)) continue;
    const candidates = ctx.visibleDeclarations(v.hostname, proxyNs);
    let pick: Service | undefined;
    for (const hosts of listeners) {
      const p = viewerChoice(candidates.filter((c) => hosts.some((h) => egressHostSelects(h, sidecar.metadata.namespace, c))), proxyNs);
      if (p && (!pick || (orchServiceOf(pick) === undefined && orchServiceOf(p) !== undefined))) pick = p;
    }
    const served = pick && ctx.servedDeclaration(pick);
    if (served && served !== v) out.set(v.hostname, served);
  }
  return out;
}

const memo = new WeakMap<PushContext, Map<string, SidecarScope>>();
const labelsKeys = new WeakMap<Readonly<Record<string, string>>, string>();
/** Each proxy's last scope with what it was looked up by (a push asks for it several times per proxy). */
const lastScope = new WeakMap<Proxy, { readonly ctx: PushContext; readonly namespace: string; readonly labels: Proxy['labels']; readonly scope: SidecarScope }>();

/**
 * The scope of a proxy, memoized per PushContext, namespace and labels; proxies of one namespace under
 * the same Sidecar (or none) share one scope object, so that what is built per scope (see
 * scope-memo.ts) is built once for all of them.
 */
export function sidecarScope(ctx: PushContext, proxy: Proxy): SidecarScope {
  // NOTE: labels by identity, as labelsKeys: a proxy whose labels change gets a new labels object.
  const last = lastScope.get(proxy);
  if (last && last.ctx === ctx && last.namespace === proxy.namespace && last.labels === proxy.labels) return last.scope;
  const scope = lookUpScope(ctx, proxy);
  lastScope.set(proxy, { ctx, namespace: proxy.namespace, labels: proxy.labels, scope });
  return scope;
}

function lookUpScope(ctx: PushContext, proxy: Proxy): SidecarScope {
  let perCtx = memo.get(ctx);
  if (!perCtx) memo.set(ctx, (perCtx = new Map()));
  let labels = labelsKeys.get(proxy.labels);
  if (labels === undefined) labelsKeys.set(proxy.labels, (labels = JSON.stringify(Object.entries(proxy.labels).sort())));
  const key = `${proxy.namespace}\n${labels}`;
  const known = perCtx.get(key);
  if (known) return known;
  const sidecar = sidecarFor(ctx, proxy);
  // NOTE: the scope depends on the proxy only through its namespace and the Sidecar that applies.
  const sharedKey = `${proxy.namespace}\n\n${sidecar ? `${sidecar.metadata.namespace}/${sidecar.metadata.name}` : '-'}`;
  const shared = perCtx.get(sharedKey);
  if (shared) {
    perCtx.set(key, shared);
    return shared;
  }
  const spec = sidecar?.spec as SidecarSpec | undefined;
  const chosen = sidecar ? sidecarChoice(ctx, proxy.namespace, sidecar, ctx.servicesVisibleTo(proxy.namespace)) : undefined;
  const visible = chosen && chosen.size > 0 ? ctx.servicesVisibleTo(proxy.namespace).map((v) => chosen.get(v.hostname) ?? v) : ctx.servicesVisibleTo(proxy.namespace);
  const serviceFor = (hostname: string): Service | undefined => chosen?.get(hostname) ?? ctx.serviceFor(hostname, proxy.namespace);
  const visibleSet = new Set(visible);
  // NOTE: without egress a Sidecar imports every host, as one egress listener of `*/*`.
  const egress = spec?.egress ?? [];
  const listeners: readonly SidecarEgressListener[] = egress.length > 0 ? egress : [{ hosts: ['*/*'] }];
  const selectedBy = sidecar ? listeners.map((e) => visible.filter((s) => (e.hosts ?? []).some((h) => egressHostSelects(h, sidecar.metadata.namespace, s)))) : [visible];
  const selectedAll = new Set(selectedBy.flat());
  const scoped = egress.length > 0 ? visible.filter((s) => selectedAll.has(s)) : visible;
  const ports = sidecar ? scopePorts(ctx, proxy.namespace, listeners, selectedBy, visibleSet, serviceFor) : undefined;
  const services = ports ? visible.filter((s) => ports.has(s)).map((s) => withPorts(s, ports.get(s)!)) : visible;
  const egressListeners = sidecar ? egressListenersOf(egress, selectedBy) : undefined;
  const egressDigest = egressListeners
    ? JSON.stringify(egressListeners.map((e) => [e.port ?? null, e.bind ?? null, e.bindToPort, e.services.map((x) => `${x.namespace}/${x.hostname}`)]))
    : '';
  const byRoutePort = new Map<number, readonly Service[]>();
  const routeServices = (port: number): readonly Service[] => {
    if (!egressListeners) return scoped;
    let known = byRoutePort.get(port);
    if (!known) {
      const own = egressListeners.find((e) => !e.unix && e.port?.number === port) ?? egressListeners.find((e) => !e.unix && e.port === undefined);
      byRoutePort.set(port, (known = own?.services ?? []));
    }
    return known;
  };
  const unixRouteServices = (bind: string): readonly Service[] =>
    (egressListeners?.find((e) => e.unix && e.bind === bind) ?? egressListeners?.find((e) => !e.unix && e.port === undefined))?.services ?? [];
  const scope: SidecarScope = {
    sidecar,
    services,
    listenerServices: scoped,
    outboundMode: spec?.outboundTrafficPolicy?.mode ?? ctx.meshConfig.outboundTrafficPolicy.mode,
    narrowed: scoped.length < visible.length || egress.some((e) => egressMatchPort(e) !== undefined),
    includes: ports ? (svc) => ports.has(svc) : (svc) => visibleSet.has(svc),
    includesPort: (svc, port) => {
      const kept = ports ? ports.get(svc) : visibleSet.has(svc) ? 'all' : undefined;
      return kept === 'all' ? svc.ports.some((p) => p.port === port) : kept !== undefined && kept.has(port);
    },
    serviceFor,
    egressListeners,
    egressDigest,
    routeServices,
    unixRouteServices,
  };
  perCtx.set(key, scope);
  perCtx.set(sharedKey, scope);
  return scope;
}

/**
 * The service of a host name for a proxy: its scope's choice ({@link SidecarScope.serviceFor}). Only a host several
 * services declare can differ from the namespace's choice, so other hosts skip the scope lookup.
 */
export function scopedServiceFor(ctx: PushContext, proxy: Proxy, hostname: string): Service | undefined {
  return ctx.hostShared(hostname) ? sidecarScope(ctx, proxy).serviceFor(hostname) : ctx.serviceFor(hostname, proxy.namespace);
}

/**
 * The DestinationRule of a host for a proxy (PushContext.destinationRule), looked up with the namespace of the service
 * its scope resolves the host to when its Sidecar chose another declaration than the namespace's (istiod's Sidecar
 * scope reads the rules of the chosen service's namespace).
 */
export function scopedDestinationRule(ctx: PushContext, proxy: Proxy, hostname: string): Config | undefined {
  if (!ctx.hostShared(hostname)) return ctx.destinationRule(hostname, proxy);
  const svc = sidecarScope(ctx, proxy).serviceFor(hostname);
  return svc && svc !== ctx.serviceFor(hostname, proxy.namespace) ? ctx.destinationRule(hostname, proxy, svc.namespace) : ctx.destinationRule(hostname, proxy);
}
