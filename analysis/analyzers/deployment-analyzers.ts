/**
 * deployment.MultiServiceAnalyzer: the Services selecting a Deployment's pods do not use one port with
 * different protocols (IST0116) nor one targetPort behind different ports (IST0137).
 * applicationUID.Analyzer: application containers do not run as UID 1337, the proxy's (IST0144).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';
import { selects } from '../selectors.js';
import { PROXY_CONTAINER, SYSTEM_NAMESPACES } from './injection-analyzers.js';
import { isControlPlane } from './service-port-name.js';

/** See the file comment. */
export const multiServiceAnalyzer: Analyzer = {
  name: 'deployment.MultiServiceAnalyzer',
  description: 'Checks association between services and pods',
  inputs: [K.Service, K.Deployment, K.Namespace],
  analyze(ctx) {
    for (const d of ctx.all(K.Deployment)) {
      if (SYSTEM_NAMESPACES.has(d.namespace) || d.namespace === ctx.settings.meshNamespace || isControlPlane(d)) continue;
      const tplLabels = rec(rec(rec(rec(d.obj['spec'])['template'])['metadata'])['labels']) as Record<string, string>;
      const byPort = new Map<number, Map<string, string[]>>();
      const byTarget = new Map<string, Map<number, string[]>>();
      for (const svc of ctx.all(K.Service)) {
        if (svc.namespace !== d.namespace) continue;
        const spec = rec(svc.obj['spec']);
        const sel = rec(spec['selector']) as Record<string, string>;
        if (Object.keys(sel).length === 0 || !selects(sel, tplLabels)) continue;
        for (const p of recs(spec['ports'])) {
          const port = num(p['port']);
          if (port === undefined) continue;
          const proto = str(p['protocol']) ?? 'TCP';
          const protos = byPort.get(port) ?? new Map<string, string[]>();
          byPort.set(port, protos.set(proto, [...(protos.get(proto) ?? []), svc.name]));
          const tp = p['targetPort'] === undefined ? String(port) : String(p['targetPort'] as string | number);
          const ports = byTarget.get(tp) ?? new Map<number, string[]>();
          byTarget.set(tp, ports.set(port, [...(ports.get(port) ?? []), svc.name]));
        }
      }
      for (const [port, protos] of byPort) {
        if (protos.size > 1) ctx.report(MESSAGES.DeploymentAssociatedToMultipleServices, d, d.name, port, [...protos.values()].flat());
      }
      for (const [tp, ports] of byTarget) {
        if (ports.size > 1) ctx.report(MESSAGES.DeploymentConflictingPorts, d, d.name, [...ports.values()].flat(), tp, [...ports.keys()]);
      }
    }
  },
};

const PROXY_UID = 1337;

/** See the file comment. */
export const applicationUidAnalyzer: Analyzer = {
  name: 'applicationUID.Analyzer',
  description: 'Checks invalid application UID',
  inputs: [K.Pod, K.Deployment],
  analyze(ctx) {
    for (const w of ctx.workloads()) {
      if (w.resource.kind !== 'Pod' && w.resource.kind !== 'Deployment') continue;
      const podUid = num(rec(w.spec['securityContext'])['runAsUser']);
      const bad =
        podUid === PROXY_UID ||
        recs(w.spec['containers']).some((c) => c['name'] !== PROXY_CONTAINER && num(rec(c['securityContext'])['runAsUser']) === PROXY_UID);
      if (bad) ctx.report(MESSAGES.InvalidApplicationUID, w.resource);
    }
  },
};
