import type { AuthorizationCondition, AuthorizationPolicySpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkIpOrCidr } from '../values.js';
import { checkPolicyAttachment, report } from './common.js';

const IP_KEYS = new Set(['source.ip', 'remote.ip', 'destination.ip']);
const PLAIN_KEYS = new Set([
  'source.ip', 'remote.ip', 'source.namespace', 'source.principal', 'source.serviceAccount',
  'request.auth.principal', 'request.auth.audiences', 'request.auth.presenter',
  'destination.ip', 'destination.port', 'connection.sni',
]);

/** True when `key` is a condition key Istio knows (`request.headers[x]`, `request.auth.claims[x]`, ...). */
export function isKnownConditionKey(key: string): boolean {
  if (PLAIN_KEYS.has(key)) return true;
  if (/^request\.headers\[[^\]]+\]$/.test(key)) return true;
  if (/^request\.auth\.claims(\[[^\]]+\])+$/.test(key)) return true;
  return key.startsWith('experimental.envoy.filters.') && key.length > 'experimental.envoy.filters.'.length;
}

/** Checks the `*` rule Istio applies to matched strings: a wildcard only at the start or the end. */
function checkWildcard(value: string): string | undefined {
  if (value === '*' || !value.includes('*')) return undefined;
  const inner = value.slice(1, -1);
  if (inner.includes('*') || (value.startsWith('*') && value.endsWith('*'))) {
    return `value "${value}": wildcard "*" is only allowed at the start or the end`;
  }
  return undefined;
}

function checkStrings(values: readonly string[] | undefined, path: string, issues: IssueCollector, extra?: (v: string) => string | undefined): void {
  values?.forEach((v, i) => {
    const at = childPath(path, i);
    if (v === '') {
      issues.error(at, 'value must not be empty');
      return;
    }
    report(issues, at, extra !== undefined ? extra(v) : checkWildcard(v));
  });
}

function checkPrincipal(value: string): string | undefined {
  if (value.startsWith('spiffe://')) return `principal "${value}" must not include the spiffe:// prefix (use <trust-domain>/ns/<ns>/sa/<sa>)`;
  return checkWildcard(value);
}

function checkPortValue(value: string): string | undefined {
  return /^[0-9]+$/.test(value) && Number(value) <= 65535 ? undefined : `port "${value}" must be a number in 0..65535`;
}

function checkServiceAccount(value: string): string | undefined {
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value)
    ? undefined
    : `service account "${value}" must be <namespace>/<name>`;
}

function checkCondition(c: AuthorizationCondition, path: string, issues: IssueCollector): void {
  if (!isKnownConditionKey(c.key)) issues.error(childPath(path, 'key'), `unknown attribute "${c.key}"`);
  if (!c.values?.length && !c.notValues?.length) {
    issues.error(path, `at least one of values or notValues must be set for key "${c.key}"`);
  }
  const extra = IP_KEYS.has(c.key) ? checkIpOrCidr : c.key === 'destination.port' ? checkPortValue : undefined;
  checkStrings(c.values, childPath(path, 'values'), issues, extra);
  checkStrings(c.notValues, childPath(path, 'notValues'), issues, extra);
}

/** Semantic checks of an AuthorizationPolicy spec, after Istio's validation. */
export function validateAuthorizationPolicy(spec: AuthorizationPolicySpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  const action = spec.action ?? 'ALLOW';
  if (action === 'CUSTOM') {
    if ((spec.provider?.name ?? '') === '') issues.error(childPath(path, 'provider'), 'a CUSTOM action needs a provider name');
  } else if (spec.provider !== undefined) {
    issues.error(childPath(path, 'provider'), 'provider may only be set with the CUSTOM action');
  }
  // NOTE: no rules is fine: ALLOW with no rules matches nothing (denies all), DENY with no rules denies nothing.
  spec.rules?.forEach((rule, i) => {
    const at = childPath(childPath(path, 'rules'), i);
    rule.from?.forEach((from, j) => {
      const fAt = childPath(childPath(childPath(at, 'from'), j), 'source');
      const s = from.source;
      if (s === undefined || Object.values(s).every((v) => v === undefined || v.length === 0)) {
        issues.error(fAt, '`from.source` must not be empty');
        return;
      }
      checkStrings(s.principals, childPath(fAt, 'principals'), issues, checkPrincipal);
      checkStrings(s.notPrincipals, childPath(fAt, 'notPrincipals'), issues, checkPrincipal);
      checkStrings(s.requestPrincipals, childPath(fAt, 'requestPrincipals'), issues);
      checkStrings(s.notRequestPrincipals, childPath(fAt, 'notRequestPrincipals'), issues);
      checkStrings(s.namespaces, childPath(fAt, 'namespaces'), issues);
      checkStrings(s.notNamespaces, childPath(fAt, 'notNamespaces'), issues);
      for (const field of ['ipBlocks', 'notIpBlocks', 'remoteIpBlocks', 'notRemoteIpBlocks'] as const) {
        checkStrings(s[field], childPath(fAt, field), issues, checkIpOrCidr);
      }
      checkStrings(s.serviceAccounts, childPath(fAt, 'serviceAccounts'), issues, checkServiceAccount);
      checkStrings(s.notServiceAccounts, childPath(fAt, 'notServiceAccounts'), issues, checkServiceAccount);
      // NOTE: Istio's CEL rule: presence counts, as CEL's has() (an empty list set is set).
      if ((s.serviceAccounts !== undefined || s.notServiceAccounts !== undefined) && [s.principals, s.notPrincipals, s.namespaces, s.notNamespaces].some((v) => v !== undefined)) {
        issues.error(fAt, 'Cannot set serviceAccounts with namespaces or principals');
      }
    });
    rule.to?.forEach((to, j) => {
      const tAt = childPath(childPath(childPath(at, 'to'), j), 'operation');
      const o = to.operation;
      if (o === undefined || Object.values(o).every((v) => v === undefined || v.length === 0)) {
        issues.error(tAt, '`to.operation` must not be empty');
        return;
      }
      checkStrings(o.hosts, childPath(tAt, 'hosts'), issues);
      checkStrings(o.notHosts, childPath(tAt, 'notHosts'), issues);
      checkStrings(o.ports, childPath(tAt, 'ports'), issues, checkPortValue);
      checkStrings(o.notPorts, childPath(tAt, 'notPorts'), issues, checkPortValue);
      checkStrings(o.methods, childPath(tAt, 'methods'), issues);
      checkStrings(o.notMethods, childPath(tAt, 'notMethods'), issues);
      checkStrings(o.paths, childPath(tAt, 'paths'), issues, checkPath);
      checkStrings(o.notPaths, childPath(tAt, 'notPaths'), issues, checkPath);
    });
    rule.when?.forEach((c, j) => checkCondition(c, childPath(childPath(at, 'when'), j), issues));
  });
}

/** Paths: `*` at the start or end, or `{*}`/`{**}` path templates. */
function checkPath(value: string): string | undefined {
  if (value.includes('{')) {
    return /^(\/(\{\*\*?\}|[^{}*/]*))+$/.test(value) ? undefined : `path template "${value}" is not valid`;
  }
  return checkWildcard(value);
}
