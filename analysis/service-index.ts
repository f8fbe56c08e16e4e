/**
 * The services analyzers resolve hosts against: orchestrator Services (`name.namespace.svc.cluster.local`)
 * and ServiceEntry hosts, with their ports.
 */
import type { AnalysisContext } from './analysis-context.js';
import { K } from './kinds.js';
import { num, rec, recs, str, strs } from './object-access.js';
import type { Resource } from './resource.js';

/** The cluster-local domain suffix of orchestrator services. */
export const CLUSTER_LOCAL = 'svc.cluster.local';

/** A port of a service. */
export interface ServicePort {
  readonly number: number;
  readonly name: string;
  readonly protocol: string;
  readonly targetPort?: string;
}

/** A host the mesh knows. */
export interface ServiceHost {
  readonly host: string;
  readonly namespace: string;
  readonly ports: readonly ServicePort[];
  readonly resource: Resource;
  /** Pod labels the service selects (orchestrator Services and ServiceEntries with workloadSelector). */
  readonly selector?: Readonly<Record<string, string>>;
  /** Where the host is visible: `exportTo` (ServiceEntry) or the `networking.mesh.io/exportTo` annotation (Service); empty = everywhere. */
  readonly exportTo: readonly string[];
}

/** True when a host exported to `exportTo` from `namespace` is visible in `from`. */
export function visibleFrom(h: Pick<ServiceHost, 'exportTo' | 'namespace'>, from: string): boolean {
  if (h.exportTo.length === 0) return true;
  return h.exportTo.some((e) => e === '*' || e === from || (e === '.' && h.namespace === from));
}

/**
 * A host as Istio's analyzers read it in `namespace`: a short name (no dot, no leading `*`) becomes
 * `name.namespace.svc.cluster.local`; anything else is kept.
 */
export function toFqdn(host: string, namespace: string): string {
  if (host.startsWith('*') || host.includes('.') || namespace === '') return host;
  return `${host}.${namespace}.${CLUSTER_LOCAL}`;
}

/** True when `pattern` (possibly `*.suffix` or `*`) covers `host` (which may itself be a wildcard). */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern === host || pattern === '*') return true;
  if (pattern.startsWith('*')) {
    const suffix = pattern.slice(1);
    if (host.startsWith('*')) return host.slice(1).endsWith(suffix);
    return host.endsWith(suffix);
  }
  return false;
}

/** True when two hosts (either may be a wildcard) have a host in common. */
export function hostsOverlap(a: string, b: string): boolean {
  return hostMatches(a, b) || hostMatches(b, a);
}

/** The services of one analysis, built once per analyzer run. */
export class ServiceIndex {
  readonly hosts: ServiceHost[] = [];
  readonly #exact = new Map<string, ServiceHost[]>();

  constructor(ctx: AnalysisContext) {
    for (const s of ctx.all(K.Service)) {
      const spec = rec(s.obj['spec']);
      const ports = recs(spec['ports']).map((p) => ({
        number: num(p['port']) ?? 0,
        name: str(p['name']) ?? '',
        protocol: str(p['protocol']) ?? 'TCP',
        ...(p['targetPort'] !== undefined ? { targetPort: String(p['targetPort'] as string | number) } : {}),
      }));
      const selector = rec(spec['selector']) as Record<string, string>;
      const exportTo = (s.annotations['networking.mesh.io/exportTo'] ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
      this.#add({ host: `${s.name}.${s.namespace}.${CLUSTER_LOCAL}`, namespace: s.namespace, ports, resource: s, selector, exportTo });
    }
    for (const se of ctx.all(K.ServiceEntry)) {
      const spec = rec(se.obj['spec']);
      const ports = recs(spec['ports']).map((p) => ({ number: num(p['number']) ?? 0, name: str(p['name']) ?? '', protocol: str(p['protocol']) ?? '' }));
      const ws = rec(rec(spec['workloadSelector'])['labels']) as Record<string, string>;
      for (const h of strs(spec['hosts'])) {
        this.#add({ host: toFqdn(h, se.namespace), namespace: se.namespace, ports, resource: se, exportTo: strs(spec['exportTo']), ...(Object.keys(ws).length > 0 ? { selector: ws } : {}) });
      }
    }
  }

  #add(h: ServiceHost): void {
    this.hosts.push(h);
    const list = this.#exact.get(h.host);
    if (list) list.push(h);
    else this.#exact.set(h.host, [h]);
  }

  /**
   * The services a (FQDN or wildcard) host names, as seen from namespace `from` (all when undefined):
   * exact matches first, else any that overlap by wildcard.
   */
  lookup(host: string, from?: string): ServiceHost[] {
    const visible = (h: ServiceHost): boolean => from === undefined || visibleFrom(h, from);
    const exact = this.#exact.get(host)?.filter(visible);
    if (exact && exact.length > 0) return exact;
    return this.hosts.filter((h) => visible(h) && hostsOverlap(h.host, host));
  }
}
