/**
 * service.PortNameAnalyzer: a Service port without appProtocol is named `<protocol>[-<suffix>]` so the
 * proxies know its protocol (IST0118); an ExternalName service's TCP-ish port names are a problem (IST0150).
 */
import type { Analyzer } from '../analyzer.js';
import { K } from '../kinds.js';
import { MESSAGES } from '../message-catalogue.js';
import { num, rec, recs, str } from '../object-access.js';
import type { Resource } from '../resource.js';

/** Protocol prefixes of port names, as Istio's ConvertProtocol reads them. */
export const PORT_NAME_PROTOCOLS: ReadonlySet<string> = new Set(['http', 'http2', 'https', 'grpc', 'grpc-web', 'tcp', 'tls', 'mongo', 'redis', 'mysql', 'udp', 'h2c']);

/** The protocol a port name declares, or undefined when the name follows no convention. */
export function protocolOfPortName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === 'grpc-web' || lower.startsWith('grpc-web-')) return 'grpc-web';
  const prefix = lower.split('-')[0]!;
  return PORT_NAME_PROTOCOLS.has(prefix) ? prefix : undefined;
}

/** True for the control plane's own Services (labels `mesh` or `release=mesh`), which analyze skips. */
export function isControlPlane(r: Resource): boolean {
  return r.labels['mesh'] !== undefined || r.labels['release'] === 'mesh' || r.labels['app'] === 'meshd';
}

/** See the file comment. */
export const portNameAnalyzer: Analyzer = {
  name: 'service.PortNameAnalyzer',
  description: 'Checks the port names associated with each service',
  inputs: [K.Service],
  analyze(ctx) {
    for (const svc of ctx.all(K.Service)) {
      if (isControlPlane(svc)) continue;
      const spec = rec(svc.obj['spec']);
      const external = spec['type'] === 'ExternalName';
      for (const p of recs(spec['ports'])) {
        if (str(p['appProtocol'])) continue;
        const proto = (str(p['protocol']) ?? 'TCP').toUpperCase();
        if (proto === 'UDP' || proto === 'SCTP') continue;
        const name = str(p['name']) ?? '';
        const declared = protocolOfPortName(name);
        if (external) {
          if (declared === undefined || declared === 'tcp') ctx.report(MESSAGES.ExternalNameServiceTypeInvalidPortName, svc);
          continue;
        }
        if (declared === undefined) {
          const tp = p['targetPort'];
          ctx.report(MESSAGES.PortNameIsNotUnderNamingConvention, svc, name, num(p['port']) ?? 0, tp === undefined ? '' : String(tp as string | number));
        }
      }
    }
  },
};
