import type { Destination, HTTPRoute, RouteDestination, VirtualServiceSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkGatewayVirtualServiceHost, checkPercent, checkPort, checkWildcardDomain, checkWildcardHost, hostsOverlap, isIpAddress } from '../values.js';
import { checkExportToField, report } from './common.js';

/** Envoy retry-on policies Istio accepts besides HTTP status codes. */
const RETRY_ON = new Set([
  '5xx', 'gateway-error', 'reset', 'reset-before-request', 'connect-failure', 'envoy-ratelimited', 'retriable-4xx',
  'refused-stream', 'retriable-status-codes', 'retriable-headers', 'http3-post-connect-failure', 'cancelled',
  'deadline-exceeded', 'internal', 'resource-exhausted', 'unavailable',
]);
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

function checkDestination(d: Destination, path: string, issues: IssueCollector): void {
  if (d.host.includes('*')) issues.error(childPath(path, 'host'), `destination host "${d.host}" must not contain a wildcard`);
  else report(issues, childPath(path, 'host'), checkWildcardHost(d.host, false));
  if (d.port?.number !== undefined) report(issues, childPath(childPath(path, 'port'), 'number'), checkPort(d.port.number));
}

/**
 * Checks weights of a route list: non-negative and, with more than one destination, not all 0. As in
 * Istio, weights are relative (a destination gets weight/sum of the traffic): 30/80 is accepted, and only
 * a total of 0 is refused (no destination would get any traffic).
 */
function checkWeights(route: readonly { weight?: number }[], path: string, issues: IssueCollector): void {
  let total = 0;
  route.forEach((r, i) => {
    const w = r.weight ?? 0;
    if (w < 0) issues.error(childPath(childPath(path, i), 'weight'), `weight ${w} must not be negative`);
    total += w;
  });
  if (route.length > 1 && total === 0) {
    issues.error(path, 'total destination weight = 0');
  }
}

function checkRouteDestinations(route: readonly RouteDestination[], path: string, issues: IssueCollector): void {
  route.forEach((r, i) => checkDestination(r.destination, childPath(childPath(path, i), 'destination'), issues));
  checkWeights(route, path, issues);
}

