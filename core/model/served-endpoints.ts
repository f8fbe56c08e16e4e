/**
 * The endpoints a push serves for each host (istiod's EndpointIndex.ShardsForService(hostname, namespace) and
 * the port-name mapping of its EDS builder): the instances of the namespace of the service the PushContext chose
 * for the host, on the ports that service has (matched by number and name). Two ServiceEntries of one host in
 * two namespaces thus never mix their endpoints; two of one namespace do, as istiod merges them.
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
 * The view of `index` that a push from `ctx` serves (see the file comment); hosts without a service keep every
 * instance. Filtered lists are computed once per host; an unfiltered host answers with the index's own array.
 */
export function servedEndpoints(ctx: PushContext, index: EndpointIndex): EndpointView {
  const memo = new Map<string, readonly ServiceInstance[]>();
  return {
    instances(hostname: string): readonly ServiceInstance[] {
      const known = memo.get(hostname);
      if (known) return known;
      const all = index.instances(hostname);
      const svc = all.length === 0 ? undefined : ctx.service(hostname);
      const kept = !svc || all.every((i) => served(svc, i)) ? all : all.filter((i) => served(svc, i));
      const out = kept.length === 0 ? NONE : kept;
      memo.set(hostname, out);
      return out;
    },
  };
}
