import type { WorkloadEntrySpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkDns1123Label, checkPort, checkWildcardHost, isIpAddress } from '../values.js';
import { report } from './common.js';

/** How an endpoint address must look: any (IP, DNS name or unix socket) or IP/unix only (STATIC). */
export type AddressRule = 'any' | 'ipOrUnix';

/**
 * Semantic checks of a WorkloadEntry spec (also used for ServiceEntry endpoints): the address is
 * required unless a network is given; ports are named by DNS labels and numbered 1..65535.
 */
export function validateWorkloadEntry(
  spec: WorkloadEntrySpec,
  issues: IssueCollector,
  path = 'spec',
  addressRule: AddressRule = 'any',
): void {
  const address = spec.address ?? '';
  const at = childPath(path, 'address');
  if (address === '') {
    if ((spec.network ?? '') === '') issues.error(at, 'Address is required (set address, or network for an endpoint in another network)');
  } else if (address.startsWith('unix://')) {
    // NOTE: Istio's CEL rules on unix socket addresses, with its messages.
    const socket = address.slice('unix://'.length);
    if (!socket.startsWith('/') && !socket.startsWith('@')) issues.error(at, `UDS must be an absolute path or abstract socket (got "${address}")`);
    if (address.endsWith('/')) issues.error(at, `UDS may not be a dir (got "${address}")`);
    if (spec.ports !== undefined) issues.error(childPath(path, 'ports'), 'UDS may not include ports');
  } else if (!isIpAddress(address)) {
    if (addressRule === 'ipOrUnix') issues.error(at, `address "${address}" must be an IP address or unix:// socket`);
    else if (address.includes('*')) issues.error(at, `address "${address}" must not be a wildcard`);
    else report(issues, at, checkWildcardHost(address, false));
  }
  for (const [name, port] of Object.entries(spec.ports ?? {})) {
    const pAt = childPath(childPath(path, 'ports'), name);
    const badName = checkDns1123Label(name);
    if (badName !== undefined) issues.error(pAt, `port name must be valid: ${badName}`);
    report(issues, pAt, checkPort(port));
  }
  for (const key of Object.keys(spec.labels ?? {})) {
    if (key === '') issues.error(childPath(path, 'labels'), 'label keys must not be empty');
  }
  if (spec.serviceAccount !== undefined && spec.serviceAccount !== '') {
    const bad = checkDns1123Subdomainish(spec.serviceAccount);
    if (bad !== undefined) issues.error(childPath(path, 'serviceAccount'), bad);
  }
}

function checkDns1123Subdomainish(value: string): string | undefined {
  return /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value) && value.length <= 253
    ? undefined
    : `service account "${value}" is not a valid name`;
}
