/** EDS for proxyless gRPC: which pushes need it. Building lives in grpc/endpoint-builder.ts. */
import type { PushRequest } from '../../core/index.js';
import { fullPushAffects } from './needs-push.js';

/** Config kinds that cannot change endpoints. */
export const EDS_UNAFFECTED_KINDS: ReadonlySet<string> = new Set([
  'VirtualService',
  'AuthorizationPolicy',
  'RequestAuthentication',
  'PeerAuthentication',
  'Gateway',
  'Telemetry',
  'WasmPlugin',
  'Sidecar',
]);

/** Whether a push may change EDS: every endpoint-only push, and full pushes touching endpoint inputs. */
export function edsNeedsPush(push: PushRequest): boolean {
  if (!push.full) return true;
  return fullPushAffects(push, EDS_UNAFFECTED_KINDS);
}
