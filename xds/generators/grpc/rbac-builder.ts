/**
 * AuthorizationPolicy -> Envoy HTTP RBAC filters for gRPC servers (Istio's authz builder, the parts
 * gRPC evaluates): DENY policies first, then ALLOW policies (present ALLOW policies with no matching
 * rule deny). CUSTOM policies cannot be evaluated by gRPC and fail closed (served as DENY).
 * Fields gRPC cannot see (request principals, JWT claims) make an ALLOW rule never match and are
 * dropped from a DENY rule (so it denies more), as Istio does for unsupported fields.
 */
import type { Config } from '../../../core/index.js';
import { any, ENVOY } from './envoy.js';
import type { AuthorizationCondition, AuthorizationOperation, AuthorizationPolicySpec, AuthorizationSource } from '../../../crds/index.js';

import type { HttpFilter, RbacPolicy, StringMatcher } from '../../envoy-types/index.js';

// NOTE: principals and permissions share the combinators (or, not, any) and stay loose objects; the policy,
// filter and matcher shapes around them are the generated Envoy types.
type Obj = Record<string, unknown>;

/** An Envoy StringMatcher for an Istio value with `*` prefix/suffix wildcards. */
export function wildcardMatcher(v: string): StringMatcher {
  if (v === '*') return { safeRegex: { regex: '.+' } };
  if (v.endsWith('*')) return { prefix: v.slice(0, -1) };
  if (v.startsWith('*')) return { suffix: v.slice(1) };
  return { exact: v };
}

