/**
 * virtualservice.ConflictingMeshGatewayHostsAnalyzer: two VirtualServices bound to the mesh gateway (the
 * sidecars) define the same host (IST0109), which leaves the route undefined.
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, strs } from '../object-access.js';
import type { Resource } from '../resource.js';
import { toFqdn } from '../service-index.js';
import { MESH_GATEWAY } from './virtual-service-routes.js';

/** See the file comment. */
export const conflictingMeshGatewayHostsAnalyzer: Analyzer = {
  name: 'virtualservice.ConflictingMeshGatewayHostsAnalyzer',
  description: 'Checks if multiple virtual services associated with the mesh gateway have conflicting hosts',
  inputs: [K.VirtualService],
  analyze(ctx) {
    const byHost = new Map<string, Resource[]>();
    for (const vs of ctx.all(K.VirtualService)) {
      const spec = rec(vs.obj['spec']);
      const gateways = strs(spec['gateways']);
      if (gateways.length > 0 && !gateways.includes(MESH_GATEWAY)) continue;
      const exportTo = strs(spec['exportTo']);
      // NOTE: a VirtualService exported only to its own namespace conflicts only with others seen there.
      const scope = exportTo.length === 1 && exportTo[0] === '.' ? vs.namespace : '*';
      for (const h of new Set(strs(spec['hosts']).map((x) => toFqdn(x, vs.namespace)))) {
        const key = `${scope}/${h}`;
        const list = byHost.get(key);
        if (list) list.push(vs);
        else byHost.set(key, [vs]);
      }
    }
    for (const [key, list] of byHost) {
      if (list.length < 2) continue;
      const names = list.map((v) => `${v.namespace}/${v.name}`).join(',');
      const host = key.slice(key.indexOf('/') + 1);
      for (const vs of list) ctx.report(MESSAGES.ConflictingMeshGatewayVirtualServiceHosts, vs, names, host);
    }
  },
};
