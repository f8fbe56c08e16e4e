/**
 * deprecation.DeprecationAnalyzer (Istio's `deprecation.FieldAnalyzer`): deprecated fields and removed custom
 * resource types still in use (IST0002): a VirtualService fault delay given as `percent` (use `percentage`),
 * a Sidecar's `outboundTrafficPolicy.egressProxy` (ignored), and CustomResourceDefinitions of the removed
 * `rbac.mesh.io` kinds.
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';

/** Custom resource kinds that were removed from the mesh's CRDs, by group. */
const REMOVED_CRDS: readonly { group: string; kind: string }[] = ['ClusterRbacConfig', 'RbacConfig', 'ServiceRole', 'ServiceRoleBinding'].map((kind) => ({ group: 'rbac.mesh.io', kind }));

/** See the file comment. */
export const deprecationAnalyzer: Analyzer = {
  name: 'deprecation.DeprecationAnalyzer',
  description: 'Checks for deprecated Mesh types and fields',
  inputs: [K.VirtualService, K.Sidecar, K.CustomResourceDefinition],
  analyze(ctx) {
    for (const vs of ctx.all(K.VirtualService)) {
      for (const route of recs(rec(vs.obj['spec'])['http'])) {
        if ((num(rec(rec(route['fault'])['delay'])['percent']) ?? 0) > 0) {
          ctx.report(MESSAGES.Deprecated, vs, 'HTTPRoute.fault.delay.percent is deprecated; use HTTPRoute.fault.delay.percentage');
        }
      }
    }
    for (const sc of ctx.all(K.Sidecar)) {
      if (rec(rec(sc.obj['spec'])['outboundTrafficPolicy'])['egressProxy'] !== undefined) ctx.report(MESSAGES.Deprecated, sc, 'OutboundTrafficPolicy.EgressProxy ignored');
    }
    for (const crd of ctx.all(K.CustomResourceDefinition)) {
      const spec = rec(crd.obj['spec']);
      const group = str(spec['group']);
      const kind = str(rec(spec['names'])['kind']);
      if (REMOVED_CRDS.some((r) => r.group === group && r.kind === kind)) ctx.report(MESSAGES.Deprecated, crd, `Custom resource type ${group} ${kind} is removed`);
    }
  },
};
