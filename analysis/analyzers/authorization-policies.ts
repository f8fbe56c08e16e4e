/**
 * auth.AuthorizationPoliciesAnalyzer: a policy's selector matches a pod (IST0127; mesh-wide policies in the
 * root namespace look at every namespace) and the namespaces its rules name exist (IST0101).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, strs } from '../object-access.js';
import { matchLabelsOf, selectorString, selects } from '../selectors.js';

function namespaceMatches(pattern: string, ns: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*')) return ns.endsWith(pattern.slice(1));
  if (pattern.endsWith('*')) return ns.startsWith(pattern.slice(0, -1));
  return pattern === ns;
}

/** See the file comment. */
export const authorizationPoliciesAnalyzer: Analyzer = {
  name: 'auth.AuthorizationPoliciesAnalyzer',
  description: 'Checks the validity of authorization policies',
  inputs: [K.AuthorizationPolicy, K.Namespace, K.Pod],
  analyze(ctx) {
    const root = String(ctx.settings.meshConfig['rootNamespace'] ?? ctx.settings.meshNamespace);
    const workloads = ctx.workloads();
    const namespaces = ctx.all(K.Namespace).map((n) => n.name);
    for (const ap of ctx.all(K.AuthorizationPolicy)) {
      const spec = rec(ap.obj['spec']);
      const sel = matchLabelsOf(spec['selector']);
      if (sel !== undefined) {
        const meshWide = ap.namespace === root;
        const found = workloads.some((w) => (meshWide || w.namespace === ap.namespace) && selects(sel, w.labels));
        if (!found) ctx.report(MESSAGES.NoMatchingWorkloadsFound, ap, selectorString(sel));
      }
      for (const rule of recs(spec['rules'])) {
        for (const from of recs(rule['from'])) {
          const source = rec(from['source']);
          for (const ns of [...strs(source['namespaces']), ...strs(source['notNamespaces'])]) {
            if (!namespaces.some((n) => namespaceMatches(ns, n))) ctx.report(MESSAGES.ReferencedResourceNotFound, ap, 'namespace', ns);
          }
        }
      }
    }
  },
};
