import type { RequestAuthenticationSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment } from './common.js';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function checkHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `"${value}" must be an http or https URL`;
  } catch {
    return `"${value}" is not a URL`;
  }
}

/** Semantic checks of a RequestAuthentication spec, after Istio's validation. */
export function validateRequestAuthentication(spec: RequestAuthenticationSpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  const issuers = new Set<string>();
  spec.jwtRules?.forEach((rule, i) => {
    const at = childPath(childPath(path, 'jwtRules'), i);
    if (issuers.has(rule.issuer)) issues.warn(childPath(at, 'issuer'), `issuer "${rule.issuer}" appears in more than one rule`);
    issuers.add(rule.issuer);
    if (rule.jwksUri !== undefined) {
      const bad = checkHttpUrl(rule.jwksUri);
      if (bad !== undefined) issues.error(childPath(at, 'jwksUri'), bad);
    }
    if (rule.jwksUri !== undefined && rule.jwks !== undefined) {
      issues.warn(childPath(at, 'jwks'), 'jwks and jwksUri are both set; jwks is used');
    }
    rule.fromHeaders?.forEach((h, j) => {
      if (!HEADER_NAME.test(h.name)) issues.error(childPath(childPath(childPath(at, 'fromHeaders'), j), 'name'), `"${h.name}" is not a valid header name`);
    });
    rule.outputClaimToHeaders?.forEach((o, j) => {
      const oAt = childPath(childPath(at, 'outputClaimToHeaders'), j);
      if (!HEADER_NAME.test(o.header ?? '')) issues.error(childPath(oAt, 'header'), `"${o.header ?? ''}" is not a valid header name`);
      if ((o.claim ?? '') === '') issues.error(childPath(oAt, 'claim'), 'claim must not be empty');
    });
    if (rule.outputPayloadToHeader !== undefined && !HEADER_NAME.test(rule.outputPayloadToHeader)) {
      issues.error(childPath(at, 'outputPayloadToHeader'), `"${rule.outputPayloadToHeader}" is not a valid header name`);
    }
  });
}
