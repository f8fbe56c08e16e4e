/**
 * TypeScript types of the mesh.io kinds, inferred from the same schema objects the CRDs and validators use.
 */
import type { KINDS, KindName } from './kinds.js';
import type { Infer } from './schema/infer.js';
import type { connectionPoolSettings } from './schemas/shared/connection-pool.js';
import type { destination } from './schemas/shared/destination.js';
import type { portSelector } from './schemas/shared/port-selector.js';
import type { clientTlsSettings, serverTlsSettings } from './schemas/shared/server-tls.js';
import type { stringMatch } from './schemas/shared/string-match.js';
import type { policyTargetReference } from './schemas/shared/target-ref.js';
import type { workloadSelector } from './schemas/shared/workload-selector.js';
import type { meshStatus } from './schemas/shared/status.js';
import type {
  corsPolicy,
  headers,
  httpFaultInjection,
  httpMatchRequest,
  httpMirrorPolicy,
  httpRedirect,
  httpRetry,
  httpRewrite,
  httpRoute,
  httpRouteDestination,
} from './schemas/networking/http-route.js';
import type { l4MatchAttributes, routeDestination, tcpRoute, tlsMatchAttributes, tlsRoute } from './schemas/networking/virtual-service.js';
import type {
  consistentHashLb,
  loadBalancerSettings,
  localityLbSetting,
  outlierDetection,
  portTrafficPolicy,
  subset,
  trafficPolicy,
} from './schemas/networking/destination-rule.js';
import type { servicePort } from './schemas/networking/service-entry.js';
import type { authorizationRule, condition, operation, source } from './schemas/security/authorization-policy.js';
import type { gatewayPort, gatewayServer } from './schemas/networking/gateway.js';
import type { sidecarEgressListener, sidecarIngressListener, sidecarPort } from './schemas/networking/sidecar.js';
import type { readinessProbe } from './schemas/networking/workload-group.js';
import type { envoyConfigObjectPatch } from './schemas/networking/envoy-filter.js';
import type { jwtRule } from './schemas/security/request-authentication.js';
import type { accessLogging, metrics, tracing } from './schemas/telemetry/telemetry.js';

/** The metadata of a mesh config object. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  uid?: string;
}

/** The spec type of kind `K`. */
export type SpecOf<K extends KindName> = Infer<(typeof KINDS)[K]['spec']>;
/** The status type of kind `K`. */
export type StatusOf<K extends KindName> = Infer<(typeof KINDS)[K]['status']>;

/** A whole mesh.io object of kind `K`. */
export interface MeshConfigObject<K extends KindName = KindName> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMeta;
  spec: SpecOf<K>;
  status?: StatusOf<K>;
}

/** Any mesh.io object, discriminated by `kind`. */
export type AnyMeshConfig = { [K in KindName]: MeshConfigObject<K> }[KindName];

/** Istio-style status shared by the config kinds. */
export type MeshStatus = Infer<typeof meshStatus>;

// Shared pieces.
export type StringMatch = Infer<typeof stringMatch>;
export type WorkloadSelector = Infer<typeof workloadSelector>;
export type PortSelector = Infer<typeof portSelector>;
export type PolicyTargetReference = Infer<typeof policyTargetReference>;
export type Destination = Infer<typeof destination>;
export type ConnectionPoolSettings = Infer<typeof connectionPoolSettings>;
export type ServerTLSSettings = Infer<typeof serverTlsSettings>;
export type ClientTLSSettings = Infer<typeof clientTlsSettings>;

// VirtualService.
export type VirtualServiceSpec = SpecOf<'VirtualService'>;
export type VirtualService = MeshConfigObject<'VirtualService'>;
export type HTTPRoute = Infer<typeof httpRoute>;
export type HTTPMatchRequest = Infer<typeof httpMatchRequest>;
export type HTTPRouteDestination = Infer<typeof httpRouteDestination>;
export type HTTPRedirect = Infer<typeof httpRedirect>;
export type HTTPRewrite = Infer<typeof httpRewrite>;
export type HTTPRetry = Infer<typeof httpRetry>;
export type HTTPFaultInjection = Infer<typeof httpFaultInjection>;
export type HTTPMirrorPolicy = Infer<typeof httpMirrorPolicy>;
export type CorsPolicy = Infer<typeof corsPolicy>;
export type Headers = Infer<typeof headers>;
export type TLSRoute = Infer<typeof tlsRoute>;
export type TCPRoute = Infer<typeof tcpRoute>;
export type TLSMatchAttributes = Infer<typeof tlsMatchAttributes>;
export type L4MatchAttributes = Infer<typeof l4MatchAttributes>;
export type RouteDestination = Infer<typeof routeDestination>;

