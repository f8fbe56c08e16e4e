import type { ServiceEntrySpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkDns1123Label, checkFqdn, checkIpSubnet, checkPartialWildcard, checkPort, checkWildcardDomain } from '../values.js';
import { checkExportToField, checkSelectorLabels, report } from './common.js';
import { validateWorkloadEntry } from './workload-entry.js';

/** Protocol names Istio understands (case-insensitive). */
export const PROTOCOLS = ['HTTP', 'HTTPS', 'GRPC', 'GRPC-WEB', 'HTTP2', 'HTTP_PROXY', 'MONGO', 'MYSQL', 'REDIS', 'TCP', 'TLS', 'UDP'] as const;
const PROTOCOL_SET = new Set<string>(PROTOCOLS);

/** True when `protocol` is empty or one Istio understands. */
export function isKnownProtocol(protocol: string | undefined): boolean {
  return protocol === undefined || protocol === '' || PROTOCOL_SET.has(protocol.toUpperCase());
}

/** Semantic checks of a ServiceEntry spec, after Istio's validation. */
export function validateServiceEntry(spec: ServiceEntrySpec, issues: IssueCollector, path = 'spec'): void {
  const hostsPath = childPath(path, 'hosts');
  const resolution = spec.resolution ?? 'NONE';
  // NOTE: Istio's ValidateServiceEntry: `*` alone is refused, the rest go through ValidateWildcardDomain, and a
  // partial wildcard (`*foo.com`) only warns.
  if (spec.hosts === undefined || spec.hosts.length === 0) issues.error(hostsPath, 'service entry must have at least one host');
  spec.hosts?.forEach((h, i) => {
    const at = childPath(hostsPath, i);
    // NOTE: the CRD's CEL rule and the webhook's message together (the API server answers with the first).
    if (h === '*') return issues.error(at, `hostname cannot be wildcard (invalid host ${h})`);
    report(issues, at, checkWildcardDomain(h));
    // NOTE: Istio skips this warning for DYNAMIC_DNS, a resolution the mesh.io CRD does not take.
    const partial = checkPartialWildcard(h);
    if (partial !== undefined) issues.warn(at, partial);
  });
  spec.addresses?.forEach((a, i) => report(issues, childPath(childPath(path, 'addresses'), i), checkIpSubnet(a)));

  const portNames = new Set<string>();
  const portNumbers = new Set<number>();
  spec.ports?.forEach((p, i) => {
    const at = childPath(childPath(path, 'ports'), i);
    const bad = checkDns1123Label(p.name);
    if (bad !== undefined) issues.error(childPath(at, 'name'), `port name ${bad}`);
    if (portNames.has(p.name)) issues.error(childPath(at, 'name'), `duplicate port name "${p.name}"`);
    if (portNumbers.has(p.number)) issues.error(childPath(at, 'number'), `port number cannot be duplicated (${p.number})`);
    if (p.targetPort !== undefined) report(issues, childPath(at, 'targetPort'), checkPort(p.targetPort));
    portNames.add(p.name);
    portNumbers.add(p.number);
    if (!isKnownProtocol(p.protocol)) issues.error(childPath(at, 'protocol'), `unsupported protocol "${p.protocol}"`);
  });

  const endpoints = spec.endpoints ?? [];
  const endpointsPath = childPath(path, 'endpoints');
  // NOTE: Istio's CEL rules count a field as set when present (CEL's has()), even as an empty list.
  if (spec.workloadSelector !== undefined && spec.endpoints !== undefined) {
    issues.error(path, 'only one of WorkloadSelector or Endpoints can be set');
  }
  checkSelectorLabels(spec.workloadSelector?.labels, childPath(childPath(path, 'workloadSelector'), 'labels'), issues);
  if (resolution !== 'NONE' && resolution !== 'STATIC' && spec.addresses?.some((a) => a.includes('/')) === true) {
    issues.error(childPath(path, 'addresses'), `CIDR addresses are allowed only for NONE/STATIC resolution types (resolution is ${resolution})`);
  }
  switch (resolution) {
    case 'NONE':
      if (spec.endpoints !== undefined) issues.error(endpointsPath, 'NONE mode cannot set endpoints');
      break;
    case 'STATIC':
      if (endpoints.length === 0 && spec.workloadSelector === undefined) {
        issues.warn(endpointsPath, 'resolution STATIC without endpoints or workloadSelector selects nothing');
      }
      break;
    case 'DNS':
    case 'DNS_ROUND_ROBIN':
      if (endpoints.length === 0) {
        // NOTE: as Istio, the first host that is not an FQDN is reported (a wildcard host needs endpoints to resolve).
        const i = (spec.hosts ?? []).findIndex((h) => checkFqdn(h) !== undefined);
        if (i >= 0) {
          const why = checkFqdn(spec.hosts[i]!)!;
          issues.error(childPath(hostsPath, i), `hosts must be FQDN or contain only prefix wildcards if no endpoints are provided for resolution mode ${resolution}, ${why}`);
        }
      }
      if (resolution === 'DNS_ROUND_ROBIN' && endpoints.length > 1) {
        issues.error(endpointsPath, `DNS_ROUND_ROBIN mode cannot have multiple endpoints (got ${endpoints.length})`);
      }
      break;
  }
  endpoints.forEach((e, i) => {
    const at = childPath(endpointsPath, i);
    validateWorkloadEntry(e, issues, at, resolution === 'STATIC' ? 'ipOrUnix' : 'any');
    for (const name of Object.keys(e.ports ?? {})) {
      if (!portNames.has(name)) {
        issues.error(childPath(childPath(at, 'ports'), name), `endpoint port "${name}" is not a port of the service entry`);
      }
    }
  });
  checkExportToField(spec.exportTo, childPath(path, 'exportTo'), issues);
}
