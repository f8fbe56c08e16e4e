import type { RequestAuthenticationSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment, report } from './common.js';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function checkHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `url must have scheme http:// or https:// (got "${value}")`;
  } catch {
    return `url must have scheme http:// or https:// ("${value}" is not a URL)`;
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
    for (const field of ['jwksUri', 'jwks_uri'] as const) {
      const uri = rule[field];
      if (uri !== undefined) report(issues, childPath(at, field), checkHttpUrl(uri));
    }
    // NOTE: Istio's CEL rule counts jwks_uri (the deprecated spelling) as jwksUri.
    if ([rule.jwksUri, rule.jwks_uri, rule.jwks].filter((v) => v !== undefined).length > 1) {
      issues.error(at, 'only one of jwks or jwksUri can be set');
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
