// The public surface of xds/.
export * from './server/contracts.js';
// the assembled pipeline (model -> generator registry -> ADS server, debug routes)
export * from './discovery/mesh-discovery.js';
// replay of a recorded event log (pilot-discovery discovery --record FILE)
export { formatReplay, replayEvents, ReplayError, type ReplayedPush, type ReplayedResponse, type ReplayResult } from './discovery/event-replay.js';
// generators by proxy kind and type URL; the proxyless gRPC generators and the cache
export { GeneratorRegistry, NotImplementedError, defaultNeedsPush, type RegisteredProxy } from './server/generator-registry.js';
export { MissingSnapshotError, ProxylessGrpcGenerator, type GrpcGeneratorOptions } from './generators/grpc-generator.js';
// Envoy sidecars: the generators' builders, the consistency check and the request simulator (meshctl x simulate / x translate)
export { buildSidecarResources, SidecarGenerator, type SidecarGeneratorOptions } from './generators/sidecar/sidecar-generator.js';
export { buildRouterResources, RouterGenerator, routerListenPorts, routerServerConflicts, type RouterGeneratorOptions } from './generators/router/router-generator.js';
export { checkConsistency, type ConsistencyOptions, type ProxyConfig } from './generators/sidecar/consistency-checker.js';
export { simulateRequest, type SimulatedCluster, type SimulatedRequest, type SimulationResult } from './simulator/request-simulator.js';
export { XdsCache, type XdsCacheOptions, type XdsCacheMetrics } from './cache/xds-cache.js';
export { cacheMetricsFrom } from './cache/cache-metrics.js';
export { debugRoutes, configDump, type DebugDeps, type DebugHandler } from './debug/debug-routes.js';
export { PushStatus, type PushRecord } from './debug/push-status.js';
export { SERVER_LISTENER_TEMPLATE } from './generators/grpc/listener-builder.js';
// ADS transport (SotW + delta), its options and metrics; Envoy protos (encode/decode/JSON/validation).
export { AdsServer, type AdsServerOptions, type LocalResponse, type LocalStream } from './server/ads-server.js';
export { randomNonceSeed, seededNonces, snapshotVersion, type NonceSource } from './server/nonce-source.js';
export { XdsAuthenticator, type XdsAuthOptions, type XdsStreamAuth } from './server/auth.js';
export type { AdsEvent, RecordedRequest } from './server/stream-host.js';
export type { ConnectionInfo, WatchInfo } from './server/connection.js';
export { adsServerOptions, transportOptionsFromEnv, defaultPushThrottle, type GrpcServerLimits, type TransportOptions } from './server/server-options.js';
export { defaultRequestLimit } from './server/rate-limiter.js';
export { PushQueue, type PushQueueOptions } from './server/push-queue.js';
export { NodeError, parseNode } from './server/node.js';
export { shortType, type MetricsSource } from './server/metrics.js';
export { ADS_METHODS, ADS_SERVICE } from './server/ads-service.js';
export * from './protos/index.js';
