/**
 * envoyfilter.RouteCacheAnalyzer: when an AuthorizationPolicy targets an HTTPRoute (its decision depends on
 * the route the proxy chose), an EnvoyFilter adding HTTP filters to gateways or waypoints (any context but
 * SIDECAR_INBOUND/SIDECAR_OUTBOUND) may clear the route cache after the policy ran and send the request
 * elsewhere (IST0178, once per EnvoyFilter).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';

const SIDECAR_CONTEXTS = new Set(['SIDECAR_INBOUND', 'SIDECAR_OUTBOUND']);

function isHttpRouteRef(ref: Record<string, unknown>): boolean {
  return str(ref['kind']) === 'HTTPRoute' && str(ref['group']) === 'gateway.networking.k8s.io';
}

/** See the file comment. */
export const routeCacheAnalyzer: Analyzer = {
  name: 'envoyfilter.RouteCacheAnalyzer',
  description: 'Checks for EnvoyFilters used with route-dependent authorization',
  inputs: [K.EnvoyFilter, K.AuthorizationPolicy],
  analyze(ctx) {
    const routeDependent = ctx.all(K.AuthorizationPolicy).some((ap) => {
      const spec = rec(ap.obj['spec']);
      return isHttpRouteRef(rec(spec['targetRef'])) || recs(spec['targetRefs']).some(isHttpRouteRef);
    });
    if (!routeDependent) return;
    for (const ef of ctx.all(K.EnvoyFilter)) {
      const patches = recs(rec(ef.obj['spec'])['configPatches']);
      const addsFilter = patches.some((p) => str(p['applyTo']) === 'HTTP_FILTER' && !SIDECAR_CONTEXTS.has(str(rec(p['match'])['context']) ?? 'ANY'));
      if (addsFilter) ctx.report(MESSAGES.EnvoyFilterMayClearRouteCache, ef);
    }
  },
};
