import { anyDuration, arr, atMostOneOf, bool, enumOf, int, map, num, obj, str, uint32 } from '../../schema/builders.js';
import { connectionPoolSettings } from '../shared/connection-pool.js';
import { portSelector } from '../shared/port-selector.js';
import { celDuration } from '../shared/istio-cel.js';
import { clientTlsSettings } from '../shared/server-tls.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** Istio's LoadBalancerSettings.ConsistentHashLB: at most one hash key (none: the ring balances, routes hash nothing) plus ring options. */
export const consistentHashLb = obj(
  {
    httpHeaderName: str(),
    // NOTE: Istio's CRD has no 1ms rule on the cookie ttl (0s means a session cookie).
    httpCookie: obj({ name: str(), path: str(), ttl: anyDuration(), attributes: arr(obj({ name: str(), value: str() }, ['name'])) }, ['name']),
    useSourceIp: bool(),
    httpQueryParameterName: str(),
    ringHash: obj({ minimumRingSize: int({ minimum: 0 }) }),
    maglev: obj({ tableSize: int({ minimum: 0 }) }),
    minimumRingSize: int({ minimum: 0 }),
  },
  [],
  {
    'x-mesh-crd': {
      allOf: [atMostOneOf('httpHeaderName', 'httpCookie', 'useSourceIp', 'httpQueryParameterName'), atMostOneOf('ringHash', 'maglev')],
    },
  },
);

/** Istio's LocalityLoadBalancerSetting. */
export const localityLbSetting = obj({
  distribute: arr(obj({ from: str(), to: map(uint32()) })),
  failover: arr(obj({ from: str(), to: str() })),
  failoverPriority: arr(str()),
  enabled: bool({ nullable: true }),
});

/** Istio's LoadBalancerSettings: `simple` or `consistentHash`, plus locality and warm-up. */
export const loadBalancerSettings = obj(
  {
    simple: enumOf(['UNSPECIFIED', 'LEAST_CONN', 'RANDOM', 'PASSTHROUGH', 'ROUND_ROBIN', 'LEAST_REQUEST']),
    consistentHash: consistentHashLb,
    localityLbSetting,
    /** Deprecated in Istio: use `warmup`. */
    warmupDurationSecs: celDuration(),
    /** Istio's WarmupConfiguration: slow start over `duration`, from `minimumPercent`, ramping by `aggression`. */
    warmup: obj(
      { duration: celDuration(), minimumPercent: num({ minimum: 0, maximum: 100, nullable: true }), aggression: num({ minimum: 0, nullable: true }) },
      ['duration'],
    ),
  },
  [],
  { 'x-mesh-crd': atMostOneOf('simple', 'consistentHash') },
);

/** Istio's OutlierDetection. */
export const outlierDetection = obj({
  splitExternalLocalOriginErrors: bool(),
  consecutiveLocalOriginFailures: uint32(),
  consecutiveGatewayErrors: uint32(),
  consecutive5xxErrors: uint32(),
  interval: celDuration(),
  baseEjectionTime: celDuration(),
  maxEjectionPercent: int({ format: 'int32' }),
  minHealthPercent: int({ format: 'int32' }),
});

const trafficPolicyCommon = {
  loadBalancer: loadBalancerSettings,
  connectionPool: connectionPoolSettings,
  outlierDetection,
  tls: clientTlsSettings,
} as const;

/** Istio's TrafficPolicy.PortTrafficPolicy: settings for one destination port. */
export const portTrafficPolicy = obj({ port: portSelector, ...trafficPolicyCommon });

/** Istio's TrafficPolicy. */
export const trafficPolicy = obj({
  ...trafficPolicyCommon,
  portLevelSettings: arr(portTrafficPolicy, { maxItems: 4096 }),
  tunnel: obj({ protocol: str(), targetHost: str(), targetPort: uint32() }, ['targetHost', 'targetPort']),
  proxyProtocol: obj({ version: enumOf(['V1', 'V2']) }),
});

/** Istio's Subset: a named set of endpoints selected by labels, with an optional policy. */
export const subset = obj({ name: str(), labels: map(str()), trafficPolicy }, ['name']);

/** The spec of a DestinationRule (networking.mesh.io): policies applied after routing. */
export const destinationRuleSpec = obj(
  {
    host: str({ description: 'The name of a service from the service registry.' }),
    trafficPolicy,
    subsets: arr(subset),
    exportTo: arr(str()),
    workloadSelector,
  },
  ['host'],
);
