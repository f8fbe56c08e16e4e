/**
 * PushContext: an immutable snapshot of everything the generators read for a full push, built from
 * the collections and frozen before it is published. Endpoint-only changes do not rebuild it: EDS
 * reads the live endpoint index instead.
 */
import type { ConfigSnapshot } from '../collections/config-store.js';
import type { ServiceRegistrySnapshot } from '../collections/service-entry-view.js';
import type { Config } from './config.js';
import { keyStringOf } from './config.js';
import { consolidateDestinationRules, destinationRuleExportTo, selectDestinationRule, type ConsolidatedDestinationRule } from './destination-rules.js';
import type { MeshConfig, MeshNetworks } from './mesh-config.js';
import { hostMatches, labelsMatch, resolveShortName, type Service } from './service.js';
import { chooseServices, NamespaceServiceChoice } from './service-choice.js';

/** Inputs of a build. */
export interface PushContextInput {
  readonly configs: ConfigSnapshot;
  readonly registry: ServiceRegistrySnapshot;
  readonly meshConfig: MeshConfig;
  readonly networks: MeshNetworks;
  readonly domain: string;
  /** A version string unique per build (the pipeline numbers them). */
  readonly version: string;
}

/** PeerAuthentication mTLS modes. */
export type MtlsMode = 'UNSET' | 'DISABLE' | 'PERMISSIVE' | 'STRICT';

/** Authorization policies that apply to one workload, split by action. */
export interface WorkloadAuthzPolicies {
  readonly allow: readonly Config[];
  readonly deny: readonly Config[];
  readonly audit: readonly Config[];
  readonly custom: readonly Config[];
}

interface Selector {
  selector?: { matchLabels?: Record<string, string> };
}

