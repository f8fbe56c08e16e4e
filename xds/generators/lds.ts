/** LDS for proxyless gRPC: which pushes need it. Building lives in grpc/listener-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { fullPushAffects } from './needs-push.js';

/** Config kinds that cannot change a proxyless listener (routes are in RDS, clusters in CDS). */
export const LDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set([
  'VirtualService',
  'DestinationRule',
  'WorkloadEntry',
  'WorkloadGroup',
  'Gateway',
  'Telemetry',
  'WasmPlugin',
]);

/** Whether a push may change LDS. */
export function ldsNeedsPush(push: PushRequest): boolean {
  return fullPushAffects(push, LDS_UNAFFECTED_KINDS);
}
