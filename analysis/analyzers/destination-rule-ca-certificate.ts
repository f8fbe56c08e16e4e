/**
 * destinationrule.CaCertificateAnalyzer: a DestinationRule originating TLS (SIMPLE or MUTUAL) without
 * caCertificates (or a credentialName) does not verify the server (IST0128, IST0129 per port).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';

function unverified(tls: Record<string, unknown>): string | undefined {
  const mode = str(tls['mode']);
  if (mode !== 'SIMPLE' && mode !== 'MUTUAL') return undefined;
  if (str(tls['caCertificates']) || str(tls['credentialName']) || tls['insecureSkipVerify'] === true) return undefined;
  return mode;
}

/** See the file comment. */
export const caCertificateAnalyzer: Analyzer = {
  name: 'destinationrule.CaCertificateAnalyzer',
  description: 'Checks if caCertificates is set when TLS mode is SIMPLE/MUTUAL',
  inputs: [K.DestinationRule],
  analyze(ctx) {
    for (const dr of ctx.all(K.DestinationRule)) {
      const spec = rec(dr.obj['spec']);
      const host = str(spec['host']) ?? '';
      const policy = rec(spec['trafficPolicy']);
      const mode = unverified(rec(policy['tls']));
      if (mode) ctx.report(MESSAGES.NoServerCertificateVerificationDestinationLevel, dr, dr.name, dr.namespace, mode, host);
      for (const p of recs(policy['portLevelSettings'])) {
        const m = unverified(rec(p['tls']));
        if (m) ctx.report(MESSAGES.NoServerCertificateVerificationPortLevel, dr, dr.name, dr.namespace, m, host, String(num(rec(p['port'])['number']) ?? ''));
      }
    }
  },
};
