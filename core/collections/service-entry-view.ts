/**
 * Derived view: ServiceEntry (+ the WorkloadEntries its workloadSelector selects) -> services and
 * service instances. Recomputes only the ServiceEntries a change touched, and says whether a host's
 * service definition changed (full push) or only its endpoints (EDS-only push).
 */
import type { Config } from '../model/config.js';
import { keyStringOf } from '../model/config.js';
import {
  labelsMatch,
  parseLocality,
  parseProtocol,
  resolveShortName,
  type HealthStatus,
  type Location,
  type Resolution,
  type Service,
  type ServiceInstance,
  type ServicePort,
} from '../model/service.js';
import { EndpointShards, type EndpointIndex, type ShardUpdate } from '../model/endpoint-shards.js';
import type { ConfigSnapshot } from './config-store.js';
import { IndexedCollection, type CollectionSnapshot } from './indexed-collection.js';

/** Options of the view. */
export interface ServiceEntryViewOptions {
  readonly domain: string;
  /** PILOT_DRAINING_LABEL: endpoints carrying this label are DRAINING. Empty disables. */
  readonly drainingLabel: string;
}

/** What one recompute changed. */
export interface ServiceChange {
  /** Hosts whose service definition was added, changed or removed. */
  readonly servicesChanged: ReadonlySet<string>;
  /** Hosts whose instances changed (may overlap the above). */
  readonly endpointsChanged: ReadonlySet<string>;
  /** Endpoint shards rebuilt with different instances (`<host>|<shard key>`). */
  readonly shardsChanged: ReadonlySet<string>;
}

interface SEShape {
  hosts?: string[];
  addresses?: string[];
  ports?: { number: number; protocol?: string; name?: string; targetPort?: number }[];
  location?: string;
  resolution?: string;
  endpoints?: WEShape[];
  workloadSelector?: { labels?: Record<string, string> };
  exportTo?: string[];
  subjectAltNames?: string[];
}

interface WEShape {
  address?: string;
  ports?: Record<string, number>;
  labels?: Record<string, string>;
  network?: string;
  locality?: string;
  weight?: number;
  serviceAccount?: string;
}

/** The derived services and endpoints. Services are keyed `<ServiceEntry key>#<host>` and indexed by `host`. */
export interface ServiceRegistrySnapshot {
  readonly services: CollectionSnapshot<Service>;
  /** Endpoints in shards per host, one shard per declaring ServiceEntry (shard key: its config key). */
  readonly endpoints: EndpointIndex;
}

/** One workload of a ServiceEntry: an inline endpoint or a selected WorkloadEntry. */
interface Workload {
  readonly spec: WEShape;
  readonly source: string;
  readonly we?: Config;
}

/** What the view keeps of one ServiceEntry between changes. */
interface EntryState {
  readonly namespace: string;
  readonly hosts: readonly string[];
  readonly ports: readonly ServicePort[];
  readonly selector: Readonly<Record<string, string>> | undefined;
  /** The label (`k=v`, or `` for an empty selector) it is filed under in the selector index. */
  readonly selectorKey: string | undefined;
  readonly inline: readonly Workload[];
  /** Selected WorkloadEntries by config key. */
  readonly selected: Map<string, Workload>;
}