// DestinationRule.
export type DestinationRuleSpec = SpecOf<'DestinationRule'>;
export type DestinationRule = MeshConfigObject<'DestinationRule'>;
export type TrafficPolicy = Infer<typeof trafficPolicy>;
export type PortTrafficPolicy = Infer<typeof portTrafficPolicy>;
export type Subset = Infer<typeof subset>;
export type LoadBalancerSettings = Infer<typeof loadBalancerSettings>;
export type ConsistentHashLB = Infer<typeof consistentHashLb>;
export type LocalityLoadBalancerSetting = Infer<typeof localityLbSetting>;
export type OutlierDetection = Infer<typeof outlierDetection>;

// ServiceEntry and WorkloadEntry.
export type ServiceEntrySpec = SpecOf<'ServiceEntry'>;
export type ServiceEntry = MeshConfigObject<'ServiceEntry'>;
export type ServicePort = Infer<typeof servicePort>;
export type WorkloadEntrySpec = SpecOf<'WorkloadEntry'>;
export type WorkloadEntry = MeshConfigObject<'WorkloadEntry'>;

// AuthorizationPolicy.
export type AuthorizationPolicySpec = SpecOf<'AuthorizationPolicy'>;
export type AuthorizationPolicy = MeshConfigObject<'AuthorizationPolicy'>;
export type AuthorizationRule = Infer<typeof authorizationRule>;
export type AuthorizationSource = Infer<typeof source>;
export type AuthorizationOperation = Infer<typeof operation>;
export type AuthorizationCondition = Infer<typeof condition>;

// Gateway, Sidecar, WorkloadGroup, EnvoyFilter, ProxyConfig.
export type GatewaySpec = SpecOf<'Gateway'>;
export type Gateway = MeshConfigObject<'Gateway'>;
export type GatewayServer = Infer<typeof gatewayServer>;
export type GatewayPort = Infer<typeof gatewayPort>;
export type SidecarSpec = SpecOf<'Sidecar'>;
export type Sidecar = MeshConfigObject<'Sidecar'>;
export type SidecarPort = Infer<typeof sidecarPort>;
export type SidecarIngressListener = Infer<typeof sidecarIngressListener>;
export type SidecarEgressListener = Infer<typeof sidecarEgressListener>;
export type WorkloadGroupSpec = SpecOf<'WorkloadGroup'>;
export type WorkloadGroup = MeshConfigObject<'WorkloadGroup'>;
export type ReadinessProbe = Infer<typeof readinessProbe>;
export type EnvoyFilterSpec = SpecOf<'EnvoyFilter'>;
export type EnvoyFilter = MeshConfigObject<'EnvoyFilter'>;
export type EnvoyConfigObjectPatch = Infer<typeof envoyConfigObjectPatch>;
export type ProxyConfigSpec = SpecOf<'ProxyConfig'>;
export type ProxyConfig = MeshConfigObject<'ProxyConfig'>;

// PeerAuthentication, RequestAuthentication.
export type PeerAuthenticationSpec = SpecOf<'PeerAuthentication'>;
export type PeerAuthentication = MeshConfigObject<'PeerAuthentication'>;
export type RequestAuthenticationSpec = SpecOf<'RequestAuthentication'>;
export type RequestAuthentication = MeshConfigObject<'RequestAuthentication'>;
export type JWTRule = Infer<typeof jwtRule>;

// Telemetry, WasmPlugin, MeshOperator.
export type TelemetrySpec = SpecOf<'Telemetry'>;
export type Telemetry = MeshConfigObject<'Telemetry'>;
export type TelemetryTracing = Infer<typeof tracing>;
export type TelemetryMetrics = Infer<typeof metrics>;
export type TelemetryAccessLogging = Infer<typeof accessLogging>;
export type WasmPluginSpec = SpecOf<'WasmPlugin'>;
export type WasmPlugin = MeshConfigObject<'WasmPlugin'>;
export type MeshOperatorSpec = SpecOf<'MeshOperator'>;
export type MeshOperatorStatus = StatusOf<'MeshOperator'>;
export type MeshOperator = MeshConfigObject<'MeshOperator'>;
