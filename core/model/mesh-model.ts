/**
 * MeshModel: the read side of meshd in one place. It folds source events into the collections at
 * once, turns each batch into a PushRequest naming what changed, debounces those, rebuilds the
 * PushContext for full pushes, and emits the merged requests for the transport.
 *
 * ```
 * inputs$ -> fold (ConfigStore, ServiceEntryView) -> PushRequest pieces -> debouncePushes
 *         -> (full? rebuild PushContext) -> publish a PushSnapshot -> push requests$ (each carrying it)
 * ```
 */
import { Observable, filter, map } from 'rxjs';
import { clockScheduler, systemClock, type Clock } from '../clock/index.js';
import { ConfigStore } from '../collections/config-store.js';
import { ServiceEntryView } from '../collections/service-entry-view.js';
import { debouncePushes } from '../rx/debounce.js';
import { parseConfigKey, type ConfigEvent } from './config.js';
import type { ConfigKey } from './config-key.js';
import { defaultMeshConfig, defaultMeshNetworks, type MeshConfig, type MeshNetworks } from './mesh-config.js';
import { PushContext } from './push-context.js';
import { mergePushRequests, pushRequest, PUSH_REASONS, withSnapshot, type PushReason, type PushRequest } from './push-request.js';
import type { EndpointIndex, ShardUpdate } from './endpoint-shards.js';
import { servedEndpoints } from './served-endpoints.js';
import type { PushSnapshot } from './push-snapshot.js';
import type { ServiceInstance } from './service.js';
import type { Env } from '../env/index.js';

/** One input event. All are plain JSON, so a log of them can be recorded and replayed. */
export type ModelInput =
  | { readonly kind: 'config'; readonly event: ConfigEvent }
  /**
   * The new instances of one endpoint shard (a registry's endpoints of one service host, e.g. the
   * orchestrator's `Orchestrator/<cluster>` shard); empty removes the shard. Folded in place, without
   * passing through a config.
   */
  | { readonly kind: 'endpoints'; readonly hostname: string; readonly shard: string; readonly instances: readonly ServiceInstance[] }
  | { readonly kind: 'meshConfig'; readonly meshConfig: MeshConfig }
  | { readonly kind: 'networks'; readonly networks: MeshNetworks };

/** Metric hooks (the CLI maps them to `Metrics` handles). All optional. */
export interface ModelMetrics {
  /** pilot_inbound_updates{type}: one per input event; type `config`, `eds`, `svc` or `mesh`. */
  inboundUpdate?(type: 'config' | 'eds' | 'svc' | 'mesh'): void;
  /** pilot_push_triggers{type}: per reason of each debounced request. */
  pushTrigger?(reason: PushReason, count: number): void;
  /** pilot_debounce_time, in seconds. */
  debounceTime?(seconds: number): void;
  /** pilot_pushcontext_init_seconds. */
  pushContextInit?(seconds: number): void;
  /** pilot_services and pilot_virt_services after each rebuild. */
  counts?(services: number, virtualServices: number): void;
  /** pilot_eds_no_instances: services of the latest PushContext with no instance, after each change to either. */
  servicesWithoutInstances?(count: number): void;
  /** pilot_destrule_subsets: hosts whose merged DestinationRules repeat a subset name, after each rebuild. */
  duplicateSubsets?(hosts: number): void;
}

/** Options of MeshModel. Durations in milliseconds. */
export interface MeshModelOptions {
  readonly domain: string;
  readonly drainingLabel: string;
  readonly debounceAfter: number;
  readonly debounceMax: number;
  readonly enableEdsDebounce: boolean;
  /**
   * MESH_ENABLE_OPTIMIZED_SERVICE_PUSH (default true): a ServiceEntry update pushes only when the services
   * or endpoints it yields change. False: every ServiceEntry update pushes (annotation-only changes too).
   */
  readonly optimizedServicePush?: boolean;
  /**
   * Whether a headless service's endpoints shape listeners (Envoy sidecars get one per pod with
   * PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS): then an endpoint change of a service with resolution NONE
   * and no address is a full push naming the service (as istiod), not EDS only. Default false.
   */
  readonly headlessEndpointsShapeListeners?: boolean;
  readonly meshConfig?: MeshConfig;
  readonly networks?: MeshNetworks;
  readonly metrics?: ModelMetrics;
  /**
   * The clock of the pipeline (default the system clock): it stamps each request's `start` and runs the
   * debounce timers (through `clockScheduler`), so a ManualClock replays a recorded log with the same
   * debounce decisions. Snapshots are stamped with its wall clock.
   */
  readonly clock?: Clock;
  /**
   * Called when folding a batch throws (a bug, not bad input: sources validate first). The batch is
   * dropped and the pipeline keeps running. Without it the error ends the pipeline.
   */
  readonly onError?: (err: unknown, inputs: readonly ModelInput[]) => void;
}

