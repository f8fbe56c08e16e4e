/** RDS for proxyless gRPC: which pushes need it. Building lives in grpc/route-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { fullPushAffects } from './needs-push.js';

/** Config kinds that cannot change a proxyless client's routes. */
export const RDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set([
  'AuthorizationPolicy',
  'RequestAuthentication',
  'PeerAuthentication',
  'WorkloadEntry',
  'WorkloadGroup',
  'Gateway',
  'Telemetry',
  'WasmPlugin',
]);

/** Whether a push may change RDS. */
export function rdsNeedsPush(push: PushRequest): boolean {
  return fullPushAffects(push, RDS_UNAFFECTED_KINDS);
}
