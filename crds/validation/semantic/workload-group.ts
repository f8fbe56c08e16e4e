import type { WorkloadGroupSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPort } from '../values.js';
import { report } from './common.js';
import { validateWorkloadEntry } from './workload-entry.js';

/** Semantic checks of a WorkloadGroup spec: a template without address, and a probe of exactly one kind. */
export function validateWorkloadGroup(spec: WorkloadGroupSpec, issues: IssueCollector, path = 'spec'): void {
  const templatePath = childPath(path, 'template');
  // NOTE: as istiod, an address in the template is accepted (registration fills in each workload's own)
  // and checked by Istio's CEL rules as a WorkloadEntry's; without one, the rest is checked with a placeholder network.
  const address = spec.template.address ?? '';
  if (address !== '') issues.warn(childPath(templatePath, 'address'), 'the address of a WorkloadGroup template is replaced by each workload\'s own at registration');
  validateWorkloadEntry(address !== '' ? spec.template : { ...spec.template, address: '', network: spec.template.network ?? 'placeholder' }, issues, templatePath);
  const probe = spec.probe;
  if (probe) {
    const at = childPath(path, 'probe');
    const kinds = [probe.httpGet, probe.tcpSocket, probe.exec, probe.grpc].filter((k) => k !== undefined).length;
    if (kinds !== 1) issues.error(at, 'probe must set exactly one of httpGet, tcpSocket, exec or grpc');
    if (probe.httpGet) report(issues, childPath(childPath(at, 'httpGet'), 'port'), checkPort(probe.httpGet.port));
    const scheme = probe.httpGet?.scheme;
    if (scheme !== undefined && !['', 'HTTP', 'HTTPS'].includes(scheme)) issues.error(childPath(childPath(at, 'httpGet'), 'scheme'), `scheme must be one of [HTTP, HTTPS] (got "${scheme}")`);
    if (probe.tcpSocket) report(issues, childPath(childPath(at, 'tcpSocket'), 'port'), checkPort(probe.tcpSocket.port));
    if (probe.grpc?.port !== undefined) report(issues, childPath(childPath(at, 'grpc'), 'port'), checkPort(probe.grpc.port));
    if (probe.exec && probe.exec.command.length === 0) issues.error(childPath(childPath(at, 'exec'), 'command'), 'exec command must not be empty');
  }
}
