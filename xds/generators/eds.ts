/** EDS for proxyless gRPC: which pushes need it. Building lives in grpc/endpoint-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { TYPE_URL, xdsType } from '../server/contracts.js';
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
 * The hosts whose load assignments a push may have changed, or undefined when every watched assignment
 * must be sent. Istio's incremental EDS: an endpoint-only push, or a full push whose every named config is
 * a service (`ServiceEntry` kind, named by host) or of a kind that cannot change endpoints (`unaffected`:
 * the EDS descriptor's kinds and the generator's own), as istiod's `canSendPartialFullPushes`. Undefined
 * for a proxy's own request, a forced or debug push, and a push that names nothing (everything changed).
 * With a set, EDS generators send only the assignments of those hosts and mark the result incremental.
 */
export function incrementalEdsHosts(push: PushRequest, unaffected: ReadonlySet<string> = PROXYLESS_EDS_UNAFFECTED_KINDS): ReadonlySet<string> | undefined {
  // NOTE: asked once per proxy of a push: the answer is kept per request (and set of kinds).
  let byKinds = memo.get(push);
  if (!byKinds) memo.set(push, (byKinds = new Map()));
  if (byKinds.has(unaffected)) return byKinds.get(unaffected);
  const hosts = computeIncrementalEdsHosts(push, unaffected);
  byKinds.set(unaffected, hosts);
  return hosts;
}

const memo = new WeakMap<PushRequest, Map<ReadonlySet<string>, ReadonlySet<string> | undefined>>();

function computeIncrementalEdsHosts(push: PushRequest, unaffected: ReadonlySet<string>): ReadonlySet<string> | undefined {
  if (push.forced || push.reasons.has('proxyrequest') || push.reasons.has('debug') || push.configsUpdated.size === 0) return undefined;
  const descriptor = xdsType(TYPE_URL.endpoint)?.unaffectedKinds;
  const hosts = new Set<string>();
  for (const k of push.configsUpdated) {
    if (k.kind === 'ServiceEntry') hosts.add(k.name);
    else if (!push.full || !(descriptor?.has(k.kind) || unaffected.has(k.kind))) return undefined;
  }
  return hosts;
}
