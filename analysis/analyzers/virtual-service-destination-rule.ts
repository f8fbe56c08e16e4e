/** virtualservice.DestinationRuleAnalyzer: a destination's subset is defined by a DestinationRule (IST0101). */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';
import { hostMatches, toFqdn } from '../service-index.js';
import { mirrorDestinations, routeDestinations } from './virtual-service-routes.js';

/** See the file comment. */
export const virtualServiceDestinationRuleAnalyzer: Analyzer = {
  name: 'virtualservice.DestinationRuleAnalyzer',
  description: 'Checks the destination rules associated with each virtual service',
  inputs: [K.VirtualService, K.DestinationRule],
  analyze(ctx) {
    const subsets: { host: string; subset: string }[] = [];
    for (const dr of ctx.all(K.DestinationRule)) {
      const spec = rec(dr.obj['spec']);
      const host = toFqdn(str(spec['host']) ?? '', dr.namespace);
      for (const s of recs(spec['subsets'])) {
        const name = str(s['name']);
        if (name) subsets.push({ host, subset: name });
      }
    }
    for (const vs of ctx.all(K.VirtualService)) {
      const spec = rec(vs.obj['spec']);
      for (const d of [...routeDestinations(spec), ...mirrorDestinations(spec)]) {
        if (d.subset === undefined) continue;
        const host = toFqdn(d.host, vs.namespace);
        if (!subsets.some((s) => s.subset === d.subset && hostMatches(s.host, host))) {
          ctx.report(MESSAGES.ReferencedResourceNotFound, vs, 'host+subset in destinationrule', `${d.host}+${d.subset}`);
        }
      }
    }
  },
};
