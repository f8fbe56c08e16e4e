/** CDS for proxyless gRPC: which pushes need it. Building lives in grpc/cluster-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { TYPE_URL } from '../server/contracts.js';
import { defaultNeedsPush } from '../server/generator-registry.js';

/**
 * Config kinds that cannot change a proxyless client's clusters, on top of those the CDS descriptor
 * (XDS_TYPES) names for every proxy: a proxyless client has no Sidecar scope, and its routes (RDS) pick clusters, not VirtualServices.
 */
export const PROXYLESS_CDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set(['VirtualService', 'Sidecar']);

/** Whether a push may change a proxyless client's CDS. */
export function cdsNeedsPush(push: PushRequest): boolean {
  return defaultNeedsPush(TYPE_URL.cluster, push, PROXYLESS_CDS_UNAFFECTED_KINDS);
}