function checkHttpRoute(http: HTTPRoute, path: string, issues: IssueCollector, delegate: boolean): void {
  const has = (k: keyof HTTPRoute): boolean => http[k] !== undefined;
  if (!has('route') && !has('redirect') && !has('directResponse') && !has('delegate')) {
    issues.error(path, 'HTTP route, redirect, directResponse or delegate is required');
  }
  if (has('route') && has('redirect')) issues.error(path, 'HTTP route cannot contain both route and redirect');
  if (has('route') && has('directResponse')) issues.error(path, 'HTTP route cannot contain both route and directResponse');
  if (has('redirect') && has('directResponse')) issues.error(path, 'HTTP route cannot contain both redirect and directResponse');
  if (has('rewrite') && has('redirect')) issues.error(path, 'HTTP route rule cannot contain both rewrite and redirect');
  if (has('delegate')) {
    if (delegate) issues.error(childPath(path, 'delegate'), 'a delegate VirtualService must not delegate again');
    if (has('route') || has('redirect') || has('directResponse')) {
      issues.error(childPath(path, 'delegate'), 'delegate cannot be combined with route, redirect or directResponse');
    }
    if (http.delegate?.name === undefined || http.delegate.name === '') {
      issues.error(childPath(childPath(path, 'delegate'), 'name'), 'delegate name is required');
    }
  }
  if (http.route) {
    const routePath = childPath(path, 'route');
    http.route.forEach((r, i) => checkDestination(r.destination, childPath(childPath(routePath, i), 'destination'), issues));
    checkWeights(http.route, routePath, issues);
  }
  if (http.mirror) checkDestination(http.mirror, childPath(path, 'mirror'), issues);
  http.mirrors?.forEach((m, i) => checkDestination(m.destination, childPath(childPath(childPath(path, 'mirrors'), i), 'destination'), issues));
  http.match?.forEach((m, i) => {
    const at = childPath(childPath(path, 'match'), i);
    if (m.port !== undefined) report(issues, childPath(at, 'port'), checkPort(m.port));
    for (const key of Object.keys(m.headers ?? {})) {
      if (key === '') issues.error(childPath(at, 'headers'), 'header name must not be empty');
    }
  });
  if (http.retries) {
    const at = childPath(path, 'retries');
    if ((http.retries.attempts ?? 0) < 0) issues.error(childPath(at, 'attempts'), 'attempts must not be negative');
    for (const policy of (http.retries.retryOn ?? '').split(',').filter((p) => p !== '')) {
      const p = policy.trim();
      if (!RETRY_ON.has(p) && !(/^[0-9]{3}$/.test(p) && Number(p) >= 100 && Number(p) <= 599)) {
        issues.error(childPath(at, 'retryOn'), `"${p}" is not a valid retryOn policy or HTTP status code`);
      }
    }
  }
  const fault = http.fault;
  if (fault) {
    const at = childPath(path, 'fault');
    if (!fault.delay && !fault.abort) issues.error(at, 'fault must specify at least one of delay or abort');
    if (fault.delay?.fixedDelay !== undefined && fault.delay.exponentialDelay !== undefined) {
      // NOTE: a proto oneof: Istio's CRD refuses both (its oneOf), istiod's decoder too.
      issues.error(childPath(at, 'delay'), 'only one of fixedDelay or exponentialDelay may be set');
    }
    if (fault.delay && fault.delay.fixedDelay === undefined && fault.delay.exponentialDelay === undefined) {
      issues.error(childPath(at, 'delay'), 'delay must specify fixedDelay');
    }
    if (fault.delay?.percent !== undefined) {
      const percentPath = childPath(childPath(at, 'delay'), 'percent');
      report(issues, percentPath, checkPercent(fault.delay.percent));
      issues.warn(percentPath, 'percent is deprecated; use percentage');
    }
    const abort = fault.abort;
    if (abort) {
      const kinds = [abort.httpStatus, abort.grpcStatus, abort.http2Error].filter((v) => v !== undefined).length;
      if (kinds !== 1) issues.error(childPath(at, 'abort'), 'abort must specify exactly one of httpStatus, grpcStatus or http2Error');
      if (abort.httpStatus !== undefined && (abort.httpStatus < 200 || abort.httpStatus > 599)) {
        issues.error(childPath(childPath(at, 'abort'), 'httpStatus'), `httpStatus ${abort.httpStatus} must be in 200..599`);
      }
    }
  }
  if (http.redirect?.redirectCode !== undefined && !REDIRECT_CODES.has(http.redirect.redirectCode)) {
    issues.error(childPath(childPath(path, 'redirect'), 'redirectCode'), `redirectCode ${http.redirect.redirectCode} must be one of 301, 302, 303, 307, 308`);
  }
  if (http.redirect?.port !== undefined) report(issues, childPath(childPath(path, 'redirect'), 'port'), checkPort(http.redirect.port));
  if (http.redirect?.port !== undefined && http.redirect.derivePort !== undefined) {
    issues.error(childPath(path, 'redirect'), 'only one of port or derivePort may be set');
  }
  const status = http.directResponse?.status;
  if (status !== undefined && (status < 200 || status > 599)) {
    issues.error(childPath(childPath(path, 'directResponse'), 'status'), `status ${status} must be in 200..599`);
  }
  if (http.rewrite?.uri !== undefined && http.rewrite.uriRegexRewrite !== undefined) {
    issues.error(childPath(path, 'rewrite'), 'only one of uri or uriRegexRewrite may be set');
  }
}

function checkGateways(gateways: readonly string[] | undefined, path: string, issues: IssueCollector): void {
  gateways?.forEach((gw, i) => {
    const parts = gw.split('/');
    const ok = gw !== '' && parts.length <= 2 && parts.every((p) => p !== '' && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(p));
    if (!ok) issues.error(childPath(path, i), `gateway "${gw}" must be "mesh", <name> or <namespace>/<name>`);
  });
}

/**
 * Istio's checks of VirtualService `hosts`: each a wildcard domain (ValidateWildcardDomain; bound only to gateways,
 * with SNI matches, also `outbound_.<PORT>_._.<HOSTNAME>`) or an IP address; `*` alone not when the mesh uses it
 * (no gateways, or `mesh` among them); when all are valid, no two that overlap (host.Name.Matches).
 */
function checkVirtualServiceHosts(spec: VirtualServiceSpec, path: string, issues: IssueCollector): void {
  const hosts = spec.hosts ?? [];
  const appliesToGateway = (spec.gateways ?? []).length > 0 && !spec.gateways!.includes('mesh');
  const sni = (spec.tls ?? []).some((t) => t.match.some((m) => m.sniHosts.length > 0));
  let allValid = true;
  hosts.forEach((h, i) => {
    const bad = appliesToGateway ? checkGatewayVirtualServiceHost(sni, h) : checkWildcardDomain(h);
    if (bad !== undefined) {
      if (!isIpAddress(h)) {
        issues.error(childPath(path, i), bad);
        allValid = false;
      }
    } else if (!appliesToGateway && h === '*') {
      issues.error(childPath(path, i), 'wildcard host * is not allowed for virtual services bound to the mesh gateway');
      allValid = false;
    }
  });
  if (!allValid) return;
  for (let i = 0; i < hosts.length; i++) {
    for (let j = i + 1; j < hosts.length; j++) {
      if (hostsOverlap(hosts[i]!, hosts[j]!)) issues.error(childPath(path, j), `duplicate hosts in virtual service: ${hosts[i]} & ${hosts[j]}`);
    }
  }
}

