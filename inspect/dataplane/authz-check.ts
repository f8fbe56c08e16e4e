/**
 * `meshctl x authz check`: the authorization policies a proxy enforces, read from the RBAC filters of its
 * listeners (HTTP `envoy.filters.http.rbac`, network `envoy.filters.network.rbac`) in its config dump.
 * Policy names follow meshd's (and Istio's) `ns[<ns>]-policy[<name>]-rule[<i>]`; CUSTOM policies appear in
 * shadow rules as `mesh-ext-authz-ns[...]...`. Istio's table: `ACTION  AuthorizationPolicy  RULES`.
 */
import { pick, type ConfigDump, type Json } from '../configdump/index.js';
import { formatTable } from '../configdump/index.js';

/** One policy and how many of its rules the proxy holds. */
export interface AuthzPolicyRow {
  readonly action: string;
  /** `name.namespace`, or the RBAC policy name when it does not follow the pattern. */
  readonly policy: string;
  readonly rules: number;
}

const RBAC_FILTERS = new Set(['envoy.filters.http.rbac', 'envoy.filters.network.rbac']);
const NAME = /^(?:(?:mesh|istio)-ext-authz-)?ns\[([^\]]+)\]-policy\[([^\]]+)\]-rule\[(\d+)\]$/;

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

function* filtersOf(l: Json): Generator<Json> {
  for (const fc of [...arr(l['filter_chains']), ...(l['default_filter_chain'] ? [l['default_filter_chain'] as Json] : [])]) {
    for (const f of arr(fc['filters'])) {
      yield f;
      for (const hf of arr(pick(f, 'typed_config', 'http_filters'))) yield hf;
    }
  }
}

/** The policies in the dump's RBAC filters, with rule counts, in first-seen order (deduplicated across chains). */
export function authzPolicies(dump: ConfigDump): AuthzPolicyRow[] {
  const rules = new Map<string, { action: string; policy: string; indexes: Set<string> }>();
  for (const l of dump.listeners()) {
    for (const f of filtersOf(l)) {
      if (!RBAC_FILTERS.has(String(f['name']))) continue;
      const tc = (f['typed_config'] ?? {}) as Json;
      const add = (set: unknown, custom: boolean): void => {
        const action = custom ? 'CUSTOM' : String(pick(set, 'action') ?? 'ALLOW');
        for (const name of Object.keys((pick(set, 'policies') ?? {}) as Json)) {
          const m = NAME.exec(name);
          const policy = m ? `${m[2]}.${m[1]}` : name;
          const key = `${action}/${policy}`;
          const e = rules.get(key) ?? { action, policy, indexes: new Set<string>() };
          e.indexes.add(m ? m[3]! : name);
          rules.set(key, e);
        }
      };
      add(tc['rules'], false);
      add(tc['shadow_rules'], true);
    }
  }
  return [...rules.values()].map((r) => ({ action: r.action, policy: r.policy, rules: r.indexes.size }));
}

/** Istio's table. */
export function authzTable(rows: readonly AuthzPolicyRow[]): string {
  return formatTable(['ACTION', 'AuthorizationPolicy', 'RULES'], rows.map((r) => [r.action, r.policy, String(r.rules)]));
}
