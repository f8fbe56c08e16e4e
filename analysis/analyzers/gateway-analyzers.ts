/**
 * The Gateway analyzers: gateway.IngressGatewayPortAnalyzer (selector matches no pod: IST0101; a server
 * port no Service of the gateway pods exposes: IST0162), gateway.CertificateAnalyzer (the same certificate
 * on gateways of one selector: IST0138), gateway.SecretAnalyzer (credentialName missing: IST0101, invalid:
 * IST0161) and gateway.ConflictingGatewayAnalyzer (same selector, port and host: IST0145).
 */
import { X509Certificate } from 'node:crypto';
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str, strs } from '../object-access.js';
import type { Resource } from '../resource.js';
import { selectorString, selects } from '../selectors.js';
import { hostsOverlap } from '../service-index.js';
import type { AnalysisContext } from '../analysis-context.js';
import { serverHost } from './virtual-service-gateway.js';

function selectorOf(gw: Resource): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(rec(gw.obj['spec'])['selector']))) if (typeof v === 'string') out[k] = v;
  return out;
}

function servers(gw: Resource): Record<string, unknown>[] {
  return recs(rec(gw.obj['spec'])['servers']);
}

/** See the file comment. */
export const ingressGatewayPortAnalyzer: Analyzer = {
  name: 'gateway.IngressGatewayPortAnalyzer',
  description: "Checks a gateway's ports against the gateway's Kubernetes service ports",
  inputs: [K.Gateway, K.Pod, K.Service],
  analyze(ctx) {
    const workloads = ctx.workloads();
    for (const gw of ctx.all(K.Gateway)) {
      const sel = selectorOf(gw);
      const matched = workloads.filter((w) => selects(sel, w.labels));
      if (matched.length === 0) {
        ctx.report(MESSAGES.ReferencedResourceNotFound, gw, 'selector', selectorString(sel));
        continue;
      }
      const ports = new Set<number>();
      for (const w of matched) {
        for (const svc of ctx.all(K.Service)) {
          if (svc.namespace !== w.namespace) continue;
          const spec = rec(svc.obj['spec']);
          const svcSel = rec(spec['selector']) as Record<string, string>;
          if (Object.keys(svcSel).length === 0 || !selects(svcSel, w.labels)) continue;
          for (const p of recs(spec['ports'])) {
            if ((str(p['protocol']) ?? 'TCP') !== 'TCP') continue;
            const tp = num(p['targetPort']);
            const port = tp !== undefined && tp !== 0 ? tp : num(p['port']);
            if (port !== undefined) ports.add(port);
          }
        }
      }
      for (const s of servers(gw)) {
        const n = num(rec(s['port'])['number']);
        if (n !== undefined && !ports.has(n)) ctx.report(MESSAGES.GatewayPortNotDefinedOnService, gw, n, selectorString(sel));
      }
    }
  },
};

function certsOf(gw: Resource): string[] {
  const out: string[] = [];
  for (const s of servers(gw)) {
    const tls = rec(s['tls']);
    const mode = str(tls['mode']);
    if (mode === 'PASSTHROUGH' || mode === 'AUTO_PASSTHROUGH' || mode === 'MESH_MUTUAL') continue;
    const cn = str(tls['credentialName']);
    if (cn) out.push(`credential:${cn}`);
    const cert = str(tls['serverCertificate']);
    if (cert) out.push(`file:${cert}:${str(tls['privateKey']) ?? ''}`);
  }
  return out;
}

/** See the file comment. */
export const gatewayCertificateAnalyzer: Analyzer = {
  name: 'gateway.CertificateAnalyzer',
  description: 'Checks a gateway certificate',
  inputs: [K.Gateway],
  analyze(ctx) {
    const gws = ctx.all(K.Gateway);
    for (const gw of gws) {
      const mine = new Set(certsOf(gw));
      if (mine.size === 0) continue;
      const sel = selectorString(selectorOf(gw));
      const others = gws.filter((o) => o !== gw && selectorString(selectorOf(o)) === sel && certsOf(o).some((c) => mine.has(c)));
      if (others.length > 0) ctx.report(MESSAGES.GatewayDuplicateCertificate, gw, [gw, ...others].map((o) => `${o.namespace}/${o.name}`));
    }
  },
};

function decode(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

/** True when a Secret holds a certificate and key a gateway can serve (`tls.crt`/`tls.key` or `cert`/`key`). */
export function isValidCredential(secret: Resource): boolean {
  const data = rec(secret.obj['data']);
  const stringData = rec(secret.obj['stringData']);
  const get = (k: string): string | undefined => str(stringData[k]) ?? decode(data[k]);
  const cert = get('tls.crt') ?? get('cert');
  const key = get('tls.key') ?? get('key');
  if (cert === undefined || key === undefined) {
    // NOTE: a CA-only secret (`ca.crt`/`cacert`, usually `<name>-cacert`) is valid for MUTUAL's client check.
    return get('ca.crt') !== undefined || get('cacert') !== undefined;
  }
  try {
    new X509Certificate(cert);
  } catch {
    return false;
  }
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key);
}

function gatewayNamespace(ctx: AnalysisContext, gw: Resource): string {
  const sel = selectorOf(gw);
  return ctx.workloads().find((w) => selects(sel, w.labels))?.namespace ?? gw.namespace;
}

/** See the file comment. */
export const gatewaySecretAnalyzer: Analyzer = {
  name: 'gateway.SecretAnalyzer',
  description: 'Checks a gateway\'s referenced secrets for correctness',
  inputs: [K.Gateway, K.Pod, K.Secret],
  analyze(ctx) {
    for (const gw of ctx.all(K.Gateway)) {
      const ns = gatewayNamespace(ctx, gw);
      for (const s of servers(gw)) {
        const cn = str(rec(s['tls'])['credentialName']);
        if (!cn) continue;
        const slash = cn.indexOf('/');
        const secret = slash < 0 ? ctx.get(K.Secret, ns, cn) : ctx.get(K.Secret, cn.slice(0, slash), cn.slice(slash + 1));
        if (!secret) {
          ctx.report(MESSAGES.ReferencedResourceNotFound, gw, 'credentialName', cn);
          continue;
        }
        if (!isValidCredential(secret)) ctx.report(MESSAGES.InvalidGatewayCredential, gw, gw.name, gw.namespace);
      }
    }
  },
};

/** See the file comment. */
export const conflictingGatewayAnalyzer: Analyzer = {
  name: 'gateway.ConflictingGatewayAnalyzer',
  description: 'Checks a gateway\'s selector, port number and hosts',
  inputs: [K.Gateway],
  analyze(ctx) {
    const entries = ctx.all(K.Gateway).flatMap((gw) =>
      servers(gw).map((s) => ({ gw, sel: selectorString(selectorOf(gw)), port: num(rec(s['port'])['number']), hosts: strs(s['hosts']).map(serverHost) })),
    );
    for (const gw of ctx.all(K.Gateway)) {
      const mine = entries.filter((e) => e.gw === gw);
      for (const e of mine) {
        const conflicts = entries.filter((o) => o.gw !== gw && o.sel === e.sel && o.port === e.port && o.hosts.some((h) => e.hosts.some((x) => hostsOverlap(h, x))));
        if (conflicts.length === 0) continue;
        const names = [...new Set(conflicts.map((c) => `${c.gw.namespace}/${c.gw.name}`))].join(',');
        ctx.report(MESSAGES.ConflictingGateways, gw, names, e.sel, String(e.port ?? ''), e.hosts.join(','));
      }
    }
  },
};
