/**
 * Writing responses to a gRPC server stream, with an optional deadline (`PILOT_XDS_SEND_TIMEOUT`), and
 * closing a stream with a status.
 */
import * as grpc from '@grpc/grpc-js';
import { releaseFrame } from './framed-send.js';
import type { EncodedResponse } from './wire.js';

/** A write did not complete within the send timeout. */
export class SendTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    why = 'PILOT_XDS_SEND_TIMEOUT',
  ) {
    super(`timed out after ${timeoutMs}ms writing an xDS response (${why})`);
    this.name = 'SendTimeoutError';
  }
}

/** The stream failed or closed while writing. */
export class SendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SendError';
  }
}

/** The server stream surface the transport uses (grpc-js ServerDuplexStream). */
export type AdsCall = grpc.ServerDuplexStream<Uint8Array, EncodedResponse>;

/** Queued messages (one per type of a full push) below which a write resolves without waiting for its flush. */
const EARLY_RESOLVE_MAX_QUEUED = 4;
/** Largest message that may resolve before its flush. */
const EARLY_RESOLVE_MAX_BYTES = 64 * 1024;

/** What a write reports beyond its promise. */
export interface WriteTracking {
  /** Called once when the write completes, fails, or the connection closes (the message left meshd's buffers or never will). */
  readonly onSettled?: () => void;
  /** The connection's close: once closed, waiting ends and the promise rejects with SendError. */
  readonly close?: CloseHooks;
}

/**
 * Hears a connection's close. NOTE: a set of callbacks rather than an AbortSignal: adding and removing an abort
 * listener per write cost ~3 ms of a 100-stream push (EventTarget bookkeeping, profiled), a Set's add and delete a
 * fraction of that.
 */
export interface CloseHooks {
  readonly closed: boolean;
  /** Calls `fn` once when the connection closes (not if it is removed first). */
  onClose(fn: () => void): void;
  /** Removes a callback given to onClose. */
  offClose(fn: () => void): void;
}

/**
 * Writes one message and resolves when grpc-js has handed it to HTTP/2 (flow control permitting).
 * With `timeoutMs` > 0, rejects SendTimeoutError when that takes longer.
 *
 * Without a timeout, a small write to a stream with few messages queued resolves at once (as a gRPC
 * Go `Send` returns once the transport took the message): waiting for the socket flush would hold a
 * push slot for a loop turn or more per connection. A later failure of such a write goes to
 * `onLateError` (the stream's own error/close events end the connection). Larger messages, and streams
 * with `EARLY_RESOLVE_MAX_QUEUED` messages still queued, are waited for: at most that many messages of
 * at most `EARLY_RESOLVE_MAX_BYTES` each sit in grpc-js per connection beyond HTTP/2's buffers.
 *
 * NOTE: grpc-js never calls a write's callback once the call is cancelled; `tracking.close` (the
 * connection's close) is what ends such a wait.
 */
export function writeWithTimeout(call: AdsCall, message: EncodedResponse, timeoutMs: number, onLateError?: (e: SendError) => void, tracking: WriteTracking = {}): Promise<void> {
  const { onSettled, close } = tracking;
  if (close?.closed) {
    onSettled?.();
    return Promise.reject(new SendError('connection closed'));
  }
  if (timeoutMs <= 0 && message.length <= EARLY_RESOLVE_MAX_BYTES && call.writableLength < EARLY_RESOLVE_MAX_QUEUED && !call.writableEnded && !call.destroyed) {
    try {
      call.write(message, (err?: Error | null) => {
        if (!err) releaseFrame(message);
        onSettled?.();
        if (err) onLateError?.(new SendError(`writing an xDS response failed: ${err.message}`, { cause: err }));
      });
    } catch (e) {
      onSettled?.();
      return Promise.reject(new SendError(`writing an xDS response failed: ${(e as Error).message}`, { cause: e }));
    }
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const onClose = (): void => settle(new SendError('connection closed'));
    const settle = (err?: Error): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      close?.offClose(onClose);
      onSettled?.();
      if (err) reject(err);
      else resolve();
    };
    if (timeoutMs > 0) timer = setTimeout(() => settle(new SendTimeoutError(timeoutMs)), timeoutMs);
    close?.onClose(onClose);
    try {
      call.write(message, (err?: Error | null) => {
        // NOTE: a write that succeeded: HTTP/2 has written the frame, whose memory can go now.
        if (!err) releaseFrame(message);
        settle(err ? new SendError(`writing an xDS response failed: ${err.message}`, { cause: err }) : undefined);
      });
    } catch (e) {
      settle(new SendError(`writing an xDS response failed: ${(e as Error).message}`, { cause: e }));
    }
  });
}

interface Http2StreamLike {
  close?: (code?: number) => void;
  destroyed?: boolean;
}

/** Finds grpc-js's HTTP/2 stream under a server call (internal fields; undefined if the layout changes). */
function http2StreamOf(call: AdsCall): Http2StreamLike | undefined {
  let cur: unknown = (call as unknown as { call?: unknown }).call;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const stream = (cur as { stream?: Http2StreamLike }).stream;
    if (stream && typeof stream.close === 'function') return stream;
    cur = (cur as { nextCall?: unknown }).nextCall;
  }
  return undefined;
}

/**
 * Ends a stream with a status. With `hard`, also resets the HTTP/2 stream, because a status queued behind
 * data the peer does not read would never be delivered (the send-timeout case).
 */
export function closeCall(call: AdsCall, code: grpc.status, details: string, hard = false): void {
  try {
    call.emit('error', { code, details, metadata: new grpc.Metadata() });
  } catch {
    // NOTE: the stream was already finished; nothing to report to the peer.
  }
  if (hard) {
    // NOTE: reaches into grpc-js internals (ServerDuplexStreamImpl.call...nextCall.stream); if the layout
    // changes, the stream is still ended above and freed when the peer goes away or keepalive fails.
    const stream = http2StreamOf(call);
    if (stream && !stream.destroyed) stream.close?.(0x8 /* NGHTTP2_CANCEL */);
  }
}