/** Istio's host.Name.SubsetOf: whether host `n` is covered by host `o`. */
function hostSubsetOf(n: string, o: string): boolean {
  const nw = n.startsWith('*');
  const ow = o.startsWith('*');
  if (nw) return ow && n.length >= o.length && n.slice(1).endsWith(o.slice(1));
  if (ow) return n.endsWith(o.slice(1));
  return n === o;
}

/**
 * Istio's validateSniHost: a wildcard domain (with the gateway form unless `mesh` is among the gateways; an IP only
 * warns), covered by one of the VirtualService's hosts.
 */
function checkSniHost(spec: VirtualServiceSpec, sni: string, at: string, issues: IssueCollector): void {
  // NOTE: as Istio's isGateway: true when `mesh` is not listed, so also without gateways.
  const bad = !(spec.gateways ?? []).includes('mesh') ? checkGatewayVirtualServiceHost(true, sni) : checkWildcardDomain(sni);
  if (bad !== undefined) {
    if (isIpAddress(sni)) issues.warn(at, `using an IP address ("${sni}") goes against SNI spec and most clients do not support this`);
    else issues.error(at, bad);
    return;
  }
  const hosts = spec.hosts ?? [];
  if (!hosts.some((h) => hostSubsetOf(sni, h))) {
    issues.error(at, `SNI host "${sni}" is not a compatible subset of any of the virtual service hosts: [${hosts.join(', ')}]`);
  }
}

/** Semantic checks of a VirtualService spec, after Istio's validation. */
export function validateVirtualService(spec: VirtualServiceSpec, issues: IssueCollector, path = 'spec'): void {
  const hosts = spec.hosts ?? [];
  // NOTE: a VirtualService without hosts is a delegate: it must have HTTP routes and no gateways.
  const delegate = hosts.length === 0;
  if (delegate && (spec.gateways !== undefined || spec.http === undefined || spec.tls !== undefined || spec.tcp !== undefined)) {
    issues.error(childPath(path, 'hosts'), 'virtual service must have at least one host');
  }
  checkVirtualServiceHosts(spec, childPath(path, 'hosts'), issues);
  checkGateways(spec.gateways, childPath(path, 'gateways'), issues);
  if (!spec.http?.length && !spec.tls?.length && !spec.tcp?.length) {
    issues.error(path, 'http, tcp or tls must be provided in virtual service');
  }
  spec.http?.forEach((h, i) => checkHttpRoute(h, childPath(childPath(path, 'http'), i), issues, delegate));
  spec.tls?.forEach((t, i) => {
    const at = childPath(childPath(path, 'tls'), i);
    if (t.match.length === 0) issues.error(childPath(at, 'match'), 'TLS route must have at least one match condition');
    t.match.forEach((m, j) => {
      const mAt = childPath(childPath(at, 'match'), j);
      if (m.sniHosts.length === 0) issues.error(childPath(mAt, 'sniHosts'), 'TLS match must have at least one SNI host');
      m.sniHosts.forEach((h, k) => checkSniHost(spec, h, childPath(childPath(mAt, 'sniHosts'), k), issues));
      if (m.port !== undefined) report(issues, childPath(mAt, 'port'), checkPort(m.port));
    });
    if (!t.route?.length) issues.error(childPath(at, 'route'), 'TLS route must have at least one destination');
    else checkRouteDestinations(t.route, childPath(at, 'route'), issues);
  });
  spec.tcp?.forEach((t, i) => {
    const at = childPath(childPath(path, 'tcp'), i);
    t.match?.forEach((m, j) => {
      if (m.port !== undefined) report(issues, childPath(childPath(childPath(at, 'match'), j), 'port'), checkPort(m.port));
    });
    if (!t.route?.length) issues.error(childPath(at, 'route'), 'TCP route must have at least one destination');
    else checkRouteDestinations(t.route, childPath(at, 'route'), issues);
  });
  checkExportToField(spec.exportTo, childPath(path, 'exportTo'), issues);
}
