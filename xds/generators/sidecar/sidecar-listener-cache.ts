/**
 * The LDS cache of the sidecar generator: the outbound service listeners (`0.0.0.0_<port>`,
 * `<vip>_<port>`, SNI and sniffed listeners) are built and encoded once per listener scope and shared
 * by every sidecar with the same inputs; `virtualInbound` (which reads the proxy's own ports and
 * PeerAuthentication) is built per proxy, `virtualOutbound` once per snapshot and scope (sidecar-generator.ts).
 *
 * What the outbound listeners read (buildOutboundListeners and the TCP/TLS chain builders): the proxy's
 * namespace only through the `tcp`/`tls` routes of VirtualServices (their visibility and `sourceNamespace`
 * matches) and the DestinationRules of source-IP hashes (a rule in the proxy's namespace wins): in the key when
 * any VirtualService has such a route or any rule such a hash, so that without them the sidecars of every
 * namespace whose scopes give the same listener services share one build; its labels only through `tcp`/`tls`
 * `sourceLabels` matches (in the key when any VirtualService has one), its Sidecar scope (the listener
 * services, in order, and the outbound mode: in the key as a digest), the services (ports, protocols,
 * addresses: dependencies `ServiceEntry/<ns>/<host>` of the listener services and of the tcp/tls route
 * destinations, whose ports pick the cluster), every VirtualService (`kind:VirtualService`), and the
 * DestinationRules of those services when any rule hashes on the source IP (a tcp_proxy hash policy: the
 * proxy's DestinationRule selection and route-hash.ts's sourceIpRulesKey in the key, the rules read as
 * dependencies; without such a rule no listener reads one). A mesh
 * config change is a full push naming nothing, which clears all. The entry is one cache value per
 * listener plus an index value (the names, in order, and the listener conflicts the build met, which a
 * hit reports again so the conflict gauges stay right).
 * The listener options (listener-options.ts) are process-wide, so they are not in the key; the proxy's own
 * metadata `HTTP10: "1"` is (it makes the HCMs accept HTTP/1.0). Headless pod listeners read the
 * endpoints of their services: an endpoint change of a listener service clears the entry (its
 * `ServiceEntry/<ns>/<host>` dependency) and the proxy's own pod listener is dropped per proxy, after the cache.
 */
import { createHash } from 'node:crypto';
import { definedFields, destinationRuleSources, resolveShortName, type PushContext, type PushSnapshot, type Proxy } from '../../../core/index.js';
import type { VirtualServiceSpec } from '../../../crds/index.js';
import type { XdsCache } from '../../cache/xds-cache.js';
import type { ConflictMetric, ConflictSink } from './conflict-recorder.js';
import { podListenerNames, withoutOwnPodListeners } from './headless-pod-listeners.js';
import { sourceIpRulesKey } from './route-hash.js';
import { buildOutboundListeners } from './outbound-listeners.js';
import { ipModeKey } from './listener-address.js';
import { proxyWantsHttp10, resolveListenerOptions, type SidecarListenerOptions } from './listener-options.js';
import { interceptionNone } from './outbound-entries.js';
import type { NetworkFilterOptions } from './tcp-listener-builder.js';
import { scopedServiceFor, type SidecarScope, scopedDestinationRule } from './sidecar-scope.js';

/** The index value of a cached listener set. */
interface ListenerIndex {
  readonly names: readonly string[];
  readonly conflicts: readonly (readonly [ConflictMetric, string])[];
  /** The names of headless pod listeners (the proxy's own is dropped per proxy). */
  readonly pods?: readonly string[];
}

/** What the VirtualServices' tcp and tls routes make the outbound listeners read of a proxy. */
interface L4RouteFacts {
  /** Some VirtualService has a tcp or tls route: its visibility and `sourceNamespace` matches depend on the proxy's namespace. */
  readonly any: boolean;
  /** Some such route matches on source labels: listeners differ per proxy labels. */
  readonly sourceLabels: boolean;
}

const l4Facts = new WeakMap<PushContext, L4RouteFacts>();

function l4RouteFacts(ctx: PushContext): L4RouteFacts {
  let known = l4Facts.get(ctx);
  if (known === undefined) {
    let any = false;
    let sourceLabels = false;
    for (const vs of ctx.configs.byIndex('kind', 'VirtualService')) {
      const spec = vs.spec as unknown as VirtualServiceSpec;
      const routes = [...(spec.tcp ?? []), ...(spec.tls ?? [])];
      any ||= routes.length > 0;
      sourceLabels ||= routes.some((r) => (r.match ?? []).some((m) => m.sourceLabels !== undefined));
    }
    known = { any, sourceLabels };
    l4Facts.set(ctx, known);
  }
  return known;
}

const scopeDigests = new WeakMap<SidecarScope, string>();

/** A digest of what a Sidecar scope gives the outbound listeners: the listener services, in order, and the outbound mode. */
function scopeDigest(scope: SidecarScope): string {
  let d = scopeDigests.get(scope);
  if (d === undefined) {
    const h = createHash('sha256').update(scope.outboundMode);
    for (const s of scope.listenerServices) h.update(`\n${s.source}/${s.hostname}`);
    // NOTE: egress listeners with ports or binds shape the listeners beyond the services they select.
    if (scope.egressDigest !== '') h.update(`\n${scope.egressDigest}`);
    d = h.digest('base64url');
    scopeDigests.set(scope, d);
  }
  return d;
}

