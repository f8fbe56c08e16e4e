import type { MeshOperatorSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkDns1123Label, checkDns1123Subdomain } from '../values.js';
import { report } from './common.js';

/** Semantic checks of a MeshOperator spec: names of revision, namespaces and gateways. */
export function validateMeshOperator(spec: MeshOperatorSpec, issues: IssueCollector, path = 'spec'): void {
  if (spec.revision !== undefined && spec.revision !== '') report(issues, childPath(path, 'revision'), checkDns1123Label(spec.revision));
  if (spec.namespace !== undefined && spec.namespace !== '') report(issues, childPath(path, 'namespace'), checkDns1123Label(spec.namespace));
  const components = spec.components;
  if (!components) return;
  const componentsPath = childPath(path, 'components');
  for (const key of ['base', 'pilot', 'cni', 'ztunnel'] as const) {
    const ns = components[key]?.namespace;
    if (ns !== undefined && ns !== '') report(issues, childPath(childPath(componentsPath, key), 'namespace'), checkDns1123Label(ns));
  }
  for (const key of ['ingressGateways', 'egressGateways'] as const) {
    const seen = new Set<string>();
    components[key]?.forEach((gw, i) => {
      const at = childPath(childPath(componentsPath, key), i);
      if (gw.name === undefined || gw.name === '') {
        issues.error(childPath(at, 'name'), 'gateway name is required');
        return;
      }
      report(issues, childPath(at, 'name'), checkDns1123Subdomain(gw.name));
      if (seen.has(gw.name)) issues.error(childPath(at, 'name'), `duplicate gateway name "${gw.name}"`);
      seen.add(gw.name);
      if (gw.namespace !== undefined && gw.namespace !== '') report(issues, childPath(at, 'namespace'), checkDns1123Label(gw.namespace));
    });
  }
}
