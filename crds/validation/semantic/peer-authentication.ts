import type { PeerAuthenticationSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment } from './common.js';

/** Semantic checks of a PeerAuthentication spec: port-level settings need a selector and numeric ports. */
export function validatePeerAuthentication(spec: PeerAuthenticationSpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  const ports = Object.keys(spec.portLevelMtls ?? {});
  if (ports.length > 0 && Object.keys(spec.selector?.matchLabels ?? {}).length === 0) {
    issues.error(childPath(path, 'portLevelMtls'), 'portLevelMtls requires selector');
  }
  for (const port of ports) {
    if (!/^[0-9]+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      issues.error(childPath(childPath(path, 'portLevelMtls'), port), `port must be between 1-65535 (got "${port}")`);
    }
  }
}