function cidr(text: string): Obj {
  const [address, len] = text.split('/');
  const prefixLen = len !== undefined ? Number(len) : address!.includes(':') ? 128 : 32;
  return { addressPrefix: address, prefixLen: { value: prefixLen } };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const orIds = (ids: Obj[]): Obj => (ids.length === 1 ? ids[0]! : { orIds: { ids } });
const orRules = (rules: Obj[]): Obj => (rules.length === 1 ? rules[0]! : { orRules: { rules } });
const notId = (id: Obj): Obj => ({ notId: id });
const notRule = (rule: Obj): Obj => ({ notRule: rule });

const principalName = (p: string): Obj => ({
  authenticated: { principalName: p === '*' ? { safeRegex: { regex: '.+' } } : wildcardMatcher(p.startsWith('spiffe://') || p.includes('*') ? p : `spiffe://${p}`) },
});
const namespaceId = (ns: string): Obj => ({ authenticated: { principalName: { safeRegex: { regex: `.*/ns/${escapeRegex(ns)}/.*` } } } });
const ipId = (c: string): Obj => ({ directRemoteIp: cidr(c) });

/** Marks a rule that uses something gRPC cannot evaluate. */
class Unsupported extends Error {}

function sourceIds(s: AuthorizationSource): Obj[] {
  if (s.requestPrincipals || s.remoteIpBlocks) throw new Unsupported('request principals / remote IPs');
  const and: Obj[] = [];
  if (s.principals?.length) and.push(orIds(s.principals.map(principalName)));
  if (s.notPrincipals?.length) and.push(notId(orIds(s.notPrincipals.map(principalName))));
  if (s.namespaces?.length) and.push(orIds(s.namespaces.map(namespaceId)));
  if (s.notNamespaces?.length) and.push(notId(orIds(s.notNamespaces.map(namespaceId))));
  if (s.ipBlocks?.length) and.push(orIds(s.ipBlocks.map(ipId)));
  if (s.notIpBlocks?.length) and.push(notId(orIds(s.notIpBlocks.map(ipId))));
  return and;
}

function header(name: string, value: string): Obj {
  return { header: { name, stringMatch: wildcardMatcher(value) } };
}

function operationRules(o: AuthorizationOperation): Obj[] {
  const and: Obj[] = [];
  const path = (p: string): Obj => ({ urlPath: { path: wildcardMatcher(p) } });
  const port = (p: string): Obj => ({ destinationPort: Number(p) });
  if (o.paths?.length) and.push(orRules(o.paths.map(path)));
  if (o.notPaths?.length) and.push(notRule(orRules(o.notPaths.map(path))));
  if (o.methods?.length) and.push(orRules(o.methods.map((m) => header(':method', m))));
  if (o.notMethods?.length) and.push(notRule(orRules(o.notMethods.map((m) => header(':method', m)))));
  if (o.ports?.length) and.push(orRules(o.ports.map(port)));
  if (o.notPorts?.length) and.push(notRule(orRules(o.notPorts.map(port))));
  if (o.hosts?.length) and.push(orRules(o.hosts.map((h) => header(':authority', h))));
  if (o.notHosts?.length) and.push(notRule(orRules(o.notHosts.map((h) => header(':authority', h)))));
  return and;
}

/** Splits a `when` condition into the principal side or the permission side. */
function condition(c: AuthorizationCondition): { id?: Obj; rule?: Obj } {
  const values = c.values ?? [];
  const notValues = c.notValues ?? [];
  const both = <T extends Obj>(f: (v: string) => T, wrapNot: (x: Obj) => Obj, or: (x: Obj[]) => Obj): Obj => {
    const parts: Obj[] = [];
    if (values.length) parts.push(or(values.map(f)));
    if (notValues.length) parts.push(wrapNot(or(notValues.map(f))));
    return parts.length === 1 ? parts[0]! : { andRules: { rules: parts } };
  };
  const hdr = /^request\.headers\[(.+)\]$/.exec(c.key);
  if (hdr) return { rule: both((v) => header(hdr[1]!, v), notRule, orRules) };
  switch (c.key) {
    case 'source.ip':
      return { id: both(ipId, notId, orIds) };
    case 'source.namespace':
      return { id: both(namespaceId, notId, orIds) };
    case 'source.principal':
      return { id: both(principalName, notId, orIds) };
    case 'destination.port':
      return { rule: both((v) => ({ destinationPort: Number(v) }), notRule, orRules) };
    default:
      throw new Unsupported(c.key);
  }
}

/** The Envoy policy of one rule, or undefined when it can never match for gRPC. */
function rulePolicy(rule: NonNullable<AuthorizationPolicySpec['rules']>[number], deny: boolean): RbacPolicy | undefined {
  const ids: Obj[] = [];
  const perms: Obj[] = [];
  const attempt = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      if (!deny) throw e;
      return undefined;
    }
  };
  try {
    if (rule.from?.length) {
      const alts = rule.from.map((f) => attempt(() => sourceIds(f.source ?? {}))).filter((x): x is Obj[] => x !== undefined);
      if (alts.length > 0) ids.push(orIds(alts.map((a) => (a.length === 0 ? { any: true } : a.length === 1 ? a[0]! : { andIds: { ids: a } }))));
    }
    if (rule.to?.length) {
      const alts = rule.to.map((t) => operationRules(t.operation ?? {}));
      perms.push(orRules(alts.map((a) => (a.length === 0 ? { any: true } : a.length === 1 ? a[0]! : { andRules: { rules: a } }))));
    }
    for (const c of rule.when ?? []) {
      const r = attempt(() => condition(c));
      if (r?.id) ids.push(r.id);
      if (r?.rule) perms.push(r.rule);
    }
  } catch (e) {
    if (e instanceof Unsupported) return undefined; // ALLOW rule gRPC cannot check: it never matches
    throw e;
  }
  return {
    permissions: [perms.length === 0 ? { any: true } : perms.length === 1 ? perms[0]! : { andRules: { rules: perms } }],
    principals: [ids.length === 0 ? { any: true } : ids.length === 1 ? ids[0]! : { andIds: { ids } }],
  };
}

function policies(configs: readonly Config[], deny: boolean): Record<string, RbacPolicy> {
  const out: Record<string, RbacPolicy> = {};
  for (const c of configs) {
    const spec = c.spec as unknown as AuthorizationPolicySpec;
    for (const [i, rule] of (spec.rules ?? []).entries()) {
      const p = rulePolicy(rule, deny);
      if (p) out[`ns[${c.metadata.namespace}]-policy[${c.metadata.name}]-rule[${i}]`] = p;
    }
  }
  return out;
}

/** The HTTP filters (before the router) for the policies that apply to a workload. Empty when none. */
export function rbacFilters(applicable: { allow: readonly Config[]; deny: readonly Config[]; custom: readonly Config[] }): HttpFilter[] {
  const filters: HttpFilter[] = [];
  const denyPolicies = policies([...applicable.custom, ...applicable.deny], true);
  if (Object.keys(denyPolicies).length > 0) {
    filters.push({ name: 'envoy.filters.http.rbac.deny', typedConfig: any(ENVOY.rbac, { rules: { action: 'DENY', policies: denyPolicies } }) });
  }
  if (applicable.allow.length > 0) {
    // NOTE: ALLOW policies that exist but match nothing still deny everything else (allow-nothing).
    filters.push({
      name: 'envoy.filters.http.rbac.allow',
      typedConfig: any(ENVOY.rbac, { rules: { action: 'ALLOW', policies: policies(applicable.allow, false) } }),
    });
  }
  return filters;
}
