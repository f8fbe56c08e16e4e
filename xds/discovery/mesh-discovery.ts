/**
 * The discovery pipeline of meshd, assembled: MeshModel (collections, debounce, PushContext snapshots)
 * -> GeneratorRegistry (the proxyless gRPC generators + XdsCache, the dataplane sidecar generators, the router
 * (gateway) generators) -> AdsServer, plus the debug routes (which see only the generator contract). The
 * CLI creates it, registers `ads` on the discovery gRPC server, mounts `debugRoutes`, and connects the
 * sources (controllers/) with `connect`.
 */
import type { Logger } from 'pino';
import { tap, type Observable, type Subscription } from 'rxjs';
import {
  definedFields, EventLogRecorder, MeshModel, modelMetricsFrom, modelOptionsFromEnv, systemClock,
  type Clock, type Env, type MeshModelOptions, type Metrics, type ModelInput, type PushRequest,
} from '../../core/index.js';
import { cacheMetricsFrom } from '../cache/cache-metrics.js';
import { XdsCache } from '../cache/xds-cache.js';
import { debugRoutes, type DebugHandler } from '../debug/debug-routes.js';
import { PushStatus } from '../debug/push-status.js';
import { ProxylessGrpcGenerator, type GrpcGeneratorOptions } from '../generators/grpc-generator.js';
import { RouterGenerator } from '../generators/router/router-generator.js';
import { conflictRecorderFrom } from '../generators/sidecar/conflict-recorder.js';
import { SidecarGenerator } from '../generators/sidecar/sidecar-generator.js';
import { resolveListenerOptions } from '../generators/sidecar/listener-options.js';
import { registerNds } from '../generators/nds/nds-generator.js';
import { AdsServer } from '../server/ads-server.js';
import { randomNonceSeed, seededNonces } from '../server/nonce-source.js';
import { GeneratorRegistry, type RegisteredProxy } from '../server/generator-registry.js';
import { transportOptionsFromEnv, type TransportOptions } from '../server/server-options.js';

/** Thrown at start for an environment variable asking for what meshd cannot serve. */
export class UnsupportedOptionError extends Error {
  constructor(readonly variable: string, message: string) {
    super(message);
    this.name = 'UnsupportedOptionError';
  }
}

/**
 * Throws UnsupportedOptionError for an environment meshd cannot serve: PILOT_ENABLE_MYSQL_FILTER=true (the
 * MySQL proxy is an Envoy contrib filter, which the proxy build meshd serves does not carry). meshd calls it
 * before starting anything; generatorOptionsFromEnv calls it too.
 */
export function refuseUnsupportedEnv(env: Env): void {
  if (env.bool('PILOT_ENABLE_MYSQL_FILTER')) {
    throw new UnsupportedOptionError(
      'PILOT_ENABLE_MYSQL_FILTER',
      'PILOT_ENABLE_MYSQL_FILTER=true is not supported: the MySQL proxy (envoy.filters.network.mysql_proxy) is an Envoy contrib filter that the data-plane proxy build does not include; unset PILOT_ENABLE_MYSQL_FILTER or set it to false (MYSQL ports then get tcp_proxy)',
    );
  }
}

