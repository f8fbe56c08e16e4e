/**
 * schema.ValidationAnalyzer.<Kind>: each mesh.io resource passes the validators meshd, the CRDs and the
 * webhook use (crds/ validateConfig): errors are IST0106, warnings IST0133. For VirtualServices it also
 * reports rules that can never match (IST0130) and matches that repeat an earlier one (IST0131), which
 * Istio's validation reports as analysis messages.
 */
import { KINDS, KIND_NAMES, validateConfig } from '../../crds/index.js';
import type { AnalysisContext } from '../analysis-context.js';
import type { Analyzer } from '../analyzer.js';
import { kindKey } from '../resource.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';
import type { Resource } from '../resource.js';

function ruleName(rule: Record<string, unknown>, n: number): string {
  const name = str(rule['name']);
  return name ? JSON.stringify(name) : `#${n}`;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A match without its `name`, in a key order that does not depend on the document's. */
function matchKey(m: Record<string, unknown>): string {
  const { name: _name, ...rest } = m;
  return canonical(rest);
}

/** IST0130/IST0131 over one rule list (`http`, `tcp` or `tls`) of a VirtualService. */
export function reportUnreachableRules(ctx: AnalysisContext, vs: Resource, rules: Record<string, unknown>[]): void {
  const seen = new Map<string, number>();
  let catchAll = -1;
  rules.forEach((rule, n) => {
    const matches = recs(rule['match']);
    if (catchAll >= 0) {
      ctx.report(MESSAGES.VirtualServiceUnreachableRule, vs, ruleName(rule, n), 'only the last rule can have no matches');
      return;
    }
    if (matches.length === 0) {
      catchAll = n;
      return;
    }
    let dups = 0;
    matches.forEach((m, i) => {
      const k = matchKey(m);
      const prior = seen.get(k);
      if (prior !== undefined) {
        const mname = str(m['name']);
        ctx.report(MESSAGES.VirtualServiceIneffectiveMatch, vs, ruleName(rule, n), mname ? JSON.stringify(mname) : `#${i}`, ruleName(rules[prior]!, prior));
        dups++;
      } else {
        seen.set(k, n);
      }
    });
    if (dups === matches.length) ctx.report(MESSAGES.VirtualServiceUnreachableRule, vs, ruleName(rule, n), 'all matches used by prior rules');
  });
}

function schemaAnalyzer(kind: (typeof KIND_NAMES)[number]): Analyzer {
  const def = KINDS[kind];
  const key = kindKey(def.group, def.kind);
  return {
    name: `schema.ValidationAnalyzer.${def.kind}`,
    description: `Runs schema validation as an analyzer on '${def.kind}' resources`,
    inputs: [key],
    analyze(ctx) {
      for (const r of ctx.all(key)) {
        const result = validateConfig(r.obj);
        const text = (i: { path: string; message: string }): string => (i.path ? `${i.path}: ${i.message}` : i.message);
        if (!result.ok) for (const e of result.errors) ctx.report(MESSAGES.SchemaValidationError, r, text(e));
        for (const w of result.warnings) ctx.report(MESSAGES.SchemaWarning, r, text(w));
        if (def.kind === 'VirtualService') {
          const spec = rec(r.obj['spec']);
          for (const f of ['http', 'tcp', 'tls'] as const) reportUnreachableRules(ctx, r, recs(spec[f]));
        }
      }
    },
  };
}

/** One schema analyzer per mesh.io kind, named `schema.ValidationAnalyzer.<Kind>` as in Istio. */
export const schemaValidationAnalyzers: readonly Analyzer[] = KIND_NAMES.map(schemaAnalyzer);
