import type {
  ClientTLSSettings,
  ConnectionPoolSettings,
  DestinationRuleSpec,
  LoadBalancerSettings,
  OutlierDetection,
  PortTrafficPolicy,
  TrafficPolicy,
} from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkDns1123Label, checkPort, checkWildcardDomain } from '../values.js';
import { checkExportToField, checkMatchLabels, report } from './common.js';

/** Whether a Maglev table size is prime (as Envoy's and Istio's check: 1, 2 and 3 count as prime). */
function isPrime(n: number): boolean {
  if (n > 0 && n < 4) return true;
  if (n % 2 === 0) return false;
  for (let f = 3; f * f <= n; f += 2) if (n % f === 0) return false;
  return true;
}

function checkLoadBalancer(lb: LoadBalancerSettings, path: string, issues: IssueCollector): void {
  if (lb.simple !== undefined && lb.consistentHash !== undefined) {
    issues.error(path, 'only one of simple or consistentHash may be set');
  }
  const hash = lb.consistentHash;
  if (hash) {
    const at = childPath(path, 'consistentHash');
    // NOTE: as Istio, no hash key is required (the schema allows at most one): `{ ringHash: ... }` alone makes a
    // ring-hash cluster whose routes set no hash policy, and `useSourceIp: false` is a key whose value is false.
    const keys = [hash.httpHeaderName, hash.httpCookie, hash.useSourceIp, hash.httpQueryParameterName].filter((k) => k !== undefined);
    if (keys.length > 1) issues.error(at, 'only one of httpHeaderName, httpCookie, useSourceIp or httpQueryParameterName may be set');
    if (hash.httpCookie && (hash.httpCookie.name ?? '') === '') issues.error(childPath(at, 'httpCookie'), 'name required for HttpCookie');
    // NOTE: as Istio's validateLoadBalancer: cookie attribute names are set and unique (Envoy sends them as given).
    const seen = new Set<string>();
    hash.httpCookie?.attributes?.forEach((a, i) => {
      const aAt = childPath(childPath(childPath(childPath(at, 'httpCookie'), 'attributes'), i), 'name');
      if ((a.name ?? '') === '') issues.error(aAt, 'cookie attribute name cannot be empty');
      else if (seen.has(a.name)) issues.error(aAt, `duplicate cookie attribute name: ${a.name}`);
      else seen.add(a.name);
    });
    if (hash.minimumRingSize !== undefined) {
      issues.warn(childPath(at, 'minimumRingSize'), 'minimumRingSize is deprecated; use ringHash.minimumRingSize');
    }
    const ring = [hash.ringHash, hash.maglev, hash.minimumRingSize].filter((k) => k !== undefined).length;
    if (ring > 1) issues.error(at, 'only one of ringHash, maglev or minimumRingSize may be set');
    if (hash.maglev) {
      const size = hash.maglev.tableSize ?? 0;
      const sizeAt = childPath(childPath(at, 'maglev'), 'tableSize');
      if (size === 0) issues.error(sizeAt, 'tableSize must be set for maglev');
      else if (size >= 5000011) issues.error(sizeAt, 'tableSize must be less than 5000011 for maglev');
      else if (!isPrime(size)) issues.error(sizeAt, `tableSize must be a prime number for maglev (got ${size})`);
    }
  }
  const locality = lb.localityLbSetting;
  if (locality) {
    const at = childPath(path, 'localityLbSetting');
    if (locality.distribute?.length && locality.failover?.length) {
      issues.error(at, "can not simultaneously specify 'distribute' and 'failover'");
    }
    if (locality.failover?.length && locality.failoverPriority?.length) {
      // Istio allows both only when failover regions are distinct; keep the simple rule.
      issues.warn(at, 'failover and failoverPriority are both set; failoverPriority is applied first');
    }
    locality.distribute?.forEach((d, i) => {
      const weights: unknown[] = Object.values(d.to ?? {});
      // NOTE: a weight that is not a number is the schema's error; `+` would have concatenated it into the
      // sum ("total weight 0[object Object] != 100", found by fuzzing).
      if (!weights.every((w) => typeof w === 'number')) return;
      const total = (weights as number[]).reduce((a, b) => a + b, 0);
      if (total !== 100) issues.error(childPath(childPath(childPath(at, 'distribute'), i), 'to'), `total weight ${total} != 100`);
      if ((d.from ?? '') === '') issues.error(childPath(childPath(childPath(at, 'distribute'), i), 'from'), 'from is required');
    });
    locality.failover?.forEach((f, i) => {
      const fAt = childPath(childPath(at, 'failover'), i);
      if ((f.from ?? '') === '' || (f.to ?? '') === '') issues.error(fAt, 'failover needs from and to regions');
      else if (f.from === f.to) issues.error(fAt, 'failover from and to must differ');
    });
  }
}

function checkConnectionPool(pool: ConnectionPoolSettings, path: string, issues: IssueCollector): void {
  const ints: [string, string, number | undefined][] = [
    ['tcp', 'maxConnections', pool.tcp?.maxConnections],
    ['http', 'http1MaxPendingRequests', pool.http?.http1MaxPendingRequests],
    ['http', 'http2MaxRequests', pool.http?.http2MaxRequests],
    ['http', 'maxRequestsPerConnection', pool.http?.maxRequestsPerConnection],
    ['http', 'maxRetries', pool.http?.maxRetries],
    ['http', 'maxConcurrentStreams', pool.http?.maxConcurrentStreams],
  ];
  for (const [group, field, value] of ints) {
    if (value !== undefined && value < 0) issues.error(childPath(childPath(path, group), field), `${field} must not be negative`);
  }
}

