/** CDS for proxyless gRPC: which pushes need it. Building lives in grpc/cluster-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { fullPushAffects } from './needs-push.js';

/** Config kinds that cannot change a proxyless client's clusters. */
export const CDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set([
  'VirtualService',
  'AuthorizationPolicy',
  'RequestAuthentication',
  'WorkloadEntry',
  'WorkloadGroup',
  'Gateway',
  'Telemetry',
  'WasmPlugin',
  'Sidecar',
]);

/** Whether a push may change CDS. */
export function cdsNeedsPush(push: PushRequest): boolean {
  return fullPushAffects(push, CDS_UNAFFECTED_KINDS);
}
