/** LDS for proxyless gRPC: which pushes need it. Building lives in grpc/listener-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { defaultNeedsPush } from '../server/generator-registry.js';

/**
 * Config kinds that cannot change a proxyless client's listeners, on top of those the LDS descriptor
 * (XDS_TYPES) names for every proxy: a proxyless listener names its route configuration (RDS) and no clusters, and gateways do not apply.
 */
export const PROXYLESS_LDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set(['VirtualService', 'DestinationRule', 'Gateway']);

/** Whether a push may change a proxyless client's LDS. */
export function ldsNeedsPush(push: PushRequest): boolean {
  return defaultNeedsPush(TYPE_URL.listener, push, PROXYLESS_LDS_UNAFFECTED_KINDS);
}
