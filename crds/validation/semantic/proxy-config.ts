import type { ProxyConfigSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment } from './common.js';

const IMAGE_TYPES = new Set(['default', 'debug', 'distroless']);

/** Semantic checks of a ProxyConfig spec. */
export function validateProxyConfig(spec: ProxyConfigSpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  const imageType = spec.image?.imageType;
  if (imageType !== undefined && !IMAGE_TYPES.has(imageType)) {
    issues.error(childPath(childPath(path, 'image'), 'imageType'), `imageType "${imageType}" must be one of default, debug, distroless`);
  }
  for (const name of Object.keys(spec.environmentVariables ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      issues.error(childPath(childPath(path, 'environmentVariables'), name), `"${name}" is not a valid environment variable name`);
    }
  }
}
