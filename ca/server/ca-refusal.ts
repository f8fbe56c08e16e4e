// A refused certificate request: the gRPC status to answer with and the spec counter that records it.
import { status } from '@grpc/grpc-js';
import type { CaCounterName } from './ca-metrics.js';

/** gRPC codes the certificate service answers refusals with. */
export type RefusalCode = 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'INVALID_ARGUMENT' | 'INTERNAL';

/** Maps a refusal code to the grpc-js status number. */
export const REFUSAL_STATUS: Readonly<Record<RefusalCode, status>> = {
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  INTERNAL: status.INTERNAL,
};

/** Thrown inside the service to refuse a request; the message names the failed check and goes to the caller. */
export class CaRefusal extends Error {
  override readonly name = 'CaRefusal';
  constructor(
    readonly code: RefusalCode,
    readonly metric: CaCounterName,
    message: string,
  ) {
    super(message);
  }
}
