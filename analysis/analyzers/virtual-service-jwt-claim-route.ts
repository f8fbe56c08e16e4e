/**
 * virtualservice.JWTClaimRouteAnalyzer: routing on `@request.auth.claims` at a gateway needs a
 * RequestAuthentication that applies to the gateway's pods (IST0149).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, strs } from '../object-access.js';
import { matchLabelsOf, selects } from '../selectors.js';
import { gatewayRef, MESH_GATEWAY } from './virtual-service-routes.js';

const CLAIM_PREFIX = '@request.auth.claims';

/** See the file comment. */
export const jwtClaimRouteAnalyzer: Analyzer = {
  name: 'virtualservice.JWTClaimRouteAnalyzer',
  description: 'Checks the VirtualService using JWT claim based routing has corresponding RequestAuthentication',
  inputs: [K.VirtualService, K.RequestAuthentication, K.Gateway, K.Pod],
  analyze(ctx) {
    const root = String(ctx.settings.meshConfig['rootNamespace'] ?? ctx.settings.meshNamespace);
    const requestAuthns = ctx.all(K.RequestAuthentication);
    for (const vs of ctx.all(K.VirtualService)) {
      const spec = rec(vs.obj['spec']);
      let key: string | undefined;
      for (const rule of recs(spec['http'])) {
        for (const m of recs(rule['match'])) {
          for (const f of ['headers', 'withoutHeaders'] as const) key ??= Object.keys(rec(m[f])).find((k) => k.startsWith(CLAIM_PREFIX));
        }
      }
      if (key === undefined) continue;
      for (const gw of strs(spec['gateways'])) {
        if (gw === MESH_GATEWAY) continue;
        const ref = gatewayRef(gw, vs.namespace);
        const gateway = ctx.get(K.Gateway, ref.namespace, ref.name);
        if (!gateway) continue;
        const sel = matchLabelsOf(rec(gateway.obj['spec'])['selector']) ?? {};
        for (const pod of ctx.pods()) {
          if (!selects(sel, pod.labels)) continue;
          const covered = requestAuthns.some((ra) => {
            const raSel = matchLabelsOf(rec(ra.obj['spec'])['selector']);
            if (ra.namespace === root && raSel === undefined) return true;
            return ra.namespace === pod.namespace && selects(raSel, pod.labels);
          });
          if (!covered) ctx.report(MESSAGES.JwtClaimBasedRoutingWithoutRequestAuthN, vs, key, `${ref.namespace}/${ref.name}`, `${pod.namespace}/${pod.resource.name}`);
        }
      }
    }
  },
};
