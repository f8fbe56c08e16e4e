import { arr, atMostOneOf, enumOf, freeForm, int, map, obj, str, uint32, withRules } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { policyTargetReferences } from '../shared/target-ref.js';
import { workloadLabelsSelector } from '../shared/workload-selector.js';

/** Istio's EnvoyFilter.ListenerMatch. */
export const listenerMatch = obj({
  portNumber: uint32(),
  filterChain: obj({
    name: str(),
    sni: str(),
    transportProtocol: str(),
    applicationProtocols: str(),
    filter: obj({ name: str(), subFilter: obj({ name: str() }) }),
    destinationPort: uint32(),
  }),
  listenerFilter: str(),
  name: str(),
});

/** Istio's EnvoyFilter.RouteConfigurationMatch. */
export const routeConfigurationMatch = obj({
  portNumber: uint32(),
  portName: str(),
  gateway: str(),
  vhost: obj({
    name: str(),
    domainName: str(),
    route: obj({ name: str(), action: enumOf(['ANY', 'ROUTE', 'REDIRECT', 'DIRECT_RESPONSE']) }),
  }),
  name: str(),
});

/** Istio's EnvoyFilter.ClusterMatch. */
export const clusterMatch = obj({ portNumber: uint32(), service: str(), subset: str(), name: str() });

/** Istio's EnvoyFilter.EnvoyConfigObjectMatch: one of listener, routeConfiguration or cluster. */
export const envoyConfigObjectMatch = obj(
  {
    context: enumOf(['ANY', 'SIDECAR_INBOUND', 'SIDECAR_OUTBOUND', 'GATEWAY', 'WAYPOINT']),
    proxy: obj({ proxyVersion: str({ 'x-mesh-check': 'regex' }), metadata: map(str()) }),
    listener: listenerMatch,
    routeConfiguration: routeConfigurationMatch,
    cluster: clusterMatch,
    /** Istio's WaypointMatch (context WAYPOINT only). */
    waypoint: obj({ filter: obj({ name: str(), subFilter: obj({ name: str() }) }), route: obj({ name: str() }), portNumber: withRules(uint32(), CEL.port) }),
  },
  [],
  { 'x-kubernetes-validations': [CEL.waypointMatchContext], 'x-mesh-crd': atMostOneOf('listener', 'routeConfiguration', 'cluster', 'waypoint') },
);

/** Istio's EnvoyFilter.Patch: an operation and a free-form value. */
export const envoyPatch = obj({
  operation: enumOf(['INVALID', 'MERGE', 'ADD', 'REMOVE', 'INSERT_BEFORE', 'INSERT_AFTER', 'INSERT_FIRST', 'REPLACE']),
  value: freeForm({ description: 'The JSON config of the object being patched (free-form).' }),
  filterClass: enumOf(['UNSPECIFIED', 'AUTHN', 'AUTHZ', 'STATS']),
});

/** The object kinds an EnvoyFilter patch applies to. */
export const ENVOY_FILTER_APPLY_TO = [
  'INVALID', 'LISTENER', 'FILTER_CHAIN', 'NETWORK_FILTER', 'HTTP_FILTER', 'ROUTE_CONFIGURATION', 'VIRTUAL_HOST',
  'HTTP_ROUTE', 'CLUSTER', 'EXTENSION_CONFIG', 'BOOTSTRAP', 'LISTENER_FILTER',
] as const;

/** Istio's EnvoyFilter.EnvoyConfigObjectPatch. */
export const envoyConfigObjectPatch = obj({
  applyTo: enumOf(ENVOY_FILTER_APPLY_TO),
  match: envoyConfigObjectMatch,
  patch: envoyPatch,
});

/** The spec of an EnvoyFilter (networking.mesh.io): patches to generated data-plane proxy config. */
export const envoyFilterSpec = obj(
  {
    workloadSelector: workloadLabelsSelector,
    targetRefs: policyTargetReferences,
    configPatches: arr(envoyConfigObjectPatch),
    priority: int({ format: 'int32' }),
  },
  [],
  { 'x-kubernetes-validations': [CEL.targetRefsOrWorkloadSelector] },
);
