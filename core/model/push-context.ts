/**
 * PushContext: an immutable snapshot of everything the generators read for a full push, built from
 * the collections and frozen before it is published. Endpoint-only changes do not rebuild it: EDS
 * reads the live endpoint index instead.
 */
import type { ConfigSnapshot } from '../collections/config-store.js';
import type { ServiceRegistrySnapshot } from '../collections/service-entry-view.js';
import type { Config } from './config.js';
import { keyStringOf } from './config.js';
import type { MeshConfig, MeshNetworks } from './mesh-config.js';
import { hostMatches, labelsMatch, resolveShortName, type Service } from './service.js';

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

/** The snapshot; see the file comment. Every method is a pure read. */
export class PushContext {
  readonly version: string;
  readonly meshConfig: MeshConfig;
  readonly networks: MeshNetworks;
  readonly domain: string;
  /** Every service, one per host name (oldest definition wins), sorted by host name. */
  readonly services: readonly Service[];
  readonly #servicesByHost: ReadonlyMap<string, Service>;
  readonly #configs: ConfigSnapshot;
  // NOTE: a lazily filled memo; the context itself stays frozen (a WeakMap entry is not a field write).
  readonly #wildcardVs = new WeakMap<PushContext, readonly { host: string; c: Config }[]>();
  // NOTE: memos of pure lookups (the context never changes), keyed `<from>\n<hostname>`; the push path
  // asks the same questions for every proxy of a namespace.
  readonly #vsMemo = new Map<string, Config | undefined>();
  readonly #drMemo = new Map<string, Config | undefined>();

  constructor(input: PushContextInput) {
    this.version = input.version;
    this.meshConfig = input.meshConfig;
    this.networks = input.networks;
    this.domain = input.domain;
    this.#configs = input.configs;
    const byHost = new Map<string, Service>();
    for (const s of input.registry.services.values()) {
      const have = byHost.get(s.hostname);
      if (!have || s.creationTimestamp < have.creationTimestamp || (s.creationTimestamp === have.creationTimestamp && s.source < have.source)) {
        byHost.set(s.hostname, s);
      }
    }
    this.#servicesByHost = byHost;
    this.services = Object.freeze([...byHost.values()].sort((a, b) => (a.hostname < b.hostname ? -1 : 1)));
    Object.freeze(this);
  }

  /** The config snapshot this context was built from. */
  get configs(): ConfigSnapshot {
    return this.#configs;
  }

  /** The service of a host name, if any. */
  service(hostname: string): Service | undefined {
    return this.#servicesByHost.get(hostname);
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
   * The DestinationRule for `hostname` as seen from namespace `from`: one in `from`, else one in the
   * service's namespace, else one in the root namespace, else any other visible one (oldest first).
   */
  destinationRule(hostname: string, from: string): Config | undefined {
    const key = `${from}\n${hostname}`;
    if (this.#drMemo.has(key)) return this.#drMemo.get(key);
    const dr = this.#findDestinationRule(hostname, from);
    this.#drMemo.set(key, dr);
    return dr;
  }

  #findDestinationRule(hostname: string, from: string): Config | undefined {
    const visible = this.#configs
      .byIndex('host', `DestinationRule/${hostname}`)
      .filter((c) =>
        visibleTo((c.spec as { exportTo?: string[] }).exportTo, this.meshConfig.defaultDestinationRuleExportTo, c.metadata.namespace, from),
      );
    if (visible.length === 0) return undefined;
    const svcNs = this.service(hostname)?.namespace;
    const order = [from, svcNs, this.meshConfig.rootNamespace];
    for (const ns of order) {
      const hit = visible.filter((c) => c.metadata.namespace === ns).sort(byAge)[0];
      if (hit) return hit;
    }
    return [...visible].sort(byAge)[0];
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