function healthOf(we: Config | undefined, labels: Readonly<Record<string, string>>, drainingLabel: string): HealthStatus {
  if (drainingLabel && labels[drainingLabel] !== undefined) return 'DRAINING';
  const conditions = (we?.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  const healthy = conditions?.find((c) => c.type === 'Healthy');
  if (healthy && healthy.status !== 'True') return 'UNHEALTHY';
  return 'HEALTHY';
}

function portsOf(spec: SEShape): ServicePort[] {
  return (spec.ports ?? []).map((p) => ({
    name: p.name ?? `port-${p.number}`,
    port: p.number,
    protocol: parseProtocol(p.protocol),
    ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
  }));
}

/** The services one ServiceEntry declares, keyed `<ServiceEntry key>#<host>`. */
export function servicesOfEntry(se: Config, opts: ServiceEntryViewOptions): Map<string, Service> {
  const spec = se.spec as SEShape;
  const ns = se.metadata.namespace;
  const seKey = keyStringOf(se);
  const ports = Object.freeze(portsOf(spec));
  const out = new Map<string, Service>();
  for (const rawHost of spec.hosts ?? []) {
    const hostname = resolveShortName(rawHost, ns, opts.domain);
    out.set(
      `${seKey}#${hostname}`,
      Object.freeze({
        hostname,
        namespace: ns,
        ports,
        resolution: (spec.resolution ?? 'NONE') as Resolution,
        location: (spec.location ?? 'MESH_EXTERNAL') as Location,
        labels: Object.freeze({ ...(se.metadata.labels ?? {}) }),
        addresses: Object.freeze([...(spec.addresses ?? [])]),
        exportTo: Object.freeze([...(spec.exportTo ?? ['*'])]),
        serviceAccounts: Object.freeze([...(spec.subjectAltNames ?? [])]),
        source: seKey,
        creationTimestamp: se.metadata.creationTimestamp ?? '',
        ...(spec.workloadSelector !== undefined ? { selectsWorkloads: true as const } : {}),
      }),
    );
  }
  return out;
}

/** The instances of one host of a ServiceEntry: every port times every workload (inline first, then selected by key). */
function instancesOf(hostname: string, e: EntryState, opts: ServiceEntryViewOptions): ServiceInstance[] {
  const workloads = [...e.inline, ...[...e.selected.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, w]) => w)];
  const instances: ServiceInstance[] = [];
  for (const port of e.ports) {
    for (const w of workloads) {
      if (!w.spec.address) continue;
      const labels = Object.freeze({ ...(w.spec.labels ?? {}) });
      instances.push(
        Object.freeze({
          hostname,
          servicePort: port.port,
          servicePortName: port.name,
          address: w.spec.address,
          port: w.spec.ports?.[port.name] ?? port.targetPort ?? port.port,
          labels,
          locality: Object.freeze(parseLocality(w.spec.locality)),
          weight: Math.max(1, w.spec.weight ?? 1),
          serviceAccount: w.spec.serviceAccount ?? '',
          network: w.spec.network ?? '',
          health: healthOf(w.we, labels, opts.drainingLabel),
          source: w.source,
        }),
      );
    }
  }
  return instances;
}

/**
 * The instances of a ServiceEntry's inline `endpoints` (its workload selector is not applied), by host:
 * what the view would serve for it, for registries that keep their endpoints in shards of their own.
 */
export function entryEndpointInstances(se: Config, opts: ServiceEntryViewOptions): Map<string, ServiceInstance[]> {
  const spec = se.spec as SEShape;
  const seKey = keyStringOf(se);
  const e: EntryState = {
    namespace: se.metadata.namespace,
    hosts: [],
    ports: portsOf(spec),
    selector: undefined,
    selectorKey: undefined,
    inline: (spec.endpoints ?? []).map((ep) => ({ spec: ep, source: seKey })),
    selected: new Map(),
  };
  const out = new Map<string, ServiceInstance[]>();
  for (const raw of spec.hosts ?? []) {
    const host = resolveShortName(raw, se.metadata.namespace, opts.domain);
    out.set(host, instancesOf(host, e, opts));
  }
  return out;
}

function selectorKeyOf(selector: Readonly<Record<string, string>> | undefined): string | undefined {
  if (!selector) return undefined;
  const first = Object.keys(selector).sort()[0];
  return first === undefined ? '' : `${first}=${selector[first]}`;
}

const namespaceOfKey = (key: string): string => key.split('/')[1] ?? '';

/**
 * The ServiceEntry/WorkloadEntry registry view. A ServiceEntry change recomputes its services and
 * shards; a WorkloadEntry change finds the ServiceEntries that selected it or select it now (through
 * an index of selectors by label) and rebuilds only their shards.
 */
export class ServiceEntryView {
  readonly #opts: ServiceEntryViewOptions;
  readonly #services = new IndexedCollection<Service>({ host: (s) => [s.hostname] });
  readonly #endpoints = new EndpointShards();
  readonly #entries = new Map<string, EntryState>();
  /** WorkloadEntry key -> the ServiceEntries that select it. */
  readonly #selectedBy = new Map<string, Set<string>>();
  /** Namespace -> selector label (`k=v`, `` for empty selectors) -> ServiceEntry keys. */
  readonly #selectors = new Map<string, Map<string, Set<string>>>();
  /** Namespace -> label `k=v` -> WorkloadEntry keys, and each WorkloadEntry's labels as filed. */
  readonly #workloadsByLabel = new Map<string, Map<string, Set<string>>>();
  readonly #workloadLabels = new Map<string, Readonly<Record<string, string>>>();

