/**
 * webhook.Analyzer: the injection and validation webhooks of the mesh point at Services that exist, on a
 * port they expose (IST0139), and two injection webhooks do not select the same namespace labels (IST0139).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';

function isMeshWebhook(name: string): boolean {
  return name.endsWith('.mesh.io');
}

/** See the file comment. */
export const webhookAnalyzer: Analyzer = {
  name: 'webhook.Analyzer',
  description: 'Checks the validity of Mesh webhooks',
  inputs: [K.MutatingWebhookConfiguration, K.ValidatingWebhookConfiguration, K.Service],
  analyze(ctx) {
    const seen = new Map<string, string>();
    for (const kind of [K.MutatingWebhookConfiguration, K.ValidatingWebhookConfiguration]) {
      for (const cfg of ctx.all(kind)) {
        for (const wh of recs(cfg.obj['webhooks'])) {
          const name = str(wh['name']) ?? '';
          if (!isMeshWebhook(name)) continue;
          const svcRef = rec(rec(wh['clientConfig'])['service']);
          const svcName = str(svcRef['name']);
          const svcNs = str(svcRef['namespace']);
          if (svcName && svcNs) {
            const svc = ctx.get(K.Service, svcNs, svcName);
            const port = num(svcRef['port']) ?? 443;
            if (!svc) ctx.report(MESSAGES.InvalidWebhook, cfg, `Webhook ${name} references a service that does not exist: ${svcNs}/${svcName}`);
            else if (!recs(rec(svc.obj['spec'])['ports']).some((p) => num(p['port']) === port)) {
              ctx.report(MESSAGES.InvalidWebhook, cfg, `Webhook ${name} references port ${port} that service ${svcNs}/${svcName} does not expose`);
            }
          }
          if (kind === K.MutatingWebhookConfiguration && name.endsWith('sidecar-injector.mesh.io')) {
            const key = JSON.stringify([wh['namespaceSelector'] ?? {}, wh['objectSelector'] ?? {}]);
            const other = seen.get(key);
            if (other !== undefined && other !== cfg.name) ctx.report(MESSAGES.InvalidWebhook, cfg, `Webhook overlaps with others: [${other}/${name}]. This may cause injection to occur twice.`);
            else seen.set(key, cfg.name);
          }
        }
      }
    }
  },
};
