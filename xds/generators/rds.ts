/** RDS for proxyless gRPC: which pushes need it. Building lives in grpc/route-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { defaultNeedsPush } from '../server/generator-registry.js';

/**
 * Config kinds that cannot change a proxyless client's routes, on top of those the RDS descriptor
 * (XDS_TYPES) names for every proxy: gateways do not apply to proxyless clients.
 */
export const PROXYLESS_RDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set(['Gateway']);

/** Whether a push may change a proxyless client's RDS. */
export function rdsNeedsPush(push: PushRequest): boolean {
  return defaultNeedsPush(TYPE_URL.route, push, PROXYLESS_RDS_UNAFFECTED_KINDS);
}