function checkOutlier(od: OutlierDetection, path: string, issues: IssueCollector): void {
  for (const field of ['maxEjectionPercent', 'minHealthPercent'] as const) {
    const v = od[field];
    if (v !== undefined && (v < 0 || v > 100)) issues.error(childPath(path, field), `${field} ${v} must be in 0..100`);
  }
}

function checkClientTls(tls: ClientTLSSettings, path: string, issues: IssueCollector): void {
  if (tls.mode === 'MESH_MUTUAL' || tls.mode === 'DISABLE' || tls.mode === undefined) return;
  if (tls.credentialName !== undefined) {
    if (tls.clientCertificate !== undefined || tls.privateKey !== undefined || tls.caCertificates !== undefined) {
      issues.error(path, 'cannot specify client certificates or CA certificate together with credentialName');
    }
    return;
  }
  if (tls.mode === 'MUTUAL' && (tls.clientCertificate === undefined || tls.privateKey === undefined)) {
    issues.error(path, 'MUTUAL mode needs clientCertificate and privateKey (or credentialName)');
  }
}

function checkPolicyParts(p: PortTrafficPolicy | TrafficPolicy, path: string, issues: IssueCollector): void {
  if (p.loadBalancer) checkLoadBalancer(p.loadBalancer, childPath(path, 'loadBalancer'), issues);
  if (p.connectionPool) checkConnectionPool(p.connectionPool, childPath(path, 'connectionPool'), issues);
  if (p.outlierDetection) checkOutlier(p.outlierDetection, childPath(path, 'outlierDetection'), issues);
  if (p.tls) checkClientTls(p.tls, childPath(path, 'tls'), issues);
}

function checkTrafficPolicy(policy: TrafficPolicy, path: string, issues: IssueCollector): void {
  checkPolicyParts(policy, path, issues);
  const seen = new Set<number>();
  policy.portLevelSettings?.forEach((p, i) => {
    const at = childPath(childPath(path, 'portLevelSettings'), i);
    const number = p.port?.number;
    if (number === undefined) issues.error(childPath(at, 'port'), 'port level settings need a port number');
    else {
      report(issues, childPath(childPath(at, 'port'), 'number'), checkPort(number));
      if (seen.has(number)) issues.error(childPath(childPath(at, 'port'), 'number'), `port ${number} has more than one port level setting`);
      seen.add(number);
    }
    checkPolicyParts(p, at, issues);
  });
  if (policy.tunnel) report(issues, childPath(childPath(path, 'tunnel'), 'targetPort'), checkPort(policy.tunnel.targetPort));
}

/**
 * Istio's rules on `exportTo` with a `workloadSelector` (validateExportTo): such a rule stays in its
 * namespace (`.` or the namespace's name, once); `.` and the namespace's name together are duplicates.
 * Without the object's namespace only `.` counts as its own.
 */
function checkSelectorExportTo(spec: DestinationRuleSpec, namespace: string | undefined, path: string, issues: IssueCollector): void {
  const exportTo = spec.exportTo ?? [];
  if (exportTo.length === 0 || !exportTo.every((e) => typeof e === 'string')) return;
  const own = (e: string): boolean => e === '.' || (namespace !== undefined && e === namespace);
  if (namespace !== undefined && exportTo.includes('.') && exportTo.includes(namespace)) {
    issues.error(path, `duplicate entries in exportTo: . and current namespace ${namespace}`);
  }
  if (spec.workloadSelector === undefined) return;
  const set = new Set(exportTo.map((e) => (own(e) ? '.' : e)));
  if (!set.has('.')) issues.error(path, 'destination rule with workload selector cannot have exportTo beyond current namespace');
  else if (set.size > 1) issues.error(path, 'destination rule with workload selector cannot have multiple entries in exportTo');
}

/** Semantic checks of a DestinationRule spec, after Istio's validation; `namespace` is the object's, when known. */
export function validateDestinationRule(spec: DestinationRuleSpec, issues: IssueCollector, path = 'spec', namespace?: string): void {
  report(issues, childPath(path, 'host'), checkWildcardDomain(spec.host));
  if (spec.trafficPolicy) checkTrafficPolicy(spec.trafficPolicy, childPath(path, 'trafficPolicy'), issues);
  const names = new Set<string>();
  spec.subsets?.forEach((s, i) => {
    const at = childPath(childPath(path, 'subsets'), i);
    const bad = checkDns1123Label(s.name);
    if (bad !== undefined) issues.error(childPath(at, 'name'), `subset name ${bad}`);
    if (names.has(s.name)) issues.error(childPath(at, 'name'), `duplicate subset name "${s.name}"`);
    names.add(s.name);
    for (const key of Object.keys(s.labels ?? {})) {
      if (key === '') issues.error(childPath(at, 'labels'), 'subset label keys must not be empty');
    }
    if (s.trafficPolicy) checkTrafficPolicy(s.trafficPolicy, childPath(at, 'trafficPolicy'), issues);
  });
  checkExportToField(spec.exportTo, childPath(path, 'exportTo'), issues);
  checkMatchLabels(spec.workloadSelector?.matchLabels, childPath(childPath(path, 'workloadSelector'), 'matchLabels'), issues);
  checkSelectorExportTo(spec, namespace, childPath(path, 'exportTo'), issues);
  if (spec.workloadSelector && Object.keys(spec.workloadSelector.matchLabels ?? {}).length === 0) {
    // NOTE: as Istio, a warning: a selector without labels picks every workload of the namespace.
    issues.warn(childPath(path, 'workloadSelector'), 'workload selector specified without labels');
  }
}
