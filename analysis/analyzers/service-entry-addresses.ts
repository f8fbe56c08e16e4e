/**
 * serviceentry.Analyzer (Istio's ProtocolAddressesAnalyzer): a ServiceEntry port serving TCP (or no
 * protocol) needs addresses unless the proxies capture DNS and auto-allocate addresses (IST0134, per port).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str, strs } from '../object-access.js';

function autoAllocates(meshConfig: Readonly<Record<string, unknown>>): boolean {
  const meta = rec(rec(meshConfig['defaultConfig'])['proxyMetadata']);
  const on = (k: string): boolean => str(meta[k])?.toLowerCase() === 'true';
  return on('MESH_META_DNS_CAPTURE') && on('MESH_META_DNS_AUTO_ALLOCATE');
}

/** See the file comment. */
export const serviceEntryAddressesAnalyzer: Analyzer = {
  name: 'serviceentry.Analyzer',
  description: 'Checks the validity of ServiceEntry',
  inputs: [K.ServiceEntry],
  analyze(ctx) {
    if (autoAllocates(ctx.settings.meshConfig)) return;
    for (const se of ctx.all(K.ServiceEntry)) {
      const spec = rec(se.obj['spec']);
      if (strs(spec['addresses']).length > 0) continue;
      for (const p of recs(spec['ports'])) {
        const proto = str(p['protocol']) ?? '';
        if (proto === '' || proto.toUpperCase() === 'TCP') ctx.report(MESSAGES.ServiceEntryAddressesRequired, se);
      }
    }
  },
};
