/**
 * The Orchestrator service registry: Services, EndpointSlices, Pods, Nodes and Namespaces from shared
 * informers. A Service becomes a generated ServiceEntry config holding its definition (hosts, ports,
 * addresses; no endpoints), and its endpoints go straight into the model's endpoint shard
 * `Orchestrator/<cluster>` of its host as `endpoints` inputs, so an endpoint change never passes
 * through the config store. With PILOT_ENABLE_SERVICEENTRY_SELECT_PODS pods also become WorkloadEntry
 * configs. Each change recomputes only the Services (and Pods) it can affect, and emits only what changed.
 *
 * Informer events that arrive together (in one turn of the event loop) are folded into one batch.
 * The first batch waits until every informer has listed once, so the first PushContext is complete.
 */
import type { KubernetesObject, V1EndpointSlice, V1Namespace, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import { combineLatest, filter, Observable, Subscription, take } from 'rxjs';
import {
  configKeyString,
  entryEndpointInstances,
  sameInstances,
  type Config,
  type ConfigEvent,
  type ModelInput,
  type ServiceInstance,
} from '../../core/index.js';
import { ORCH_RESOURCES, type Informer, type InformerEvent, type InformerFactory } from '../orch/index.js';
import { namespaceSelected, type LabelSelector } from './label-selector.js';
import {
  LOCALITY_LABELS,
  SERVICE_NAME_LABEL,
  serviceEntryFromService,
  serviceHostname,
  type OrchLookup,
  type OrchTranslationOptions,
  type TranslationStats,
} from './service-entry-from-service.js';
import { workloadEntryFromPod } from './workload-entry-from-pod.js';

/** The `type` label values of pilot_orch_reg_events. */
export const REGISTRY_EVENT_TYPES = ['Services', 'EndpointSlice', 'Pods', 'Nodes', 'Namespaces'] as const;
export type RegistryEventType = (typeof REGISTRY_EVENT_TYPES)[number];

/** The `event` label values of pilot_orch_reg_events and pilot_orch_cfg_events. */
export type OrchEventName = 'add' | 'update' | 'delete';

/** Maps an informer event type to the metric's `event` label. */
export function orchEventName(type: InformerEvent<KubernetesObject>['type']): OrchEventName {
  return type === 'added' ? 'add' : type === 'updated' ? 'update' : 'delete';
}

/** Metric hooks (the CLI maps them to `Metrics` handles). All optional. */
export interface OrchRegistryMetrics {
  /** pilot_orch_reg_events{type,event} */
  event?(type: RegistryEventType, event: OrchEventName): void;
  /** pilot_orch_endpoints_pending_pod */
  pendingPods?(count: number): void;
  /** endpoint_no_pod (current) */
  endpointsWithoutPod?(count: number): void;
  /** pilot_orch_endpoints_with_no_pods (counter; endpoints without a pod seen by each recompute) */
  endpointsWithNoPodsSeen?(count: number): void;
  /** pilot_no_ip: live pods that have no IP yet */
  podsWithoutIp?(count: number): void;
}

/** Options of {@link orchRegistry}. */
export interface OrchRegistryOptions extends OrchTranslationOptions {
  /** Shared informers (already restricted to MESH_WATCH_NAMESPACE by the factory). */
  readonly informers: InformerFactory;
  /** PILOT_ENABLE_SERVICEENTRY_SELECT_PODS */
  readonly selectPods: boolean;
  /** Mesh config `discoverySelectors`: namespaces outside them are ignored. Empty: every namespace. */
  readonly discoverySelectors: readonly LabelSelector[];
  /** Later values of the selectors (the mesh config changed); a different one recomputes everything. */
  readonly discoverySelectors$?: Observable<readonly LabelSelector[]>;
  /** WorkloadEntry config events (from the config source), for PILOT_ENABLE_ORCH_SELECT_WORKLOAD_ENTRIES. */
  readonly workloadEntries$?: Observable<ConfigEvent>;
  readonly metrics?: OrchRegistryMetrics;
}

const nsOf = (key: string): string => key.slice(0, key.indexOf('/'));

/** The shard key of this registry's endpoints of a host. */
export function orchShardKey(clusterId: string): string {
  return `Orchestrator/${clusterId}`;
}

/** A ServiceEntry endpoint as the translation wrote it (kept for ExternalName aliases). */
type EndpointSpec = Readonly<Record<string, unknown>>;

/** The config without its inline endpoints (they go to the endpoint shard instead). */
function withoutEndpoints(c: Config): { config: Config; endpoints: readonly EndpointSpec[] } {
  const { endpoints, ...spec } = c.spec as { endpoints?: EndpointSpec[] };
  return { config: { ...c, spec }, endpoints: endpoints ?? [] };
}

function localityKey(node: V1Node | undefined): string {
  const l = node?.metadata?.labels ?? {};
  return [l[LOCALITY_LABELS.region], l[LOCALITY_LABELS.zone], l[LOCALITY_LABELS.subZone]].join('/');
}

/** The registry's caches and what they generated. Not exported: {@link orchRegistry} is the interface. */
class RegistryState implements OrchLookup {
  readonly services = new Map<string, V1Service>();
  readonly servicesByNs = new Map<string, Set<string>>();
  readonly slices = new Map<string, V1EndpointSlice>();
  readonly slicesByService = new Map<string, Set<string>>();
  readonly pods = new Map<string, V1Pod>();
  readonly podsByIp = new Map<string, string>();
  readonly nodes = new Map<string, V1Node>();
  readonly namespaces = new Map<string, V1Namespace>();
  readonly wes = new Map<string, Map<string, Config>>();
  readonly dirtyServices = new Set<string>();
  readonly dirtyPods = new Set<string>();
  readonly emitted = new Map<string, { config: Config; json: string }>();
  /** Host -> the endpoints last emitted for it (instances in the shard, specs for aliases). */
  readonly endpointsByHost = new Map<string, { instances: readonly ServiceInstance[]; specs: readonly EndpointSpec[] }>();
  #resourceVersion = 0;
  readonly stats = new Map<string, TranslationStats>();
  /** Slice key -> the pods and addresses it names; `pod:<ns>/<name>` / `ip:<address>` -> slice key -> service key. */
  readonly sliceRefs = new Map<string, readonly string[]>();
  readonly refIndex = new Map<string, Map<string, string>>();
  /** Generated ServiceEntry key by host, and the ExternalName services aliasing each host. */
  readonly byHost = new Map<string, string>();
  readonly aliasesOf = new Map<string, Set<string>>();
  #aliasTarget: string | undefined;
  selectors: readonly LabelSelector[];

  constructor(readonly opts: OrchRegistryOptions) {
    this.selectors = opts.discoverySelectors;
  }

  pod(namespace: string, name: string): V1Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }
  podByIp(ip: string): V1Pod | undefined {
    const key = this.podsByIp.get(ip);
    return key ? this.pods.get(key) : undefined;
  }
  node(name: string): V1Node | undefined {
    return this.nodes.get(name);
  }
  namespace(name: string): V1Namespace | undefined {
    return this.namespaces.get(name);
  }
  workloadEntries(namespace: string): readonly Config[] {
    return [...(this.wes.get(namespace)?.values() ?? [])];
  }
  serviceEndpoints(hostname: string): readonly Readonly<Record<string, unknown>>[] | undefined {
    this.#aliasTarget = hostname;
    return this.byHost.has(hostname) ? (this.endpointsByHost.get(hostname)?.specs ?? []) : undefined;
  }

  selected(namespace: string): boolean {
    if (this.selectors.length === 0) return true;
    const ns = this.namespaces.get(namespace);
    return ns !== undefined && namespaceSelected(this.selectors, ns.metadata?.labels ?? {});
  }

  dirtyNamespace(ns: string): void {
    for (const k of this.servicesByNs.get(ns) ?? []) this.dirtyServices.add(k);
  }

  dirtyAll(): void {
    for (const k of this.services.keys()) this.dirtyServices.add(k);
    for (const k of this.pods.keys()) this.dirtyPods.add(k);
    // NOTE: generated configs whose source is gone are recomputed (and deleted) too.
    for (const c of this.emitted.values()) {
      const name = c.config.metadata.name.slice(c.config.metadata.name.indexOf(':') + 1);
      (c.config.kind === 'WorkloadEntry' ? this.dirtyPods : this.dirtyServices).add(`${c.config.metadata.namespace}/${name}`);
    }
  }

  applyService(e: InformerEvent<V1Service>): void {
    const ns = nsOf(e.key);
    let set = this.servicesByNs.get(ns);
    if (e.type === 'deleted') {
      this.services.delete(e.key);
      set?.delete(e.key);
    } else {
      this.services.set(e.key, e.object);
      if (!set) this.servicesByNs.set(ns, (set = new Set()));
      set.add(e.key);
    }
    this.dirtyServices.add(e.key);
  }

  applySlice(e: InformerEvent<V1EndpointSlice>): void {
    const owner = (s: V1EndpointSlice | undefined): string | undefined => {
      const svc = s?.metadata?.labels?.[SERVICE_NAME_LABEL];
      return svc ? `${nsOf(e.key)}/${svc}` : undefined;
    };
    const before = owner(this.slices.get(e.key));
    if (before) this.slicesByService.get(before)?.delete(e.key);
    for (const ref of this.sliceRefs.get(e.key) ?? []) this.refIndex.get(ref)?.delete(e.key);
    this.sliceRefs.delete(e.key);
    if (e.type === 'deleted') this.slices.delete(e.key);
    else {
      this.slices.set(e.key, e.object);
      const after = owner(e.object);
      if (after) {
        let set = this.slicesByService.get(after);
        if (!set) this.slicesByService.set(after, (set = new Set()));
        set.add(e.key);
        this.dirtyServices.add(after);
        const refs = new Set<string>();
        for (const ep of e.object.endpoints ?? []) {
          if (ep.targetRef?.kind === 'Pod' && ep.targetRef.name) refs.add(`pod:${ep.targetRef.namespace ?? nsOf(e.key)}/${ep.targetRef.name}`);
          for (const a of ep.addresses) refs.add(`ip:${a}`);
        }
        for (const ref of refs) {
          let m = this.refIndex.get(ref);
          if (!m) this.refIndex.set(ref, (m = new Map()));
          m.set(e.key, after);
        }
        this.sliceRefs.set(e.key, [...refs]);
      }
    }
    if (before) this.dirtyServices.add(before);
  }

  /** Dirties the services whose slices name `ref` (`pod:<ns>/<name>` or `ip:<address>`). */
  dirtyRef(ref: string): void {
    for (const svc of this.refIndex.get(ref)?.values() ?? []) this.dirtyServices.add(svc);
  }

  applyPod(e: InformerEvent<V1Pod>): void {
    const old = this.pods.get(e.key);
    const oldIp = old?.status?.podIP;
    if (oldIp && this.podsByIp.get(oldIp) === e.key) this.podsByIp.delete(oldIp);
    if (e.type === 'deleted') this.pods.delete(e.key);
    else {
      this.pods.set(e.key, e.object);
      const ip = e.object.status?.podIP;
      if (ip) this.podsByIp.set(ip, e.key);
    }
    this.dirtyPods.add(e.key);
    // NOTE: only services whose endpoints name this pod (or its old or new IP) can change.
    this.dirtyRef(`pod:${e.key}`);
    if (oldIp) this.dirtyRef(`ip:${oldIp}`);
    if (e.object.status?.podIP) this.dirtyRef(`ip:${e.object.status.podIP}`);
  }

  applyNode(e: InformerEvent<V1Node>): void {
    const old = this.nodes.get(e.key);
    if (e.type === 'deleted') this.nodes.delete(e.key);
    else this.nodes.set(e.key, e.object);
    // NOTE: nodes update their status every few seconds; only a locality change matters here.
    if (e.type === 'updated' && localityKey(old) === localityKey(e.object)) return;
    this.dirtyAll();
  }

  applyNamespace(e: InformerEvent<V1Namespace>): void {
    const old = this.namespaces.get(e.key);
    if (e.type === 'deleted') this.namespaces.delete(e.key);
    else this.namespaces.set(e.key, e.object);
    const before = old?.metadata?.labels ?? {};
    const after = e.type === 'deleted' ? {} : (e.object.metadata?.labels ?? {});
    if (JSON.stringify(before) === JSON.stringify(after) && e.type === 'updated') return;
    this.dirtyNamespace(e.key);
    for (const k of this.pods.keys()) if (nsOf(k) === e.key) this.dirtyPods.add(k);
  }

  applyWorkloadEntry(e: ConfigEvent): void {
    if (e.key.kind !== 'WorkloadEntry') return;
    let map = this.wes.get(e.key.namespace);
    if (!map) this.wes.set(e.key.namespace, (map = new Map()));
    if (e.type === 'deleted' || !e.object) map.delete(e.key.name);
    else map.set(e.key.name, e.object);
    if (this.opts.selectWorkloadEntries) this.dirtyNamespace(e.key.namespace);
  }

  /** Recomputes what is dirty and returns the inputs (config events, endpoint shards) of what changed. */
  flush(): ModelInput[] {
    const events: ModelInput[] = [];
    let noPodSeen = 0;
    // NOTE: a changed service dirties the ExternalName services aliasing it; rounds are bounded (alias cycles).
    for (let round = 0; round < 8 && this.dirtyServices.size > 0; round++) {
      const dirty = [...this.dirtyServices];
      this.dirtyServices.clear();
      for (const key of dirty) noPodSeen += this.#recomputeService(key, events);
    }
    this.dirtyServices.clear();
    for (const key of this.dirtyPods) {
      const ns = nsOf(key);
      const ckey = configKeyString({ kind: 'WorkloadEntry', namespace: ns, name: `orch:${key.slice(ns.length + 1)}` });
      const pod = this.pods.get(key);
      const nodeName = pod?.spec?.nodeName;
      const next = this.opts.selectPods && pod && this.selected(ns) ? workloadEntryFromPod(pod, nodeName ? this.nodes.get(nodeName) : undefined, this.opts.trustDomain) : undefined;
      this.diff(ckey, next, events);
    }
    this.dirtyPods.clear();
    this.report(noPodSeen);
    return events;
  }

  /** Recomputes one Service's config and endpoint shard; returns its endpoints without a pod. */
  #recomputeService(key: string, events: ModelInput[]): number {
    let noPodSeen = 0;
    const svc = this.services.get(key);
    const ns = nsOf(key);
    const name = key.slice(ns.length + 1);
    const ckey = configKeyString({ kind: 'ServiceEntry', namespace: ns, name: `orch:${name}` });
    let next: Config | undefined;
    let specs: readonly EndpointSpec[] = [];
    let instances: readonly ServiceInstance[] = [];
    for (const set of this.aliasesOf.values()) set.delete(key);
    if (svc && this.selected(ns)) {
      const slices = [...(this.slicesByService.get(key) ?? [])].map((k) => this.slices.get(k)!).filter((s) => s !== undefined);
      this.#aliasTarget = undefined;
      const t = serviceEntryFromService(svc, slices, this, this.opts);
      if (this.#aliasTarget !== undefined) {
        let set = this.aliasesOf.get(this.#aliasTarget);
        if (!set) this.aliasesOf.set(this.#aliasTarget, (set = new Set()));
        set.add(key);
      }
      const host = serviceHostname(name, ns, this.opts.domain);
      instances = entryEndpointInstances(t.config, { domain: this.opts.domain, drainingLabel: '' }).get(host) ?? [];
      ({ config: next, endpoints: specs } = withoutEndpoints(t.config));
      this.stats.set(key, t.stats);
      noPodSeen += t.stats.noPod;
    } else this.stats.delete(key);
    const host = serviceHostname(name, ns, this.opts.domain);
    const configChanged = this.diff(ckey, next, events);
    if (configChanged) {
      if (next) this.byHost.set(host, ckey);
      else this.byHost.delete(host);
    }
    // NOTE: the one comparison of this service's endpoints; the model folds only shards that changed.
    const prev = this.endpointsByHost.get(host);
    const endpointsChanged = !sameInstances(prev?.instances ?? [], instances);
    if (endpointsChanged) events.push({ kind: 'endpoints', hostname: host, shard: orchShardKey(this.opts.clusterId), instances });
    if (next) this.endpointsByHost.set(host, { instances, specs });
    else this.endpointsByHost.delete(host);
    if (configChanged || endpointsChanged) for (const alias of this.aliasesOf.get(host) ?? []) this.dirtyServices.add(alias);
    return noPodSeen;
  }

  /** Records `next` as the config of `ckey` and adds the event that says so; false when nothing changed. */
  diff(ckey: string, next: Config | undefined, events: ModelInput[]): boolean {
    const prev = this.emitted.get(ckey);
    const key = (c: Config): ConfigEvent['key'] => ({ kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name });
    // NOTE: generated configs carry a counter as their resourceVersion: a new value per emitted change.
    const resourceVersion = String(++this.#resourceVersion);
    if (!next) {
      if (!prev) return false;
      this.emitted.delete(ckey);
      events.push({ kind: 'config', event: { type: 'deleted', key: key(prev.config), object: prev.config, resourceVersion } });
      return true;
    }
    const json = JSON.stringify(next);
    if (prev?.json === json) return false;
    this.emitted.set(ckey, { config: next, json });
    events.push({ kind: 'config', event: { type: prev ? 'updated' : 'added', key: key(next), object: next, resourceVersion } });
    return true;
  }

  report(noPodSeen: number): void {
    const m = this.opts.metrics;
    if (!m) return;
    let pending = 0;
    let noPod = 0;
    for (const s of this.stats.values()) {
      pending += s.pendingPod;
      noPod += s.noPod;
    }
    m.pendingPods?.(pending);
    m.endpointsWithoutPod?.(noPod);
    if (noPodSeen > 0) m.endpointsWithNoPodsSeen?.(noPodSeen);
    let noIp = 0;
    for (const p of this.pods.values()) {
      const phase = p.status?.phase;
      if (!p.status?.podIP && phase !== 'Succeeded' && phase !== 'Failed') noIp += 1;
    }
    m.podsWithoutIp?.(noIp);
  }
}

/**
 * The registry as an Observable of input batches: one batch once every informer has listed (always
 * emitted, even empty), then one per change that altered a generated config. Unsubscribing stops the
 * informers' watches (when no one else shares them).
 */
export function orchRegistry(opts: OrchRegistryOptions): Observable<readonly ModelInput[]> {
  return new Observable<readonly ModelInput[]>((subscriber) => {
    const state = new RegistryState(opts);
    const f = opts.informers;
    const sources: readonly [RegistryEventType, Informer<KubernetesObject>, (e: InformerEvent<KubernetesObject>) => void][] = [
      ['Namespaces', f.informer(ORCH_RESOURCES.namespaces), (e) => state.applyNamespace(e as InformerEvent<V1Namespace>)],
      ['Nodes', f.informer(ORCH_RESOURCES.nodes), (e) => state.applyNode(e as InformerEvent<V1Node>)],
      ['Pods', f.informer(ORCH_RESOURCES.pods), (e) => state.applyPod(e as InformerEvent<V1Pod>)],
      ['Services', f.informer(ORCH_RESOURCES.services), (e) => state.applyService(e as InformerEvent<V1Service>)],
      ['EndpointSlice', f.informer(ORCH_RESOURCES.endpointSlices), (e) => state.applySlice(e as InformerEvent<V1EndpointSlice>)],
    ];
    let synced = false;
    let pending: NodeJS.Immediate | undefined;
    const flush = (always: boolean): void => {
      if (pending) clearImmediate(pending);
      pending = undefined;
      const inputs = state.flush();
      if (always || inputs.length > 0) subscriber.next(inputs);
    };
    // NOTE: events that arrive in one turn (a watch chunk, a relist) are folded together: one recompute
    // per dirty service and one batch for the model, not one per event.
    const later = (): void => {
      if (synced) pending ??= setImmediate(() => flush(false));
    };
    const subs = new Subscription();
    for (const [type, informer, apply] of sources) {
      subs.add(
        informer.subscribe((e) => {
          opts.metrics?.event?.(type, orchEventName(e.type));
          apply(e);
          later();
        }),
      );
    }
    if (opts.workloadEntries$) {
      subs.add(
        opts.workloadEntries$.subscribe((e) => {
          state.applyWorkloadEntry(e);
          later();
        }),
      );
    }
    if (opts.discoverySelectors$) {
      subs.add(
        opts.discoverySelectors$.subscribe((selectors) => {
          if (JSON.stringify(selectors) === JSON.stringify(state.selectors)) return;
          state.selectors = selectors;
          state.dirtyAll();
          later();
        }),
      );
    }
    subs.add(
      combineLatest(sources.map(([, informer]) => informer.synced$))
        .pipe(
          filter((all) => all.every(Boolean)),
          take(1),
        )
        .subscribe(() => {
          synced = true;
          state.dirtyAll();
          flush(true);
        }),
    );
    return () => {
      subs.unsubscribe();
      if (pending) clearImmediate(pending);
    };
  });
}
