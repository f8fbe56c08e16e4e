import type { WasmPluginSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment } from './common.js';

const SCHEMES = new Set(['http:', 'https:', 'file:', 'oci:']);

/** Semantic checks of a WasmPlugin spec. */
export function validateWasmPlugin(spec: WasmPluginSpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(spec.url);
  if (schemeMatch && !SCHEMES.has(`${schemeMatch[1]!.toLowerCase()}:`)) {
    issues.error(childPath(path, 'url'), `url must have schema one of [http, https, file, oci] (got "${schemeMatch[1]}")`);
  }
  const names = new Set<string>();
  spec.vmConfig?.env?.forEach((e, i) => {
    const at = childPath(childPath(childPath(path, 'vmConfig'), 'env'), i);
    if (names.has(e.name)) issues.error(childPath(at, 'name'), `duplicate environment variable "${e.name}"`);
    names.add(e.name);
    if (e.valueFrom === 'HOST' && e.value !== undefined) issues.error(childPath(at, 'value'), 'value may only be set when valueFrom is INLINE');
  });
  // NOTE: Istio's CRD makes match[].ports a list map keyed by number: the API server refuses a repeated port.
  spec.match?.forEach((m, i) => {
    const numbers = new Set<number>();
    m.ports?.forEach((p, j) => {
      const at = childPath(childPath(childPath(childPath(path, 'match'), i), 'ports'), j);
      if (numbers.has(p.number)) issues.error(childPath(at, 'number'), `duplicate port ${p.number}`);
      numbers.add(p.number);
    });
  });
}
