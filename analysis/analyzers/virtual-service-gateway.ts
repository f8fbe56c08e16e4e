/**
 * virtualservice.GatewayAnalyzer: the gateways a VirtualService names exist (IST0101) and serve at least one
 * of its hosts (IST0132).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, strs } from '../object-access.js';
import { hostsOverlap } from '../service-index.js';
import { gatewayRef, MESH_GATEWAY } from './virtual-service-routes.js';

/** A Gateway server host without its `namespace/` prefix. */
export function serverHost(h: string): string {
  const slash = h.indexOf('/');
  return slash < 0 ? h : h.slice(slash + 1);
}

/** See the file comment. */
export const virtualServiceGatewayAnalyzer: Analyzer = {
  name: 'virtualservice.GatewayAnalyzer',
  description: 'Checks the gateways associated with each virtual service',
  inputs: [K.Gateway, K.VirtualService],
  analyze(ctx) {
    for (const vs of ctx.all(K.VirtualService)) {
      const spec = rec(vs.obj['spec']);
      const hosts = strs(spec['hosts']);
      for (const gw of strs(spec['gateways'])) {
        if (gw === MESH_GATEWAY) continue;
        const ref = gatewayRef(gw, vs.namespace);
        const gateway = ctx.get(K.Gateway, ref.namespace, ref.name);
        if (!gateway) {
          ctx.report(MESSAGES.ReferencedResourceNotFound, vs, 'gateway', gw);
          continue;
        }
        const gwHosts = recs(rec(gateway.obj['spec'])['servers']).flatMap((s) => strs(s['hosts']).map(serverHost));
        if (!hosts.some((h) => gwHosts.some((g) => hostsOverlap(g, h)))) {
          ctx.report(MESSAGES.VirtualServiceHostNotFoundInGateway, vs, hosts, `${vs.namespace}/${vs.name}`, `${ref.namespace}/${ref.name}`);
        }
      }
    }
  },
};
