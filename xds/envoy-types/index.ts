/**
 * TypeScript types of the Envoy messages meshd builds, in the codec's plain-object form, generated from
 * the protos meshd loads (hack/envoy-types; `npm run gen:envoy-types`; a unit test fails when they are
 * stale). Each package's file has every type of that package meshd's messages reach; here are the ones
 * the builders name.
 */
export type { AnyMessage } from './any-message.js';
export type { Cluster } from './envoy-config-cluster-v3.js';
export type { Address, ConfigSource, HeaderValueOption, Metadata, SocketAddress, TransportSocket } from './envoy-config-core-v3.js';
export type { ClusterLoadAssignment, LbEndpoint, LocalityLbEndpoints } from './envoy-config-endpoint-v3.js';
export type { Filter, FilterChain, FilterChainMatch, Listener, ListenerFilter } from './envoy-config-listener-v3.js';
export type { Permission, Policy as RbacPolicy, Principal, RBAC as RbacRules } from './envoy-config-rbac-v3.js';
export type {
  HeaderMatcher, RetryPolicy, Route, RouteAction, RouteAction_HashPolicy as HashPolicy, RouteConfiguration, RouteMatch,
  VirtualHost, WeightedCluster, WeightedCluster_ClusterWeight as ClusterWeight,
} from './envoy-config-route-v3.js';
export type { HTTPFault } from './envoy-extensions-filters-http-fault-v3.js';
export type { RBAC as RbacFilter } from './envoy-extensions-filters-http-rbac-v3.js';
export type { Router } from './envoy-extensions-filters-http-router-v3.js';
export type { HttpConnectionManager, HttpFilter } from './envoy-extensions-filters-network-http-connection-manager-v3.js';
export type { TcpProxy } from './envoy-extensions-filters-network-tcp-proxy-v3.js';
export type { CommonTlsContext, DownstreamTlsContext, UpstreamTlsContext } from './envoy-extensions-transport-sockets-tls-v3.js';
export type { StringMatcher } from './envoy-type-matcher-v3.js';
export type { Duration, UInt32Value } from './google-protobuf.js';