function byAge(a: Config, b: Config): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = keyStringOf(a);
  const kb = keyStringOf(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Whether an object with `exportTo` in namespace `ns` is visible from `from`. */
export function visibleTo(exportTo: readonly string[] | undefined, defaults: readonly string[], ns: string, from: string): boolean {
  const to = exportTo && exportTo.length > 0 ? exportTo : defaults;
  for (const e of to) {
    if (e === '*' || (e === '.' && ns === from) || e === from) return true;
  }
  return false;
}

/** Who asks for a DestinationRule: a proxy's namespace and its workload's labels. */
export interface DestinationRuleClient {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

interface DrSpec {
  exportTo?: string[];
  workloadSelector?: { matchLabels?: Record<string, string> };
}

/** A DestinationRule with a workloadSelector and its labels. */
interface DrSelecting {
  readonly rule: Config;
  readonly matchLabels: Readonly<Record<string, string>>;
}

const NO_DR: readonly ConsolidatedDestinationRule[] = Object.freeze([]);

/** A memoized lookup: the candidates, and the answer when it does not depend on the proxy's labels. */
type DrMemo = { readonly list: readonly ConsolidatedDestinationRule[] } | { readonly list: readonly ConsolidatedDestinationRule[]; readonly rule: Config | undefined };

function drSelector(c: Config): DrSpec['workloadSelector'] {
  return (c.spec as DrSpec).workloadSelector;
}

/** Whether a rule serves proxies of its own namespace (istiod's namespace-local index). */
function drLocal(c: Config): boolean {
  const to = destinationRuleExportTo(c);
  return to.size === 0 || to.has('*') || to.has('.') || to.has(c.metadata.namespace);
}

/** Whether a rule is exported to its own namespace only (with the mesh's default when it names none). */
function drPrivateOnly(c: Config, defaults: readonly string[]): boolean {
  const to = destinationRuleExportTo(c);
  if (to.size === 0) return defaults.includes('.');
  return to.size === 1 && (to.has('.') || to.has(c.metadata.namespace));
}

/** The DestinationRules of one namespace filed under one wildcard host (`*.ns.svc.cluster.local`, `*`). */
interface WildcardDrs {
  readonly host: string;
  /** The host without its leading `*` (`.ns.svc.cluster.local`, `''`): a host matches when it ends with it. */
  readonly suffix: string;
  readonly rules: readonly Config[];
}

/** istiod's `host.MoreSpecific` between wildcard hosts: the longer first, then alphabetical. */
function moreSpecificFirst(a: WildcardDrs, b: WildcardDrs): number {
  if (a.host.length !== b.host.length) return b.host.length - a.host.length;
  return a.host < b.host ? -1 : a.host > b.host ? 1 : 0;
}

/** Whether a consolidated exported rule is exported to namespace `from`. */
function drExportedTo(e: ConsolidatedDestinationRule, from: string): boolean {
  return e.exportTo.size === 0 || e.exportTo.has('*') || e.exportTo.has(from);
}

/** The snapshot; see the file comment. Every method is a pure read. */
export class PushContext {
  readonly version: string;
  readonly meshConfig: MeshConfig;
  readonly networks: MeshNetworks;
  readonly domain: string;
  /** Every service, one per host name (the mesh-wide choice: see chooseServices), sorted by host name. */
  readonly services: readonly Service[];
  readonly #servicesByHost: ReadonlyMap<string, Service>;
  // NOTE: the per proxy namespace choice of hosts several services declare (memoized per namespace inside).
  readonly #choice: NamespaceServiceChoice;
  readonly #configs: ConfigSnapshot;
  // NOTE: a lazily filled memo; the context itself stays frozen (a WeakMap entry is not a field write).
  readonly #wildcardVs = new WeakMap<PushContext, readonly { host: string; c: Config }[]>();
  // NOTE: per namespace, its DestinationRules for wildcard hosts, most specific host first (filled once, lazily).
  readonly #wildcardDrs = new WeakMap<PushContext, ReadonlyMap<string, readonly WildcardDrs[]>>();
  // NOTE: memos of pure lookups (the context never changes), keyed `<from>\n<hostname>`; the push path
  // asks the same questions for every proxy of a namespace.
  readonly #vsMemo = new Map<string, Config | undefined>();
  readonly #drMemo = new Map<string, DrMemo>();
  // NOTE: per namespace, its DestinationRules with a workloadSelector (oldest first); empty for most.
  readonly #drSelectorsByNs = new Map<string, readonly DrSelecting[]>();

  constructor(input: PushContextInput) {
    this.version = input.version;
    this.meshConfig = input.meshConfig;
    this.networks = input.networks;
    this.domain = input.domain;
    this.#configs = input.configs;
    this.#servicesByHost = chooseServices(input.registry.services.values());
    this.services = Object.freeze([...this.#servicesByHost.values()].sort((a, b) => (a.hostname < b.hostname ? -1 : 1)));
    this.#choice = new NamespaceServiceChoice(input.registry.services.values(), this.services, this.meshConfig.defaultServiceExportTo);
    Object.freeze(this);
  }

  /** The config snapshot this context was built from. */
  get configs(): ConfigSnapshot {
    return this.#configs;
  }

  /**
   * The mesh-wide service of a host name, if any (see chooseServices): for what involves no proxy. A proxy
   * resolves hosts with {@link serviceFor}.
   */
  service(hostname: string): Service | undefined {
    return this.#servicesByHost.get(hostname);
  }

  /**
   * The service of a host name as proxies of namespace `from` see it (istiod's `ServiceForHostname` through the
   * namespace's default Sidecar scope): when several services declare the host, `viewerChoice` of those visible
   * in the order private to `from`, exported to `from` by name, public (oldest first in each; `from`'s own
   * declaration first, an orchestrator Service over ServiceEntries), with the ports of the same-namespace
   * services it merges. A Sidecar may choose otherwise (sidecar-scope.ts). When none of them is
   * visible to `from`, or the host has one service, the mesh-wide {@link service} (callers check visibility).
   */
  serviceFor(hostname: string, from: string): Service | undefined {
    return this.#choice.serviceFor(hostname, from) ?? this.#servicesByHost.get(hostname);
  }

  /**
   * Every service declaring a host (several when ServiceEntries of several namespaces, or of one, share it),
   * oldest first; for a host one service declares, that service. For what belongs to a workload rather than a
   * viewer (the inbound side: the services its instances serve).
   */
  declarations(hostname: string): readonly Service[] {
    const shared = this.#choice.declarations(hostname);
    if (shared) return shared;
    const s = this.#servicesByHost.get(hostname);
    return s ? [s] : [];
  }

  /**
   * The services declaring a host several services declare that proxies of namespace `from` see, in the order they
   * see them (private, exported to `from` by name, public; oldest first in each); empty for other hosts. A Sidecar's
   * egress hosts choose among them (sidecar-scope.ts).
   */
  visibleDeclarations(hostname: string, from: string): readonly Service[] {
    return this.#choice.visibleDeclarations(hostname, from);
  }

  /** A declaration of a shared host as proxies are served it: with the ports of the same-namespace ones it merges. */
  servedDeclaration(s: Service): Service {
    return this.#choice.served(s);
  }

  /** The services proxies of namespace `from` see, one per host (their {@link serviceFor}), sorted by host name. Memoized. */
  servicesVisibleTo(from: string): readonly Service[] {
    return this.#choice.visibleTo(from);
  }

  /** Whether several services declare a host (then proxies of two namespaces may see different ones). */
  hostShared(hostname: string): boolean {
    return this.#choice.isShared(hostname);
  }

  /** Whether a service is visible to proxies of namespace `from`. */
  serviceVisible(s: Service, from: string): boolean {
    return visibleTo(s.exportTo, this.meshConfig.defaultServiceExportTo, s.namespace, from);
  }

  /** Number of VirtualServices known. */
  get virtualServiceCount(): number {
    return this.#configs.byIndex('kind', 'VirtualService').length;
  }

  /**
   * The VirtualService that routes `hostname` for a proxy in `from`: an exact host match wins over a
   * wildcard; among equals the oldest (then by key) wins, as Istio does for sidecars. VirtualServices
   * for gateways only (`gateways` set without `mesh`) are not considered.
   */
  virtualService(hostname: string, from: string): Config | undefined {
    const key = `${from}\n${hostname}`;
    if (this.#vsMemo.has(key)) return this.#vsMemo.get(key);
    const vs = this.#findVirtualService(hostname, from);
    this.#vsMemo.set(key, vs);
    return vs;
  }

  #findVirtualService(hostname: string, from: string): Config | undefined {
    // NOTE: a VirtualService bound to gateways applies to sidecars and proxyless clients only when it lists `mesh`.
    const visible = (c: Config): boolean => {
      const spec = c.spec as { exportTo?: string[]; gateways?: string[] };
      if (spec.gateways && spec.gateways.length > 0 && !spec.gateways.includes('mesh')) return false;
      return visibleTo(spec.exportTo, this.meshConfig.defaultVirtualServiceExportTo, c.metadata.namespace, from);
    };
    const exact = this.#configs.byIndex('host', `VirtualService/${hostname}`).filter(visible);
    if (exact.length > 0) return [...exact].sort(byAge)[0];
    let best: { c: Config; len: number } | undefined;
    for (const { host, c } of this.#wildcardVirtualServices()) {
      if (!hostMatches(host, hostname) || !visible(c)) continue;
      if (!best || host.length > best.len || (host.length === best.len && byAge(c, best.c) < 0)) best = { c, len: host.length };
    }
    return best?.c;
  }

  /** The wildcard hosts of every VirtualService, computed once per context. */
  #wildcardVirtualServices(): readonly { host: string; c: Config }[] {
    const known = this.#wildcardVs.get(this);
    if (known) return known;
    const list: { host: string; c: Config }[] = [];
    for (const c of this.#configs.byIndex('kind', 'VirtualService')) {
      for (const h of (c.spec as { hosts?: string[] }).hosts ?? []) {
        const host = resolveShortName(h, c.metadata.namespace, this.domain);
        if (host.startsWith('*')) list.push({ host, c });
      }
    }
    this.#wildcardVs.set(this, list);
    return list;
  }

  /**
   * The DestinationRule for `hostname` as a proxy sees it (istiod's `destinationRule` and the Sidecar
   * scope's `DestinationRule` for outbound traffic; destination-rules.ts). In each namespace looked at, the
   * rules of the most specific host that matches are taken: the exact host, else the longest matching
   * wildcard (`*.ns.svc.cluster.local`, `*.cluster.local`, `*`). The rules come from the first
   * of: the proxy's namespace (every rule there but those exported only elsewhere; for a proxy of the
   * root namespace only its private rules), the service's namespace (rules exported to the proxy's), the
   * root namespace (likewise), consolidated per namespace as istiod merges them. Of those, the first rule
   * of the proxy's namespace whose `workloadSelector` matches the proxy's labels wins, else the last
   * without a selector, else none: as istiod, a proxy that no selector picks does not fall back to
   * another namespace's rule when its own namespace holds a rule for the host. A merged rule is a copy
   * (`destinationRuleSources` names what it was made of). `serviceNamespace`: the namespace of the service the
   * proxy resolved the host to, when its Sidecar chose another declaration than the namespace's (sidecar-scope.ts).
   */
  destinationRule(hostname: string, client: DestinationRuleClient, serviceNamespace?: string): Config | undefined {
    const key = serviceNamespace === undefined ? `${client.namespace}\n${hostname}` : `${client.namespace}\n${hostname}\n${serviceNamespace}`;
    let m = this.#drMemo.get(key);
    if (!m) {
      const list = this.#destinationRuleCandidates(hostname, client.namespace, serviceNamespace);
      // NOTE: most hosts have no rule with a selector: their answer does not depend on the labels.
      const bySelector = list.some((e) => e.matchLabels !== undefined);
      m = bySelector ? { list } : { list, rule: selectDestinationRule(list, client.namespace, {}) };
      this.#drMemo.set(key, m);
    }
    return 'rule' in m ? m.rule : selectDestinationRule(m.list, client.namespace, client.labels);
  }

  /**
   * A key naming the DestinationRules with a `workloadSelector` that pick a proxy ('' for most proxies):
   * two proxies of one namespace with the same key get the same rule for every host, so what is built
   * from rules (clusters, load assignments, proxyless routes) may be shared between them.
   */
  destinationRuleSelection(client: DestinationRuleClient): string {
    let selecting = this.#drSelectorsByNs.get(client.namespace);
    if (!selecting) {
      selecting = this.#configs
        .byIndex('kindNamespace', `DestinationRule/${client.namespace}`)
        .filter((c) => drSelector(c) !== undefined)
        .sort(byAge)
        .map((rule) => ({ rule, matchLabels: drSelector(rule)!.matchLabels ?? {} }));
      this.#drSelectorsByNs.set(client.namespace, selecting);
    }
    if (selecting.length === 0) return '';
    return selecting
      .filter((s) => labelsMatch(s.matchLabels, client.labels))
      .map((s) => keyStringOf(s.rule))
      .join(',');
  }

  /**
   * pilot_destrule_subsets: the hosts whose DestinationRules, merged as istiod merges them (per namespace:
   * the rules it serves itself, the rules it exports, the root namespace's private rules), repeat a subset
   * name; a repeated subset keeps the first rule's definition.
   */
  duplicateSubsetHosts(): number {
    const groups = new Map<string, Config[]>();
    for (const c of this.#configs.byIndex('kind', 'DestinationRule')) {
      const key = `${c.metadata.namespace}\n${resolveShortName((c.spec as { host?: string }).host ?? '', c.metadata.namespace, this.domain)}`;
      const g = groups.get(key);
      if (g) g.push(c);
      else groups.set(key, [c]);
    }
    const root = this.meshConfig.rootNamespace;
    const defaults = this.meshConfig.defaultDestinationRuleExportTo;
    const hosts = new Set<string>();
    for (const [key, rules] of groups) {
      // NOTE: a subset repeats only where two rules of one namespace and host merge.
      if (rules.length < 2) continue;
      const host = key.slice(key.indexOf('\n') + 1);
      const ns = rules[0]!.metadata.namespace;
      const seen = (): void => void hosts.add(host);
      consolidateDestinationRules(rules.filter(drLocal), seen);
      consolidateDestinationRules(rules.filter((c) => !drPrivateOnly(c, defaults)), seen);
      if (ns === root) consolidateDestinationRules(rules.filter((c) => drPrivateOnly(c, defaults)), seen);
    }
    return hosts.size;
  }

  #destinationRuleCandidates(hostname: string, from: string, serviceNamespace?: string): readonly ConsolidatedDestinationRule[] {
    const exact = this.#configs.byIndex('host', `DestinationRule/${hostname}`);
    const wildcards = this.#wildcardDestinationRules();
    if (exact.length === 0 && wildcards.size === 0) return NO_DR;
    const root = this.meshConfig.rootNamespace;
    const defaults = this.meshConfig.defaultDestinationRuleExportTo;
    // NOTE: istiod's index of a namespace's own rules holds those exported to it (empty exportTo included,
    // whatever the default); a root-namespace proxy looks first at the root's private rules only.
    const local = this.#mostSpecificRules(hostname, from, exact, from === root ? (c) => drPrivateOnly(c, defaults) : drLocal);
    if (local.length > 0) return consolidateDestinationRules(local);
    const svcNs = serviceNamespace ?? this.serviceFor(hostname, from)?.namespace;
    for (const ns of svcNs !== undefined && svcNs !== root ? [svcNs, root] : [root]) {
      const exported = this.#mostSpecificRules(hostname, ns, exact, (c) => !drPrivateOnly(c, defaults));
      // NOTE: as istiod, consolidated first (over every rule the namespace exports for the host), then filtered
      // by the consolidated export set; a namespace whose most specific rules are not exported to `from` is
      // passed over (a less specific rule of that namespace is not tried).
      const visible = consolidateDestinationRules(exported).filter((e) => drExportedTo(e, from));
      if (visible.length > 0) return visible;
    }
    return NO_DR;
  }

  /**
   * The rules of namespace `ns` that `keep` admits (istiod's per-namespace index) for the most specific host
   * matching `hostname` (istiod's `MostSpecificHostMatch`): the exact host, else the longest matching
   * wildcard host (`*.ns.svc.cluster.local` before `*.cluster.local` before `*`; equal lengths
   * alphabetically). A wildcard `hostname` (a ServiceEntry's `*.example.com`) matches a rule of the same
   * host exactly, else a less specific wildcard, never a plain host.
   */
  #mostSpecificRules(hostname: string, ns: string, exact: readonly Config[], keep: (c: Config) => boolean): readonly Config[] {
    const own = exact.filter((c) => c.metadata.namespace === ns && keep(c));
    if (own.length > 0) return own;
    const needle = hostname.startsWith('*') ? hostname.slice(1) : hostname;
    for (const w of this.#wildcardDestinationRules().get(ns) ?? []) {
      if (!needle.endsWith(w.suffix)) continue;
      const rules = w.rules.filter(keep);
      if (rules.length > 0) return rules;
    }
    return [];
  }

  /** Per namespace, the DestinationRules of every wildcard host, most specific first; built once per context. */
  #wildcardDestinationRules(): ReadonlyMap<string, readonly WildcardDrs[]> {
    const known = this.#wildcardDrs.get(this);
    if (known) return known;
    const byNs = new Map<string, WildcardDrs[]>();
    for (const key of this.#configs.indexValues('host')) {
      if (!key.startsWith('DestinationRule/*')) continue;
      const host = key.slice('DestinationRule/'.length);
      const byRuleNs = new Map<string, Config[]>();
      for (const c of this.#configs.byIndex('host', key)) {
        const list = byRuleNs.get(c.metadata.namespace);
        if (list) list.push(c);
        else byRuleNs.set(c.metadata.namespace, [c]);
      }
      for (const [ns, rules] of byRuleNs) {
        const list = byNs.get(ns) ?? [];
        list.push({ host, suffix: host.slice(1), rules });
        byNs.set(ns, list);
      }
    }
    for (const list of byNs.values()) list.sort(moreSpecificFirst);
    this.#wildcardDrs.set(this, byNs);
    return byNs;
  }

  /** AuthorizationPolicies that apply to a workload: root-namespace ones and its namespace's, selector matched. */
  authorizationPolicies(namespace: string, labels: Readonly<Record<string, string>>): WorkloadAuthzPolicies {
    const root = this.meshConfig.rootNamespace;
    const all = [
      ...this.#configs.byIndex('kindNamespace', `AuthorizationPolicy/${root}`),
      ...(namespace === root ? [] : this.#configs.byIndex('kindNamespace', `AuthorizationPolicy/${namespace}`)),
    ].filter((c) => labelsMatch((c.spec as Selector).selector?.matchLabels, labels));
    const of = (action: string): Config[] =>
      all.filter((c) => ((c.spec as { action?: string }).action ?? 'ALLOW') === action).sort(byAge);
    return { allow: of('ALLOW'), deny: of('DENY'), audit: of('AUDIT'), custom: of('CUSTOM') };
  }

  /**
   * The effective PeerAuthentication mode for a workload (and port, when given): workload selector
   * policy, then namespace-wide, then mesh-wide (root namespace); UNSET inherits; default PERMISSIVE.
   */
  mtlsMode(namespace: string, labels: Readonly<Record<string, string>>, port?: number): MtlsMode {
    type PA = Selector & { mtls?: { mode?: MtlsMode }; portLevelMtls?: Record<string, { mode?: MtlsMode }> };
    const root = this.meshConfig.rootNamespace;
    const inNs = this.#configs.byIndex('kindNamespace', `PeerAuthentication/${namespace}`);
    const workload = inNs.filter((c) => (c.spec as PA).selector?.matchLabels && labelsMatch((c.spec as PA).selector?.matchLabels, labels)).sort(byAge)[0];
    const nsWide = inNs.filter((c) => !(c.spec as PA).selector?.matchLabels).sort(byAge)[0];
    const meshWide = this.#configs
      .byIndex('kindNamespace', `PeerAuthentication/${root}`)
      .filter((c) => !(c.spec as PA).selector?.matchLabels)
      .sort(byAge)[0];
    for (const c of [workload, nsWide, meshWide]) {
      if (!c) continue;
      const spec = c.spec as PA;
      const portMode = port !== undefined && c === workload ? spec.portLevelMtls?.[String(port)]?.mode : undefined;
      const mode = portMode && portMode !== 'UNSET' ? portMode : spec.mtls?.mode;
      if (mode && mode !== 'UNSET') return mode;
    }
    return 'PERMISSIVE';
  }

  /** SPIFFE identity of a service account: `spiffe://<trustDomain>/ns/<ns>/sa/<sa>`. */
  spiffeId(namespace: string, serviceAccount: string): string {
    return `spiffe://${this.meshConfig.trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
  }
}
