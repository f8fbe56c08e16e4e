/**
 * conditions.ConditionAnalyzer: a Service, ServiceEntry or AuthorizationPolicy whose status holds a condition
 * with status `False` (meshd or the orchestrator could not do what it asks) is reported with the
 * condition's type, reason and message (IST0171).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';

const KINDS = [K.Service, K.ServiceEntry, K.AuthorizationPolicy] as const;

/** See the file comment. */
export const conditionAnalyzer: Analyzer = {
  name: 'conditions.ConditionAnalyzer',
  description: 'Checks for negative status conditions on resources',
  inputs: [...KINDS],
  analyze(ctx) {
    for (const kind of KINDS) {
      for (const r of ctx.all(kind)) {
        for (const c of recs(rec(r.obj['status'])['conditions'])) {
          if (str(c['status']) === 'False') ctx.report(MESSAGES.NegativeConditionStatus, r, str(c['type']) ?? '', str(c['reason']) ?? '', str(c['message']) ?? '');
        }
      }
    }
  },
};