/** Generator options from env, read once. Throws UnsupportedOptionError as refuseUnsupportedEnv. */
export function generatorOptionsFromEnv(env: Env): GrpcGeneratorOptions {
  const cacheSize = env.int('PILOT_XDS_CACHE_SIZE');
  if (cacheSize < 1) throw new RangeError(`PILOT_XDS_CACHE_SIZE=${cacheSize}: must be at least 1`);
  refuseUnsupportedEnv(env);
  const enableCache = env.bool('PILOT_ENABLE_XDS_CACHE');
  return {
    enableCache,
    enableCdsCache: enableCache && env.bool('PILOT_ENABLE_CDS_CACHE'),
    enableRdsCache: enableCache && env.bool('PILOT_ENABLE_RDS_CACHE'),
    sendUnhealthyEndpoints: env.bool('PILOT_SEND_UNHEALTHY_ENDPOINTS'),
    edsForHeadless: env.bool('PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES'),
    tlsOnSidecarIngress: env.bool('ENABLE_TLS_ON_SIDECAR_INGRESS'),
    // Envoy sidecar listener options (issue 13, LDS): see xds/generators/sidecar/listener-options.ts.
    listener: {
      useRemoteAddress: env.bool('PILOT_SIDECAR_USE_REMOTE_ADDRESS'),
      http10: env.bool('PILOT_HTTP10'),
      hcmInternalNetworks: env.bool('ENABLE_HCM_INTERNAL_NETWORKS'),
      alpnFilter: env.bool('PILOT_ENABLE_ALPN_FILTER'),
      ipv4OutboundForIpv6: env.bool('MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS'),
      headlessPodListeners: env.bool('PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS'),
      dualStack: env.bool('MESH_DUAL_STACK'),
    },
    autoSni: env.bool('ENABLE_AUTO_SNI'),
    verifyCertAtClient: env.bool('VERIFY_CERTIFICATE_AT_CLIENT'),
    redisFilter: env.bool('PILOT_ENABLE_REDIS_FILTER'),
    mongoFilter: env.bool('PILOT_ENABLE_MONGO_FILTER'),
    routeCollapse: env.bool('PILOT_ENABLE_ROUTE_COLLAPSE_OPTIMIZATION'),
    optimizedConfigRebuild: env.bool('ENABLE_OPTIMIZED_CONFIG_REBUILD'),
    cacheSize,
  };
}

/** Everything the assembly needs. */
export interface MeshDiscoveryOptions {
  readonly model: MeshModelOptions;
  readonly generator: GrpcGeneratorOptions;
  readonly transport: TransportOptions;
  readonly metrics: Metrics;
  /** `ads` and `delta` for the transport; `model` for pipeline errors. */
  readonly loggers: { readonly ads: Logger; readonly delta: Logger; readonly model?: Logger };
  readonly controlPlaneId?: string;
  /**
   * The one clock of the pipeline (debounce, push queue, request times, the event log's stamps); default
   * the system clock. A replay passes a ManualClock.
   */
  readonly clock?: Clock;
  /** Seed of the response nonces (`seededNonces`); default random. A replay passes the recorded one. */
  readonly nonceSeed?: string;
  /**
   * `--record FILE`: write every input the pipeline acts on to an event log (see core event-log.ts),
   * asynchronously with a bounded buffer (`maxBufferedBytes`, default 16 MiB): when the disk cannot keep
   * up, records are dropped, logged once per overflow and marked in the file, and nothing waits.
   */
  readonly record?: { readonly path: string; readonly maxBufferedBytes?: number };
  /**
   * The sources that have not delivered their first full read yet (controllers/ SourceSet `unsynced`).
   * Given, new ADS streams are refused with UNAVAILABLE until `notReady()` says ready; omitted, streams
   * are always served (tests, replay).
   */
  readonly unsynced?: () => readonly string[];
}

/** What an event log's header holds: the options a replay rebuilds the same pipeline from. */
export interface RecordedDiscoveryOptions {
  readonly model: Omit<MeshModelOptions, 'metrics' | 'onError' | 'clock'>;
  readonly generator: Omit<GrpcGeneratorOptions, 'cache' | 'slicer'>;
  readonly transport: TransportOptions;
  readonly controlPlaneId?: string;
  readonly nonceSeed: string;
}

/** Options from env and the `--domain` flag. */
export function meshDiscoveryOptionsFromEnv(
  env: Env,
  domain: string,
  metrics: Metrics,
  loggers: MeshDiscoveryOptions['loggers'],
): MeshDiscoveryOptions {
  return {
    model: { ...modelOptionsFromEnv(env, domain), metrics: modelMetricsFrom(metrics) },
    generator: generatorOptionsFromEnv(env),
    transport: transportOptionsFromEnv(env),
    metrics,
    loggers,
  };
}

/** The assembled pipeline. */
export class MeshDiscovery {
  readonly model: MeshModel;
  /** The proxyless gRPC generator (and its cache). */
  readonly generator: ProxylessGrpcGenerator;
  /** The dataplane sidecar generators (proxy type `sidecar` without GENERATOR metadata). */
  readonly sidecarGenerator: SidecarGenerator;
  /** The router (gateway) generators (proxy type `router` without GENERATOR metadata). */
  readonly routerGenerator: RouterGenerator;
  /** Generators by proxy kind and type URL; what the ADS server generates with. */
  readonly registry = new GeneratorRegistry();
  readonly ads: AdsServer<RegisteredProxy>;
  readonly pushStatus = new PushStatus();
  readonly debugRoutes: Map<string, DebugHandler>;
  /** The event log being written (`record`), if any; close it on shutdown to flush it. */
  readonly recorder: EventLogRecorder | undefined;
  readonly #log: MeshDiscoveryOptions['loggers']['ads'] | undefined;
  readonly #unsynced: (() => readonly string[]) | undefined;
  #ready = false;

