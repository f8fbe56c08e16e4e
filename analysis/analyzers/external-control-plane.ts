/**
 * externalcontrolplane.ExternalControlPlaneAnalyzer: the mesh webhooks of a cluster whose control plane
 * runs elsewhere reach it by URL; a blank or malformed URL host is IST0163, an IP address IST0164.
 * NOTE: Istio also resolves the host name; analyze sends no traffic off the machine, so it does not.
 */
import { isIP } from 'node:net';
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { rec, recs, str } from '../object-access.js';

/** See the file comment. */
export const externalControlPlaneAnalyzer: Analyzer = {
  name: 'externalcontrolplane.ExternalControlPlaneAnalyzer',
  description: 'Checks that the remote meshd addresses used in the cluster are valid',
  inputs: [K.MutatingWebhookConfiguration, K.ValidatingWebhookConfiguration],
  analyze(ctx) {
    for (const kind of [K.MutatingWebhookConfiguration, K.ValidatingWebhookConfiguration]) {
      for (const cfg of ctx.all(kind)) {
        if (!cfg.name.startsWith('mesh-') && !cfg.labels['app']?.startsWith('sidecar-injector') && cfg.labels['app'] !== 'meshd') continue;
        for (const wh of recs(cfg.obj['webhooks'])) {
          const cc = rec(wh['clientConfig']);
          if (cc['service'] !== undefined) continue;
          const name = str(wh['name']) ?? '';
          const url = str(cc['url']);
          if (url === undefined || url === '') {
            ctx.report(MESSAGES.InvalidExternalControlPlaneConfig, cfg, '', name, 'is blank');
            continue;
          }
          let host: string;
          try {
            host = new URL(url).hostname.replace(/^\[|\]$/g, '');
          } catch {
            ctx.report(MESSAGES.InvalidExternalControlPlaneConfig, cfg, url, name, 'is not a valid URL');
            continue;
          }
          if (isIP(host) !== 0) ctx.report(MESSAGES.ExternalControlPlaneAddressIsNotAHostname, cfg, host, name);
        }
      }
    }
  },
};
