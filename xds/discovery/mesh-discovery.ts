/**
 * The discovery pipeline of meshd, assembled: MeshModel (collections, debounce, PushContext snapshots)
 * -> GeneratorRegistry (the proxyless gRPC generators + XdsCache, the dataplane sidecar generators; routers
 * get theirs when they are built) -> AdsServer, plus the debug routes (which see only the generator contract). The
 * CLI creates it, registers `ads` on the discovery gRPC server, mounts `debugRoutes`, and connects the
 * sources (controllers/) with `connect`.
 */
import type { Logger } from 'pino';
import { tap, type Observable, type Subscription } from 'rxjs';
import { MeshModel, modelMetricsFrom, modelOptionsFromEnv, type Env, type MeshModelOptions, type Metrics, type ModelInput } from '../../core/index.js';
import { cacheMetricsFrom } from '../cache/cache-metrics.js';
import { XdsCache } from '../cache/xds-cache.js';
import { debugRoutes, type DebugHandler } from '../debug/debug-routes.js';
import { PushStatus } from '../debug/push-status.js';
import { ProxylessGrpcGenerator, type GrpcGeneratorOptions } from '../generators/grpc-generator.js';
import { SidecarGenerator } from '../generators/sidecar/sidecar-generator.js';
import { AdsServer } from '../server/ads-server.js';
import { GeneratorRegistry, type RegisteredProxy } from '../server/generator-registry.js';
import { transportOptionsFromEnv, type TransportOptions } from '../server/server-options.js';

/** Generator options from env, read once. */
export function generatorOptionsFromEnv(env: Env): GrpcGeneratorOptions {
  const cacheSize = env.int('PILOT_XDS_CACHE_SIZE');
  if (cacheSize < 1) throw new RangeError(`PILOT_XDS_CACHE_SIZE=${cacheSize}: must be at least 1`);
  const enableCache = env.bool('PILOT_ENABLE_XDS_CACHE');
  return {
    enableCache,
    enableCdsCache: enableCache && env.bool('PILOT_ENABLE_CDS_CACHE'),
    enableRdsCache: enableCache && env.bool('PILOT_ENABLE_RDS_CACHE'),
    sendUnhealthyEndpoints: env.bool('PILOT_SEND_UNHEALTHY_ENDPOINTS'),
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
  /** Generators by proxy kind and type URL; what the ADS server generates with. */
  readonly registry = new GeneratorRegistry();
  readonly ads: AdsServer<RegisteredProxy>;
  readonly pushStatus = new PushStatus();
  readonly debugRoutes: Map<string, DebugHandler>;
  readonly #log: MeshDiscoveryOptions['loggers']['ads'] | undefined;

  constructor(o: MeshDiscoveryOptions) {
    this.#log = o.loggers.ads;
    const modelLog = o.loggers.model;
    this.model = new MeshModel({
      ...o.model,
      ...(modelLog ? { onError: (e: unknown, inputs: readonly ModelInput[]) => modelLog.error({ error: String(e), inputs: inputs.length }, 'model update failed; batch dropped') } : {}),
    });
    const cache = new XdsCache({ maxSize: o.generator.cacheSize ?? 60000, metrics: cacheMetricsFrom(o.metrics) });
    this.generator = new ProxylessGrpcGenerator({ ...o.generator, cache });
    this.generator.register(this.registry);
    this.sidecarGenerator = new SidecarGenerator({ sendUnhealthyEndpoints: o.generator.sendUnhealthyEndpoints });
    this.sidecarGenerator.register(this.registry);
    this.ads = new AdsServer<RegisteredProxy>({
      ...o.transport,
      generator: this.registry,
      metrics: o.metrics,
      loggers: { ads: o.loggers.ads, delta: o.loggers.delta },
      latestSnapshot: () => this.model.snapshot,
      ...(o.controlPlaneId ? { controlPlaneId: o.controlPlaneId } : {}),
    });
    this.debugRoutes = debugRoutes<RegisteredProxy>({
      snapshot: () => this.model.snapshot,
      generator: this.registry,
      cacheSize: () => cache.size,
      connections: () => this.ads.connections(),
      pushStatus: this.pushStatus,
    });
  }

  /**
   * Feeds the sources into the model and the resulting pushes (each carrying its snapshot) into the
   * transport. Each push first clears the cache entries it invalidates. Unsubscribe to stop.
   */
  connect(inputs$: Observable<readonly ModelInput[] | ModelInput>): Subscription {
    return this.ads.attach(
      this.model.pushes(inputs$).pipe(
        tap((req) => this.generator.invalidate(req)),
        this.pushStatus.track(),
        // NOTE: one info line per push (debounced), with counts, never one per proxy.
        tap((req) => this.#log?.info({ full: req.full, configs: req.configsUpdated.size, reasons: Object.fromEntries(req.reasons), proxies: this.ads.connections().length }, 'push')),
      ),
    );
  }
}