  constructor(opts: ServiceEntryViewOptions) {
    this.#opts = opts;
  }

  get snapshot(): ServiceRegistrySnapshot {
    return { services: this.#services.snapshot, endpoints: this.#endpoints.snapshot };
  }

  /**
   * Recomputes after a config change. `touched` are the config keys that changed; `before` and
   * `after` the config snapshots around the change. `shards` are endpoint shards that other registries
   * (the orchestrator's) replace directly; they are folded in the same batch (one endpoint version).
   */
  update(before: ConfigSnapshot, after: ConfigSnapshot, touched: ReadonlySet<string>, shards: readonly ShardUpdate[] = []): ServiceChange {
    void before; // NOTE: what a WorkloadEntry was selected by is kept in #selectedBy, not read back.
    const svcUpdates: { key: string; value?: Service }[] = [];
    const shardUpdates: ShardUpdate[] = shards.map((u) => this.#drained(u));
    const redone = new Set<string>();
    for (const key of touched) if (key.startsWith('WorkloadEntry/')) this.#fileWorkload(key, after.get(key));
    for (const key of touched) {
      if (!key.startsWith('ServiceEntry/')) continue;
      redone.add(key);
      this.#recomputeEntry(key, after, svcUpdates, shardUpdates);
    }
    const rebuild = new Set<string>();
    for (const key of touched) {
      if (!key.startsWith('WorkloadEntry/')) continue;
      const we = after.get(key);
      const ns = namespaceOfKey(key);
      const candidates = new Set(this.#selectedBy.get(key) ?? []);
      if (we) for (const seKey of this.#selectorCandidates(ns, (we.spec as WEShape).labels ?? {})) candidates.add(seKey);
      for (const seKey of candidates) {
        if (redone.has(seKey)) continue;
        const e = this.#entries.get(seKey);
        if (!e) continue;
        const matches = we !== undefined && we.metadata.namespace === e.namespace && labelsMatch(e.selector, (we.spec as WEShape).labels ?? {});
        if (matches) this.#select(seKey, e, key, we);
        else this.#unselect(seKey, e, key);
        rebuild.add(seKey);
      }
    }
    for (const seKey of rebuild) {
      const e = this.#entries.get(seKey)!;
      for (const host of e.hosts) shardUpdates.push({ hostname: host, shard: seKey, instances: instancesOf(host, e, this.#opts) });
    }
    const sc = this.#services.apply(svcUpdates);
    const ec = this.#endpoints.update(shardUpdates);
    const hostOf = (k: string): string => k.slice(k.indexOf('#') + 1);
    return { servicesChanged: new Set([...sc.touched].map(hostOf)), endpointsChanged: ec.hosts, shardsChanged: ec.shards };
  }

  #recomputeEntry(seKey: string, after: ConfigSnapshot, svcUpdates: { key: string; value?: Service }[], shardUpdates: ShardUpdate[]): void {
    const old = this.#entries.get(seKey);
    if (old) {
      for (const weKey of old.selected.keys()) this.#selectedBy.get(weKey)?.delete(seKey);
      if (old.selectorKey !== undefined) this.#selectors.get(old.namespace)?.get(old.selectorKey)?.delete(seKey);
      this.#entries.delete(seKey);
    }
    const se = after.get(seKey);
    const services = se ? servicesOfEntry(se, this.#opts) : new Map<string, Service>();
    for (const host of old?.hosts ?? []) if (!services.has(`${seKey}#${host}`)) svcUpdates.push({ key: `${seKey}#${host}` });
    for (const [k, svc] of services) svcUpdates.push({ key: k, value: svc });
    let entry: EntryState | undefined;
    if (se) {
      const spec = se.spec as SEShape;
      const selector = spec.workloadSelector ? (spec.workloadSelector.labels ?? {}) : undefined;
      entry = {
        namespace: se.metadata.namespace,
        hosts: [...services.values()].map((s) => s.hostname),
        ports: Object.freeze(portsOf(spec)),
        selector,
        selectorKey: selectorKeyOf(selector),
        inline: (spec.endpoints ?? []).map((ep) => ({ spec: ep, source: seKey })),
        selected: new Map(),
      };
      this.#entries.set(seKey, entry);
      if (entry.selectorKey !== undefined) {
        let byLabel = this.#selectors.get(entry.namespace);
        if (!byLabel) this.#selectors.set(entry.namespace, (byLabel = new Map()));
        let set = byLabel.get(entry.selectorKey);
        if (!set) byLabel.set(entry.selectorKey, (set = new Set()));
        set.add(seKey);
        // NOTE: only the WorkloadEntries carrying the selector's first label are candidates (all, for an empty selector).
        const candidates =
          entry.selectorKey === ''
            ? after.byIndex('kindNamespace', `WorkloadEntry/${entry.namespace}`).map((we) => keyStringOf(we))
            : [...(this.#workloadsByLabel.get(entry.namespace)?.get(entry.selectorKey) ?? [])];
        for (const weKey of candidates) {
          const we = after.get(weKey);
          if (we && labelsMatch(selector, (we.spec as WEShape).labels ?? {})) this.#select(seKey, entry, weKey, we);
        }
      }
    }
    for (const host of old?.hosts ?? []) if (!entry?.hosts.includes(host)) shardUpdates.push({ hostname: host, shard: seKey, instances: undefined });
    for (const host of entry?.hosts ?? []) shardUpdates.push({ hostname: host, shard: seKey, instances: instancesOf(host, entry!, this.#opts) });
  }

  /** ServiceEntries of `ns` whose selector may match `labels` (filed under one of its labels, or empty). */
  *#selectorCandidates(ns: string, labels: Readonly<Record<string, string>>): Iterable<string> {
    const byLabel = this.#selectors.get(ns);
    if (!byLabel) return;
    yield* byLabel.get('') ?? [];
    for (const k in labels) yield* byLabel.get(`${k}=${labels[k]}`) ?? [];
  }

  /** PILOT_DRAINING_LABEL on a registry's own shard: instances carrying the label are DRAINING. */
  #drained(u: ShardUpdate): ShardUpdate {
    const label = this.#opts.drainingLabel;
    if (!label || !u.instances?.some((i) => i.labels[label] !== undefined && i.health !== 'DRAINING')) return u;
    return { ...u, instances: u.instances.map((i) => (i.labels[label] !== undefined ? Object.freeze({ ...i, health: 'DRAINING' as const }) : i)) };
  }

  /** Refiles a WorkloadEntry in the label index under its current labels (none when deleted). */
  #fileWorkload(weKey: string, we: Config | undefined): void {
    const ns = namespaceOfKey(weKey);
    let byLabel = this.#workloadsByLabel.get(ns);
    for (const [k, v] of Object.entries(this.#workloadLabels.get(weKey) ?? {})) {
      const set = byLabel?.get(`${k}=${v}`);
      set?.delete(weKey);
      if (set?.size === 0) byLabel!.delete(`${k}=${v}`);
    }
    this.#workloadLabels.delete(weKey);
    if (!we) return;
    const labels = (we.spec as WEShape).labels ?? {};
    this.#workloadLabels.set(weKey, labels);
    if (!byLabel) this.#workloadsByLabel.set(ns, (byLabel = new Map()));
    for (const [k, v] of Object.entries(labels)) {
      let set = byLabel.get(`${k}=${v}`);
      if (!set) byLabel.set(`${k}=${v}`, (set = new Set()));
      set.add(weKey);
    }
  }

  #select(seKey: string, e: EntryState, weKey: string, we: Config): void {
    e.selected.set(weKey, { spec: we.spec as WEShape, source: weKey, we });
    let set = this.#selectedBy.get(weKey);
    if (!set) this.#selectedBy.set(weKey, (set = new Set()));
    set.add(seKey);
  }

  #unselect(seKey: string, e: EntryState, weKey: string): void {
    e.selected.delete(weKey);
    const set = this.#selectedBy.get(weKey);
    set?.delete(seKey);
    if (set?.size === 0) this.#selectedBy.delete(weKey);
  }
}
