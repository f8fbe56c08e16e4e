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
