/**
 * The spec fields of mesh.io kinds that the proxyless gRPC generators read (Istio v1 field names).
 * NOTE: narrow local views, read from configs that crds/ `validateConfig` already accepted.
 */

export interface StringMatch {
  exact?: string;
  prefix?: string;
  regex?: string;
}

export interface HttpMatchRequest {
  name?: string;
  uri?: StringMatch;
  method?: StringMatch;
  authority?: StringMatch;
  port?: number;
  sourceLabels?: Record<string, string>;
  sourceNamespace?: string;
  headers?: Record<string, StringMatch>;
  withoutHeaders?: Record<string, StringMatch>;
}

export interface Destination {
  host: string;
  subset?: string;
  port?: { number?: number };
}

export interface HttpRouteDestination {
  destination: Destination;
  weight?: number;
}

export interface HttpRetry {
  attempts?: number;
  perTryTimeout?: string;
  retryOn?: string;
}

export interface Percent {
  value?: number;
}

export interface HttpFaultInjection {
  delay?: { fixedDelay?: string; percentage?: Percent; percent?: number };
  abort?: { httpStatus?: number; grpcStatus?: string; percentage?: Percent };
}

export interface HttpRoute {
  name?: string;
  match?: HttpMatchRequest[];
  route?: HttpRouteDestination[];
  timeout?: string;
  retries?: HttpRetry;
  fault?: HttpFaultInjection;
}

export interface VirtualServiceSpec {
  hosts?: string[];
  gateways?: string[];
  http?: HttpRoute[];
  exportTo?: string[];
}

export interface ConsistentHashLB {
  httpHeaderName?: string;
  useSourceIp?: boolean;
  minimumRingSize?: number;
  ringHash?: { minimumRingSize?: number };
}

export interface LoadBalancerSettings {
  simple?: 'UNSPECIFIED' | 'LEAST_CONN' | 'RANDOM' | 'PASSTHROUGH' | 'ROUND_ROBIN' | 'LEAST_REQUEST';
  consistentHash?: ConsistentHashLB;
}

export interface OutlierDetection {
  consecutiveErrors?: number;
  consecutive5xxErrors?: number;
  consecutiveGatewayErrors?: number;
  interval?: string;
  baseEjectionTime?: string;
  maxEjectionPercent?: number;
  minHealthPercent?: number;
}

export interface ClientTLSSettings {
  mode?: 'DISABLE' | 'SIMPLE' | 'MUTUAL' | 'MESH_MUTUAL';
  subjectAltNames?: string[];
  sni?: string;
}

export interface TrafficPolicy {
  loadBalancer?: LoadBalancerSettings;
  connectionPool?: { http?: { http2MaxRequests?: number; http1MaxPendingRequests?: number; maxRequestsPerConnection?: number }; tcp?: { maxConnections?: number } };
  outlierDetection?: OutlierDetection;
  tls?: ClientTLSSettings;
  portLevelSettings?: (TrafficPolicy & { port?: { number?: number } })[];
}

export interface Subset {
  name: string;
  labels?: Record<string, string>;
  trafficPolicy?: TrafficPolicy;
}

export interface DestinationRuleSpec {
  host: string;
  trafficPolicy?: TrafficPolicy;
  subsets?: Subset[];
  exportTo?: string[];
}

export interface AuthzSource {
  principals?: string[];
  notPrincipals?: string[];
  namespaces?: string[];
  notNamespaces?: string[];
  ipBlocks?: string[];
  notIpBlocks?: string[];
  requestPrincipals?: string[];
  remoteIpBlocks?: string[];
}

export interface AuthzOperation {
  methods?: string[];
  notMethods?: string[];
  paths?: string[];
  notPaths?: string[];
  ports?: string[];
  notPorts?: string[];
  hosts?: string[];
  notHosts?: string[];
}

export interface AuthzCondition {
  key: string;
  values?: string[];
  notValues?: string[];
}

export interface AuthzRule {
  from?: { source?: AuthzSource }[];
  to?: { operation?: AuthzOperation }[];
  when?: AuthzCondition[];
}

export interface AuthorizationPolicySpec {
  selector?: { matchLabels?: Record<string, string> };
  action?: 'ALLOW' | 'DENY' | 'AUDIT' | 'CUSTOM';
  rules?: AuthzRule[];
}