/** The key prefix of a proxy's outbound listener set (see the file comment). */
export function sidecarListenerKey(ctx: PushContext, proxy: Proxy, scope: SidecarScope, listener?: SidecarListenerOptions): string {
  // NOTE: the proxy's HTTP10 metadata changes the HCMs only when PILOT_HTTP10 does not already.
  const http10 = proxyWantsHttp10(proxy) && !resolveListenerOptions(listener).http10 ? '|h10' : '';
  // NOTE: the proxy's IP mode picks the wildcard addresses (listener-address.ts); a proxy that does not intercept
  // binds every outbound listener at localhost (outbound-entries.ts).
  const none = interceptionNone(proxy) ? '|none' : '';
  // NOTE: a tcp_proxy carries a source-IP hash from the DestinationRule of its service (route-hash.ts).
  const ipRules = sourceIpRulesKey(ctx);
  const rules = ipRules === '' ? '' : `|dr:${ctx.destinationRuleSelection(proxy)}|${ipRules}`;
  const l4 = l4RouteFacts(ctx);
  // NOTE: '*' for the namespace: no tcp/tls route and no source-IP hash (whose DestinationRule the proxy's namespace
  // picks), so the listeners read nothing of the namespace beyond the scope.
  const ns = l4.any || ipRules !== '' ? proxy.namespace : '*';
  const base = `slds|${ns}|${scopeDigest(scope)}${http10}${ipModeKey(proxy)}${none}${rules}`;
  if (!l4.sourceLabels) return base;
  return `${base}|${Object.keys(proxy.labels).sort().map((k) => `${k}=${proxy.labels[k]}`).join(',')}`;
}

/**
 * The dependencies of a proxy's outbound listener set: its listener services, their tcp/tls destinations, every
 * VirtualService, and (when a rule hashes on the source IP) the DestinationRules of those services and destinations.
 */
export function sidecarListenerDependencies(ctx: PushContext, proxy: Proxy, scope: SidecarScope): string[] {
  const deps = new Set<string>(['kind:VirtualService']);
  const rules = sourceIpRulesKey(ctx) !== '';
  // NOTE: without a tcp/tls route no VirtualService names a destination of these listeners.
  const l4 = l4RouteFacts(ctx).any;
  const rule = (host: string): void => {
    const dr = rules ? scopedDestinationRule(ctx, proxy, host) : undefined;
    if (dr) for (const d of destinationRuleSources(dr)) deps.add(d);
  };
  for (const s of scope.listenerServices) {
    deps.add(`ServiceEntry/${s.namespace}/${s.hostname}`);
    rule(s.hostname);
    if (!l4) continue;
    const vs = ctx.virtualService(s.hostname, proxy.namespace);
    const spec = vs?.spec as unknown as VirtualServiceSpec | undefined;
    for (const r of [...(spec?.tcp ?? []), ...(spec?.tls ?? [])]) {
      for (const d of r.route ?? []) {
        const dest = scopedServiceFor(ctx, proxy, resolveShortName(d.destination.host, vs!.metadata.namespace, ctx.domain));
        if (dest) deps.add(`ServiceEntry/${dest.namespace}/${dest.hostname}`);
        if (dest) rule(dest.hostname);
      }
    }
  }
  return [...deps].sort();
}

/**
 * The encoded outbound listeners of a proxy, from the cache when every part of the entry is there, else
 * built (conflicts reported to `sink`), encoded and cached with the snapshot's `token`. In build order.
 */
export function cachedOutboundListeners(
  cache: XdsCache,
  ctx: PushContext,
  proxy: Proxy,
  scope: SidecarScope,
  snap: PushSnapshot,
  encode: (listener: Record<string, unknown>) => Uint8Array,
  sink?: ConflictSink,
  opts: { readonly listener?: SidecarListenerOptions } & NetworkFilterOptions = {},
): { name: string; body: Uint8Array }[] {
  const token = snap.token;
  const listener = opts.listener;
  const key = sidecarListenerKey(ctx, proxy, scope, listener);
  const indexBytes = cache.get(`${key}|#index`);
  if (indexBytes) {
    const index = JSON.parse(Buffer.from(indexBytes).toString('utf8')) as ListenerIndex;
    const bodies = index.names.map((n) => cache.get(`${key}|${n}`));
    if (bodies.every((b) => b !== undefined)) {
      for (const [metric, k] of index.conflicts) sink?.(metric, k);
      return withoutOwnPodListeners(index.names.map((name, i) => ({ name, body: bodies[i]! })), new Set(index.pods ?? []), proxy);
    }
  }
  const conflicts: [ConflictMetric, string][] = [];
  const build = { endpoints: snap.endpoints, ...definedFields(opts, ['redisFilter', 'mongoFilter', 'listener']) };
  const listeners = buildOutboundListeners(
    ctx,
    proxy,
    (metric, k) => {
      conflicts.push([metric, k]);
      sink?.(metric, k);
    },
    build,
  );
  const pods = podListenerNames(ctx, proxy, build);
  const deps = sidecarListenerDependencies(ctx, proxy, scope);
  const out = listeners.map((l) => ({ name: String(l['name']), body: encode(l) }));
  for (const o of out) cache.set(`${key}|${o.name}`, o.body, deps, token);
  const index: ListenerIndex = { names: out.map((o) => o.name), conflicts, ...(pods.size > 0 ? { pods: [...pods] } : {}) };
  cache.set(`${key}|#index`, Buffer.from(JSON.stringify(index), 'utf8'), deps, token);
  return withoutOwnPodListeners(out, pods, proxy);
}
