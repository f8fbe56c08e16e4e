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
  /** Hosts whose instances changed (a superset of nothing in particular; may overlap the above). */
  readonly endpointsChanged: ReadonlySet<string>;
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

/** Per-ServiceEntry output, keyed `<ServiceEntry key>#<host>`. */
interface Derived {
  readonly service: Service;
  readonly instances: readonly ServiceInstance[];
}

/** The derived services and instances. Both collections are keyed `<ServiceEntry key>#<host>` and indexed by `host`. */
export interface ServiceRegistrySnapshot {
  readonly services: CollectionSnapshot<Service>;
  readonly instances: CollectionSnapshot<readonly ServiceInstance[]>;
}

function healthOf(we: Config | undefined, labels: Readonly<Record<string, string>>, drainingLabel: string): HealthStatus {
  if (drainingLabel && labels[drainingLabel] !== undefined) return 'DRAINING';
  const conditions = (we?.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  const healthy = conditions?.find((c) => c.type === 'Healthy');
  if (healthy && healthy.status !== 'True') return 'UNHEALTHY';
  return 'HEALTHY';
}

/** Builds the services and instances of one ServiceEntry. */
export function deriveServiceEntry(se: Config, workloadEntries: readonly Config[], opts: ServiceEntryViewOptions): Map<string, Derived> {
  const spec = se.spec as SEShape;
  const ns = se.metadata.namespace;
  const seKey = keyStringOf(se);
  const ports: ServicePort[] = (spec.ports ?? []).map((p) => ({
    name: p.name ?? `port-${p.number}`,
    port: p.number,
    protocol: parseProtocol(p.protocol),
    ...(p.targetPort !== undefined ? { targetPort: p.targetPort } : {}),
  }));
  const workloads: { spec: WEShape; source: string; we?: Config }[] = [];
  for (const ep of spec.endpoints ?? []) workloads.push({ spec: ep, source: seKey });
  if (spec.workloadSelector) {
    for (const we of workloadEntries) {
      const wes = we.spec as WEShape;
      if (we.metadata.namespace === ns && labelsMatch(spec.workloadSelector.labels, wes.labels ?? {})) {
        workloads.push({ spec: wes, source: keyStringOf(we), we });
      }
    }
  }
  const out = new Map<string, Derived>();
  for (const rawHost of spec.hosts ?? []) {
    const hostname = resolveShortName(rawHost, ns, opts.domain);
    const service: Service = Object.freeze({
      hostname,
      namespace: ns,
      ports: Object.freeze(ports),
      resolution: (spec.resolution ?? 'NONE') as Resolution,
      location: (spec.location ?? 'MESH_EXTERNAL') as Location,
      labels: Object.freeze({ ...(se.metadata.labels ?? {}) }),
      addresses: Object.freeze([...(spec.addresses ?? [])]),
      exportTo: Object.freeze([...(spec.exportTo ?? ['*'])]),
      serviceAccounts: Object.freeze([...(spec.subjectAltNames ?? [])]),
      source: seKey,
      creationTimestamp: se.metadata.creationTimestamp ?? '',
    });
    const instances: ServiceInstance[] = [];
    for (const port of ports) {
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
    out.set(`${seKey}#${hostname}`, { service, instances: Object.freeze(instances) });
  }
  return out;
}

/** The ServiceEntry/WorkloadEntry registry view. */
export class ServiceEntryView {
  readonly #opts: ServiceEntryViewOptions;
  readonly #services = new IndexedCollection<Service>({ host: (s) => [s.hostname] });
  readonly #instances = new IndexedCollection<readonly ServiceInstance[]>({ host: (i) => (i[0] ? [i[0].hostname] : []) });
  /** ServiceEntry key -> the derived keys it produced last time. */
  readonly #produced = new Map<string, readonly string[]>();

  constructor(opts: ServiceEntryViewOptions) {
    this.#opts = opts;
  }

  get snapshot(): ServiceRegistrySnapshot {
    return { services: this.#services.snapshot, instances: this.#instances.snapshot };
  }

  /**
   * Recomputes after a config change. `touched` are the config keys that changed; `before` and
   * `after` the config snapshots around the change (WorkloadEntry label moves need both).
   */
  update(before: ConfigSnapshot, after: ConfigSnapshot, touched: ReadonlySet<string>): ServiceChange {
    const redo = new Set<string>();
    for (const key of touched) if (key.startsWith('ServiceEntry/')) redo.add(key);
    // WorkloadEntries: the ServiceEntries of their namespace whose selector matches the old or new labels.
    const movedByNs = new Map<string, Readonly<Record<string, string>>[]>();
    for (const key of touched) {
      if (!key.startsWith('WorkloadEntry/')) continue;
      for (const snap of [before, after]) {
        const we = snap.get(key);
        if (!we) continue;
        let list = movedByNs.get(we.metadata.namespace);
        if (!list) movedByNs.set(we.metadata.namespace, (list = []));
        list.push((we.spec as WEShape).labels ?? {});
      }
    }
    for (const [ns, labelSets] of movedByNs) {
      for (const se of after.byIndex('kindNamespace', `ServiceEntry/${ns}`)) {
        const key = keyStringOf(se);
        if (redo.has(key)) continue;
        const sel = (se.spec as SEShape).workloadSelector;
        if (sel && labelSets.some((l) => labelsMatch(sel.labels, l))) redo.add(key);
      }
    }
    const svcUpdates: { key: string; value?: Service }[] = [];
    const instUpdates: { key: string; value?: readonly ServiceInstance[] }[] = [];
    const wesByNs = new Map<string, readonly Config[]>();
    const wesOf = (ns: string): readonly Config[] => {
      let l = wesByNs.get(ns);
      if (!l) wesByNs.set(ns, (l = after.byIndex('kindNamespace', `WorkloadEntry/${ns}`)));
      return l;
    };
    for (const seKey of redo) {
      const se = after.get(seKey);
      const derived = se ? deriveServiceEntry(se, wesOf(se.metadata.namespace), this.#opts) : new Map<string, Derived>();
      for (const old of this.#produced.get(seKey) ?? []) {
        if (!derived.has(old)) {
          svcUpdates.push({ key: old });
          instUpdates.push({ key: old });
        }
      }
      for (const [k, d] of derived) {
        svcUpdates.push({ key: k, value: d.service });
        instUpdates.push({ key: k, value: d.instances });
      }
      if (derived.size > 0) this.#produced.set(seKey, [...derived.keys()]);
      else this.#produced.delete(seKey);
    }
    const sc = this.#services.apply(svcUpdates);
    const ic = this.#instances.apply(instUpdates);
    const hostOf = (k: string): string => k.slice(k.indexOf('#') + 1);
    return {
      servicesChanged: new Set([...sc.touched].map(hostOf)),
      endpointsChanged: new Set([...ic.touched].map(hostOf)),
    };
  }
}