  constructor(o: MeshDiscoveryOptions) {
    this.#log = o.loggers.ads;
    this.#unsynced = o.unsynced;
    const modelLog = o.loggers.model;
    const clock = o.clock ?? systemClock;
    const nonceSeed = o.nonceSeed ?? randomNonceSeed();
    this.model = new MeshModel({
      ...o.model,
      // NOTE: the sidecar listener option decides whether headless endpoint changes must push LDS.
      headlessEndpointsShapeListeners: o.model.headlessEndpointsShapeListeners ?? resolveListenerOptions(o.generator.listener).headlessPodListeners,
      clock,
      ...(modelLog ? { onError: (e: unknown, inputs: readonly ModelInput[]) => modelLog.error({ error: String(e), inputs: inputs.length }, 'model update failed; batch dropped') } : {}),
    });
    const cache = new XdsCache({ maxSize: o.generator.cacheSize ?? 60000, metrics: cacheMetricsFrom(o.metrics) });
    this.generator = new ProxylessGrpcGenerator({ ...o.generator, cache });
    this.generator.register(this.registry);
    // NOTE: one cache for both generators: the proxyless generator's `invalidate` clears it once per push.
    this.sidecarGenerator = new SidecarGenerator({
      sendUnhealthyEndpoints: o.generator.sendUnhealthyEndpoints,
      enableCache: o.generator.enableCache,
      enableCdsCache: o.generator.enableCdsCache,
      enableRdsCache: o.generator.enableRdsCache,
      cache,
      conflicts: conflictRecorderFrom(o.metrics),
      edsForHeadless: o.generator.edsForHeadless === true,
      tlsOnSidecarIngress: o.generator.tlsOnSidecarIngress === true,
      ...definedFields(o.generator, ['listener', 'autoSni', 'verifyCertAtClient', 'redisFilter', 'mongoFilter', 'slicer']),
    });
    this.sidecarGenerator.register(this.registry);
    registerNds(this.registry);
    this.routerGenerator = new RouterGenerator({
      sendUnhealthyEndpoints: o.generator.sendUnhealthyEndpoints,
      ...definedFields(o.generator, ['autoSni', 'verifyCertAtClient', 'redisFilter', 'routeCollapse', 'slicer']),
    });
    this.routerGenerator.register(this.registry);
    this.ads = new AdsServer<RegisteredProxy>({
      ...o.transport,
      generator: this.registry,
      metrics: o.metrics,
      loggers: { ads: o.loggers.ads, delta: o.loggers.delta },
      latestSnapshot: () => this.model.snapshot,
      clock,
      nonces: seededNonces(nonceSeed),
      ...(o.unsynced ? { notReady: () => {
        const waiting = this.notReady();
        return waiting === undefined ? undefined : `meshd is not ready to serve discovery information: ${waiting}`;
      } } : {}),
      ...(o.controlPlaneId ? { controlPlaneId: o.controlPlaneId } : {}),
    });
    this.recorder = o.record ? this.#record(o, clock, nonceSeed, o.record) : undefined;
    this.debugRoutes = debugRoutes<RegisteredProxy>({
      snapshot: () => this.model.snapshot,
      generator: this.registry,
      cacheSize: () => cache.size,
      connections: () => this.ads.connections(),
      pushStatus: this.pushStatus,
    });
  }