/** See the file comment. */
export class MeshModel {
  readonly #opts: MeshModelOptions;
  readonly #configs: ConfigStore;
  readonly #services: ServiceEntryView;
  #meshConfig: MeshConfig;
  #networks: MeshNetworks;
  #context: PushContext;
  #builds = 0;
  /** Hosts of `#emptyOf`'s services with no instance (for pilot_eds_no_instances). */
  #empty = new Set<string>();
  #emptyOf: PushContext | undefined;
  #snapshot: PushSnapshot;
  /** Input batches `apply` turned into a request (by `pushes`), numbered; see `unpublished`. */
  #applied = 0;
  /** `#applied` at the latest full request. */
  #appliedFull = 0;
  /** How many of the `#applied` requests the published snapshot covers. */
  #published = 0;
  readonly #clock: Clock;
  readonly #scheduler: ReturnType<typeof clockScheduler>;

  constructor(opts: MeshModelOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    // NOTE: debounce timers keep the process alive, as rxjs's asyncScheduler did (a pending push must happen).
    this.#scheduler = clockScheduler(this.#clock, { keepAlive: true });
    this.#configs = new ConfigStore({ domain: opts.domain });
    this.#services = new ServiceEntryView({ domain: opts.domain, drainingLabel: opts.drainingLabel });
    this.#meshConfig = opts.meshConfig ?? defaultMeshConfig();
    this.#networks = opts.networks ?? defaultMeshNetworks();
    this.#context = this.#build();
    this.#snapshot = { token: 0, pushContext: this.#context, endpoints: servedEndpoints(this.#context, this.endpoints) };
  }

  /**
   * The newest published snapshot: the one the latest emitted push carries (or the one `rebuild` made).
   * A proxy's own request (first request, new subscription) is answered from it.
   */
  get snapshot(): PushSnapshot {
    return this.#snapshot;
  }

  /**
   * How many applied input batches (ones that called for a push) the published snapshot does not cover
   * yet: they are folded into the collections but wait in the debouncer. 0 means `snapshot` reflects
   * every input `pushes` has seen (also when the inputs called for no push, e.g. an empty config).
   */
  get unpublished(): number {
    return this.#applied - this.#published;
  }

  /** The latest published PushContext (frozen). */
  get pushContext(): PushContext {
    return this.#context;
  }

  /**
   * The endpoints as of the latest applied batch (not debounced, not part of PushContext): an immutable
   * snapshot that later batches do not change. Taking it is O(1).
   */
  get endpoints(): EndpointIndex {
    return this.#services.snapshot.endpoints;
  }

  /** The current mesh config (applied at once, published with the next full push). */
  get meshConfig(): MeshConfig {
    return this.#meshConfig;
  }

