/** virtualservice.DestinationHostAnalyzer: destination hosts and ports exist (IST0101, IST0112). */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec } from '../object-access.js';
import type { Resource } from '../resource.js';
import { ServiceIndex, toFqdn } from '../service-index.js';
import type { AnalysisContext } from '../analysis-context.js';
import { mirrorDestinations, routeDestinations, type RouteDestination } from './virtual-service-routes.js';

function check(ctx: AnalysisContext, index: ServiceIndex, vs: Resource, d: RouteDestination, reftype: string): void {
  const found = index.lookup(toFqdn(d.host, vs.namespace), vs.namespace);
  if (found.length === 0) {
    ctx.report(MESSAGES.ReferencedResourceNotFound, vs, reftype, d.host);
    return;
  }
  // NOTE: wildcard destinations and hosts served by several entries are checked against the first, as Istio does.
  const s = found[0]!;
  if (d.port === undefined) {
    if (s.ports.length > 1) ctx.report(MESSAGES.VirtualServiceDestinationPortSelectorRequired, vs, d.host, s.ports.map((p) => p.number));
    return;
  }
  if (!s.ports.some((p) => p.number === d.port)) ctx.report(MESSAGES.ReferencedResourceNotFound, vs, `${reftype}:port`, `${d.host}:${d.port}`);
}

/** See the file comment. */
export const destinationHostAnalyzer: Analyzer = {
  name: 'virtualservice.DestinationHostAnalyzer',
  description: 'Checks the destination hosts associated with each virtual service',
  inputs: [K.ServiceEntry, K.VirtualService, K.Service],
  analyze(ctx) {
    const index = new ServiceIndex(ctx);
    for (const vs of ctx.all(K.VirtualService)) {
      const spec = rec(vs.obj['spec']);
      for (const d of routeDestinations(spec)) check(ctx, index, vs, d, 'host');
      for (const d of mirrorDestinations(spec)) check(ctx, index, vs, d, 'mirror host');
    }
  },
};