  /**
   * meshd's one definition of ready (for /ready and new ADS streams): undefined once every source has
   * delivered its first full read (`unsynced`) AND the model has published a snapshot covering those
   * inputs (none waits in the debouncer); else what it waits for. Inputs are applied at once but published
   * only with the debounced push, so a stream admitted right after sync would get the older (empty)
   * snapshot. Once ready, stays ready (as istiod): later pushes reach connected proxies anyway. Without
   * the `unsynced` option it is always ready.
   */
  notReady(): string | undefined {
    if (this.#ready || !this.#unsynced) return undefined;
    const waiting = this.#unsynced();
    if (waiting.length > 0) return `waiting for the first sync of ${waiting.join(', ')}`;
    const pending = this.model.unpublished;
    if (pending > 0) return `waiting for the first push of the synced config (${pending} input batches applied, not yet published)`;
    this.#ready = true;
    this.#log?.info({}, 'config and registry sources synced and published: ready');
    return undefined;
  }

  /** Starts the event log: the header (the options a replay needs), then connects, requests and disconnects. */
  #record(o: MeshDiscoveryOptions, clock: Clock, nonceSeed: string, r: NonNullable<MeshDiscoveryOptions['record']>): EventLogRecorder {
    const { metrics: _m, onError: _e, clock: _c, ...model } = o.model;
    const { cache: _cache, slicer: _s, ...generator } = o.generator;
    const meta: RecordedDiscoveryOptions = {
      model: { ...model, meshConfig: this.model.meshConfig, networks: o.model.networks ?? this.model.pushContext.networks },
      generator,
      transport: o.transport,
      nonceSeed,
      ...(o.controlPlaneId ? { controlPlaneId: o.controlPlaneId } : {}),
    };
    const log = o.loggers.model ?? o.loggers.ads;
    const recorder = new EventLogRecorder(r.path, meta as unknown as Record<string, unknown>, {
      clock,
      ...(r.maxBufferedBytes !== undefined ? { maxBufferedBytes: r.maxBufferedBytes } : {}),
      onOverflow: (dropped) => log.warn({ file: r.path, dropped }, 'event log buffer full: dropping records (the file marks the loss)'),
      onError: (err) => log.error({ file: r.path, error: err.message }, 'event log write failed: recording stopped'),
    });
    this.ads.events.subscribe((e) => {
      if (e.kind === 'connected') recorder.record({ type: 'connect', connection: e.connectionId, protocol: e.protocol, node: e.node });
      else if (e.kind === 'disconnected') recorder.record({ type: 'disconnect', connection: e.connectionId });
      else if (e.kind === 'request') recorder.record({ type: 'request', connection: e.connectionId, token: e.token, request: e.request });
      else if (e.kind === 'push') {
        const p = e.push;
        recorder.record({
          type: 'push', connection: e.connectionId, token: p.snapshot?.token, full: p.full,
          ...(p.forced ? { forced: true } : {}), reasons: Object.fromEntries(p.reasons), configs: [...p.configsUpdated],
        });
      }
    });
    return recorder;
  }

  /**
   * Feeds the sources into the model and the resulting pushes (each carrying its snapshot) into the
   * transport. Each push first clears the cache entries it invalidates, then `onPush` sees it (the replay
   * reports every push, also those no proxy needed). Unsubscribe to stop.
   *
   * A replay of a recorded log passes `replay`: `flushes` closes the debounce windows where the live run
   * did, and the pushes stay out of the push queue (the replay hands each connection what it was pushed).
   */
  connect(
    inputs$: Observable<readonly ModelInput[] | ModelInput>,
    onPush?: (req: PushRequest) => void,
    replay?: { readonly flushes: Observable<unknown> },
  ): Subscription {
    const recorder = this.recorder;
    const recorded = recorder ? inputs$.pipe(recorder.tap()) : inputs$;
    const pushes = this.model.pushes(recorded, replay ? { flushes: replay.flushes } : {}).pipe(
      // NOTE: recorded before anything acts on the push, so its record precedes the connections' push records.
      tap((req) => recorder?.record({ type: 'publish', token: req.snapshot?.token ?? this.model.snapshot.token })),
      tap((req) => this.generator.invalidate(req)),
      tap((req) => onPush?.(req)),
    );
    if (replay) return pushes.subscribe();
    return this.ads.attach(
      pushes.pipe(
        this.pushStatus.track(),
        // NOTE: one info line per push (debounced), with counts, never one per proxy.
        tap((req) => this.#log?.info({ full: req.full, configs: req.configsUpdated.size, reasons: Object.fromEntries(req.reasons), proxies: this.ads.connectionCount }, 'push')),
      ),
    );
  }
}