  /**
   * Folds a batch of inputs into the collections and returns the request they call for, or
   * undefined when nothing changed.
   */
  apply(inputs: readonly ModelInput[]): PushRequest | undefined {
    const now = this.#now();
    let req: PushRequest | undefined;
    const events: ConfigEvent[] = [];
    const shards: ShardUpdate[] = [];
    for (const i of inputs) {
      if (i.kind === 'config') {
        events.push(i.event);
        this.#opts.metrics?.inboundUpdate?.('config');
      } else if (i.kind === 'endpoints') {
        shards.push({ hostname: i.hostname, shard: i.shard, instances: i.instances });
      } else if (i.kind === 'meshConfig') {
        this.#meshConfig = i.meshConfig;
        this.#opts.metrics?.inboundUpdate?.('mesh');
        req = mergePushRequests(req, pushRequest('global', { full: true, start: now }));
      } else {
        this.#networks = i.networks;
        this.#opts.metrics?.inboundUpdate?.('mesh');
        req = mergePushRequests(req, pushRequest('networks', { full: true, start: now }));
      }
    }
    if (events.length === 0 && shards.length === 0) return req;
    const change = events.length > 0 ? this.#configs.apply(events) : undefined;
    const touched: ReadonlySet<string> = change?.touched ?? new Set<string>();
    if (touched.size === 0 && shards.length === 0) return req;
    const current = this.#configs.snapshot;
    const svc = this.#services.update(change?.previous ?? current, change?.snapshot ?? current, touched, shards);
    // NOTE: one key per namespace declaring the host: proxies of each may see their own service of it
    // (PushContext.serviceFor), and what was built from each depends on `ServiceEntry/<its ns>/<host>`.
    const seKey = (host: string): ConfigKey[] => {
      const namespaces = new Set(this.#services.snapshot.services.byIndex('host', host).map((s) => s.namespace));
      if (namespaces.size === 0) namespaces.add('');
      return [...namespaces].map((namespace) => ({ kind: 'ServiceEntry', namespace, name: host }));
    };
    // NOTE: the collections key configs by their string form; the PushRequest (the seam) carries ConfigKeys.
    const other = [...touched].filter((k) => !k.startsWith('ServiceEntry/') && !k.startsWith('WorkloadEntry/')).map(parseConfigKey);
    if (other.length > 0) req = mergePushRequests(req, pushRequest('config', { full: true, configs: other, start: now }));
    const anyServiceEntry = this.#opts.optimizedServicePush === false && [...touched].some((k) => k.startsWith('ServiceEntry/'));
    if (svc.servicesChanged.size > 0 || anyServiceEntry) {
      this.#opts.metrics?.inboundUpdate?.('svc');
      const configs = [...svc.servicesChanged].flatMap(seKey);
      // NOTE: a removed service has no namespace left; the config key of its ServiceEntry names it too.
      const seConfigs = [...touched].filter((k) => k.startsWith('ServiceEntry/')).map(parseConfigKey);
      req = mergePushRequests(req, pushRequest('service', { full: true, configs: [...configs, ...seConfigs], start: now }));
    }
    if (svc.servicesChanged.size > 0) this.#reportServicesWithoutInstances();
    else if (svc.endpointsChanged.size > 0) this.#reportServicesWithoutInstances(svc.endpointsChanged);
    let edsOnly = [...svc.endpointsChanged].filter((h) => !svc.servicesChanged.has(h));
    if (this.#opts.headlessEndpointsShapeListeners === true) {
      const headless = edsOnly.filter((h) => this.#isHeadless(h));
      if (headless.length > 0) {
        // NOTE: the listeners change (one per pod), so the push is full; the PushContext is rebuilt as istiod does.
        this.#opts.metrics?.inboundUpdate?.('eds');
        req = mergePushRequests(req, pushRequest('endpoint', { full: true, configs: headless.flatMap(seKey), start: now }));
        edsOnly = edsOnly.filter((h) => !headless.includes(h));
      }
    }
    if (edsOnly.length > 0) {
      this.#opts.metrics?.inboundUpdate?.('eds');
      req = mergePushRequests(req, pushRequest('endpoint', { full: false, configs: edsOnly.flatMap(seKey), start: now }));
    }
    return req;
  }

  /**
   * The pipeline: applies each input batch as it arrives and emits debounced PushRequests, having
   * rebuilt the PushContext first when the request is full; each emitted request carries the snapshot
   * published with it (the PushContext and the endpoints at that moment). Unsubscribing stops everything.
   * `flushes` (a replay of a recorded log): the debounce windows close when it emits, not on timers.
   */
  pushes(inputs$: Observable<readonly ModelInput[] | ModelInput>, opts: { readonly flushes?: Observable<unknown> } = {}): Observable<PushRequest> {
    const m = this.#opts.metrics;
    return inputs$.pipe(
      map((i) => {
        const batch = Array.isArray(i) ? (i as readonly ModelInput[]) : [i as ModelInput];
        if (!this.#opts.onError) return this.#counted(this.apply(batch));
        try {
          return this.#counted(this.apply(batch));
        } catch (e) {
          this.#opts.onError(e, batch);
          return undefined;
        }
      }),
      filter((r): r is PushRequest => r !== undefined),
      debouncePushes({
        debounceAfter: this.#opts.debounceAfter,
        debounceMax: this.#opts.debounceMax,
        enableEdsDebounce: this.#opts.enableEdsDebounce,
        scheduler: this.#scheduler,
        ...(opts.flushes ? { flushes: opts.flushes } : {}),
        observer: {
          onOutput: (req, waited) => {
            m?.debounceTime?.(waited / 1000);
            for (const r of PUSH_REASONS) {
              const n = req.reasons.get(r);
              if (n) m?.pushTrigger?.(r, n);
            }
          },
        },
      }),
      map((req) => {
        if (req.full) this.rebuild();
        else {
          // NOTE: an EDS-only push (which may bypass the debounce window) publishes the current endpoints but
          // not the PushContext: it covers what was applied only when no full request is still waiting.
          if (this.#appliedFull <= this.#published) this.#published = this.#applied;
          this.#publish();
        }
        return withSnapshot(req, this.#snapshot);
      }),
    );
  }

  /** Whether the service of a host is headless: resolution NONE and no address (a VIP). */
  #isHeadless(host: string): boolean {
    const s = this.#services.snapshot.services.byIndex('host', host)[0];
    return s !== undefined && s.resolution === 'NONE' && !s.addresses.some((a) => a !== '' && a !== '0.0.0.0');
  }

  /** Numbers an applied batch's request (for `unpublished`). */
  #counted(req: PushRequest | undefined): PushRequest | undefined {
    if (req === undefined) return undefined;
    this.#applied++;
    if (req.full) this.#appliedFull = this.#applied;
    return req;
  }

  /** Rebuilds the PushContext from the current collections and publishes it in a new snapshot. */
  rebuild(): PushContext {
    this.#context = this.#build();
    this.#reportServicesWithoutInstances();
    // NOTE: built from the current collections, so it covers every batch applied so far.
    this.#published = this.#applied;
    this.#publish();
    return this.#context;
  }

  /** Publishes a snapshot of the current PushContext and endpoints. */
  #publish(): void {
    this.#snapshot = { token: this.#snapshot.token + 1, pushContext: this.#context, endpoints: servedEndpoints(this.#context, this.endpoints) };
  }

  /**
   * pilot_eds_no_instances: recounts every service of the PushContext, or, given the hosts whose
   * endpoints changed, only those (an endpoint change costs what it changes). Counted over the endpoints a push
   * serves (servedEndpoints): a host whose chosen service's namespace has none counts, as istiod's shards per host and namespace.
   */
  #reportServicesWithoutInstances(changedHosts?: ReadonlySet<string>): void {
    const report = this.#opts.metrics?.servicesWithoutInstances;
    if (!report) return;
    const endpoints = servedEndpoints(this.#context, this.endpoints);
    if (!changedHosts || this.#emptyOf !== this.#context) {
      this.#empty = new Set(this.#context.services.filter((s) => endpoints.instances(s.hostname).length === 0).map((s) => s.hostname));
      this.#emptyOf = this.#context;
    } else {
      for (const h of changedHosts) {
        if (!this.#context.service(h)) continue;
        if (endpoints.instances(h).length === 0) this.#empty.add(h);
        else this.#empty.delete(h);
      }
    }
    report(this.#empty.size);
  }

  #now(): number {
    return this.#clock.now();
  }

  #build(): PushContext {
    const t0 = performance.now();
    this.#builds++;
    const ctx = new PushContext({
      configs: this.#configs.snapshot,
      registry: this.#services.snapshot,
      meshConfig: this.#meshConfig,
      networks: this.#networks,
      domain: this.#opts.domain,
      version: String(this.#builds),
    });
    this.#opts.metrics?.pushContextInit?.((performance.now() - t0) / 1000);
    this.#opts.metrics?.counts?.(ctx.services.length, ctx.virtualServiceCount);
    this.#opts.metrics?.duplicateSubsets?.(ctx.duplicateSubsetHosts());
    return ctx;
  }
}

/** The env-driven part of MeshModelOptions, read once at start. */
export function modelOptionsFromEnv(
  env: Env,
  domain: string,
): Pick<MeshModelOptions, 'domain' | 'drainingLabel' | 'debounceAfter' | 'debounceMax' | 'enableEdsDebounce' | 'optimizedServicePush'> {
  const debounceAfter = env.duration('PILOT_DEBOUNCE_AFTER');
  const debounceMax = env.duration('PILOT_DEBOUNCE_MAX');
  if (debounceAfter < 0) throw new RangeError(`PILOT_DEBOUNCE_AFTER: must not be negative`);
  if (debounceMax < debounceAfter) throw new RangeError(`PILOT_DEBOUNCE_MAX (${debounceMax} ms) must not be shorter than PILOT_DEBOUNCE_AFTER (${debounceAfter} ms)`);
  return {
    domain,
    drainingLabel: env.string('PILOT_DRAINING_LABEL') ?? '',
    debounceAfter,
    debounceMax,
    enableEdsDebounce: env.bool('PILOT_ENABLE_EDS_DEBOUNCE'),
    optimizedServicePush: env.bool('MESH_ENABLE_OPTIMIZED_SERVICE_PUSH'),
  };
}
