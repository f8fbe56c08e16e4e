/** EDS for proxyless gRPC: which pushes need it. Building lives in grpc/endpoint-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { defaultNeedsPush } from '../server/generator-registry.js';

/**
 * Config kinds that cannot change a proxyless client's endpoints, on top of those the EDS descriptor
 * (XDS_TYPES) names for every proxy: a proxyless client has no Sidecar scope.
 */
export const PROXYLESS_EDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set(['Sidecar']);

/** Whether a push may change a proxyless client's EDS. */
export function edsNeedsPush(push: PushRequest): boolean {
  return defaultNeedsPush(TYPE_URL.endpoint, push, PROXYLESS_EDS_UNAFFECTED_KINDS);
}

/**
 * The hosts whose endpoints an endpoint-only push changed (istiod's `edsUpdatedServices`), or
 * undefined when every load assignment must be sent: a full push, or one that names no config or a
 * config other than a service's `ServiceEntry` key (which endpoint pushes carry, with the host as name).
 * With a set, EDS generators send only the assignments of those hosts and mark the result incremental.
 */
export function incrementalEdsHosts(push: PushRequest): ReadonlySet<string> | undefined {
  if (push.full || push.configsUpdated.size === 0) return undefined;
  const hosts = new Set<string>();
  for (const k of push.configsUpdated) {
    if (k.kind !== 'ServiceEntry') return undefined;
    hosts.add(k.name);
  }
  return hosts;
}
