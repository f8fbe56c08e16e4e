/** virtualservice.RegexAnalyzer: every regular expression of a VirtualService compiles (IST0122). */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';

/** Why `re` does not compile, or undefined. NOTE: the proxy speaks RE2; JavaScript's engine stands in for it. */
export function regexProblem(re: string): string | undefined {
  try {
    new RegExp(re, 'u');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** See the file comment. */
export const regexAnalyzer: Analyzer = {
  name: 'virtualservice.RegexAnalyzer',
  description: 'Checks regex syntax',
  inputs: [K.VirtualService],
  analyze(ctx) {
    for (const vs of ctx.all(K.VirtualService)) {
      const check = (where: string, m: unknown): void => {
        const re = str(rec(m)['regex']);
        if (re === undefined) return;
        const problem = regexProblem(re);
        if (problem !== undefined) ctx.report(MESSAGES.InvalidRegexp, vs, where, re, problem);
      };
      for (const rule of recs(rec(vs.obj['spec'])['http'])) {
        for (const match of recs(rule['match'])) {
          for (const f of ['uri', 'scheme', 'method', 'authority'] as const) check(f, match[f]);
          for (const f of ['headers', 'queryParams', 'withoutHeaders'] as const) for (const v of Object.values(rec(match[f]))) check(f, v);
        }
        for (const o of recs(rec(rule['corsPolicy'])['allowOrigins'])) check('corsPolicy.allowOrigins', o);
      }
    }
  },
};
