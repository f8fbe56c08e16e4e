/**
 * PushSnapshot: what one push reads. The model takes it when a debounced push is emitted (or when a
 * proxy's own request is answered, the newest published one): the frozen PushContext and an immutable
 * view of the endpoints, numbered so that caches can tell older builds from newer ones.
 */
import type { PushContext } from './push-context.js';
import type { Service, ServiceInstance } from './service.js';

/** Read access to the endpoints of every service, frozen at one point in time. */
export interface EndpointView {
  /**
   * Instances of a host in a stable order: those of the service chosen for it (see served-endpoints.ts), as
   * proxies of namespace `from` choose when given (two namespaces may each declare the host), else mesh-wide.
   */
  instances(hostname: string, from?: string): readonly ServiceInstance[];
  /**
   * Instances of a host that any service declaring it serves (each on a port of a service of its own namespace):
   * the workloads' side (inbound), whichever service viewers choose.
   */
  declaredInstances(hostname: string): readonly ServiceInstance[];
  /** Instances of `svc`'s host that `svc` serves (its namespace's, on its ports): for a service a proxy chose. */
  instancesOf(svc: Service): readonly ServiceInstance[];
}

/**
 * The inputs of one push. Generators read only these, never the newest model: a push that is still being
 * generated when the next change arrives finishes from its own snapshot, and the push after it follows.
 */
export interface PushSnapshot {
  /**
   * Strictly increasing per published snapshot (0 for the model's first). A cache entry built from a
   * snapshot with a token lower than its dependencies' latest invalidation is stale and is not stored.
   */
  readonly token: number;
  readonly pushContext: PushContext;
  readonly endpoints: EndpointView;
}

/** The newer of two snapshots (by token); undefined when both are. */
export function newerSnapshot(a: PushSnapshot | undefined, b: PushSnapshot | undefined): PushSnapshot | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.token >= a.token ? b : a;
}
