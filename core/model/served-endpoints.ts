/**
 * The endpoints a push serves for each host (istiod's EndpointIndex.ShardsForService(hostname, namespace) and
 * the port-name mapping of its EDS builder): the instances of the namespace of the service chosen for the host,
 * on the ports that service has (matched by number and name). The choice is the one proxies of a namespace see
 * (`PushContext.serviceFor`) when the caller names that namespace, else the mesh-wide one. Two ServiceEntries
 * of one host in two namespaces thus never mix their endpoints; two of one namespace do, as istiod merges them.
 */
import type { EndpointIndex } from './endpoint-shards.js';
import type { PushContext } from './push-context.js';
import type { EndpointView } from './push-snapshot.js';
import type { Service, ServiceInstance } from './service.js';

/** The namespace of the config an instance came from (`ServiceEntry/<ns>/<name>`, `WorkloadEntry/<ns>/<name>`). */
export function instanceNamespace(i: Pick<ServiceInstance, 'source'>): string {
  const first = i.source.indexOf('/');
  const second = i.source.indexOf('/', first + 1);
  return first < 0 || second < 0 ? '' : i.source.slice(first + 1, second);
}

function served(svc: Service, i: ServiceInstance): boolean {
  if (instanceNamespace(i) !== svc.namespace) return false;
  return svc.ports.some((p) => p.port === i.servicePort && p.name === i.servicePortName);
}

const NONE: readonly ServiceInstance[] = Object.freeze([]);

/**
 * The service that declares an instance (istiod's service target of a workload): a service of the instance's host
 * and namespace on whose port (number and name) it is, the oldest first; else the mesh-wide choice of its host.
 * The inbound side asks it: a workload serves its own namespace's entry whichever service viewers choose.
 */
export function servingService(ctx: PushContext, i: ServiceInstance): Service | undefined {
  const ns = instanceNamespace(i);
  return ctx.declarations(i.hostname).find((s) => s.namespace === ns && served(s, i)) ?? ctx.service(i.hostname);
}

/**
 * The view of `index` that a push from `ctx` serves (see the file comment); hosts without a service keep every
 * instance. Filtered lists are computed once per host; an unfiltered host answers with the index's own array.
 */
export function servedEndpoints(ctx: PushContext, index: EndpointIndex): EndpointView {
  const memo = new Map<string, readonly ServiceInstance[]>();
  // NOTE: per chosen service object (PushContext keeps one per choice), for hosts several services declare.
  const byService = new WeakMap<Service, readonly ServiceInstance[]>();
  const declared = new Map<string, readonly ServiceInstance[]>();
  const filter = (all: readonly ServiceInstance[], svc: Service | undefined): readonly ServiceInstance[] => {
    const kept = !svc || all.every((i) => served(svc, i)) ? all : all.filter((i) => served(svc, i));
    return kept.length === 0 ? NONE : kept;
  };
  const meshWide = (hostname: string): readonly ServiceInstance[] => {
    const known = memo.get(hostname);
    if (known) return known;
    const all = index.instances(hostname);
    const out = filter(all, all.length === 0 ? undefined : ctx.service(hostname));
    memo.set(hostname, out);
    return out;
  };
  const instancesOf = (svc: Service): readonly ServiceInstance[] => {
    // NOTE: the mesh-wide choice (most hosts) shares the per-host memo.
    if (ctx.service(svc.hostname) === svc) return meshWide(svc.hostname);
    const known = byService.get(svc);
    if (known) return known;
    const out = filter(index.instances(svc.hostname), svc);
    byService.set(svc, out);
    return out;
  };
  return {
    instances: (hostname, from) => (from !== undefined && ctx.hostShared(hostname) ? instancesOf(ctx.serviceFor(hostname, from)!) : meshWide(hostname)),
    declaredInstances(hostname: string): readonly ServiceInstance[] {
      if (!ctx.hostShared(hostname)) return meshWide(hostname);
      let out = declared.get(hostname);
      if (!out) {
        const decls = ctx.declarations(hostname);
        const kept = index.instances(hostname).filter((i) => decls.some((s) => served(s, i)));
        declared.set(hostname, (out = kept.length === 0 ? NONE : kept));
      }
      return out;
    },
    instancesOf,
  };
}
