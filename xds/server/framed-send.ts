/**
 * ADS responses laid out straight into their gRPC frames.
 *
 * grpc-js sends a message by serializing it and copying the bytes behind the 5-byte gRPC frame header into a
 * new buffer (`BaseServerInterceptingCall.serializeMessage`). For an ADS response that is a second copy of
 * every byte after meshd's own layout (ads-service.ts): at S=100 over SotW, 41 MB per full push and ~16 % of the
 * push's server CPU in that copy (profiled, DEVELOPERS.md). Once installed, an EncodedResponse is laid out
 * directly behind the header it is sent with; every other message (the CA's, any other service's) takes
 * grpc-js's own path. A large frame's memory is freed as soon as it has been written (releaseFrame).
 *
 * A response with bytes it shares with others (a resource section, resource-sections.ts) is not laid out whole: it
 * goes as the parts of its frame (frameParts), the shared ones as they are, in one corked write after grpc-js has sent
 * the first part with its own checks. At S=200/N=400 over SotW that took the copying of ~800 KB per sidecar and full
 * push (the layout was ~20 % of the main thread's busy time in a new-service push, profiled) off the push.
 *
 * NOTE: this reaches into grpc-js's internals (server-interceptors.js, the version package-lock.json pins:
 * serializeMessage and sendMessage of BaseServerInterceptingCall, and its stream, maxSendMessageSize and sendStatus).
 * When the methods are not where they are expected nothing is installed, and responses take the path they took before
 * (`serializeResponse`: a scratch layout that grpc-js copies). framed-send.test.ts holds both paths to a real
 * stream, and fails if the installation stops taking.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { beginWrite, endWrite, isShared } from './shared-bytes.js';
import { assertWhole, EncodedResponse, fillPiece, type FilledPiece } from './wire.js';

/** The gRPC length-prefixed message header: a compressed flag byte and a 32-bit big-endian length. */
const HEADER = 5;

type SerializeMessage = (this: unknown, value: unknown) => Buffer;

let installed: boolean | undefined;

/** Frames at least this large get memory of their own, freed as soon as they are written (releaseFrame). */
const FREED_MIN_BYTES = 64 * 1024;
/** The frame of each large response framed once; null once released, or for one framed twice (never freed early). */
const frames = new WeakMap<EncodedResponse, Buffer | null>();

/** The message `r` in a gRPC frame of its own (uncompressed): the header, then the response's bytes. */
export function frameResponse(r: EncodedResponse): Buffer {
  const size = HEADER + r.length;
  const large = size >= FREED_MIN_BYTES;
  // NOTE: allocUnsafeSlow: never a slice of Node's shared pool, so freeing it frees nothing else.
  const frame = large ? Buffer.allocUnsafeSlow(size) : Buffer.allocUnsafe(size);
  if (large) frames.set(r, frames.has(r) ? null : frame);
  frame[0] = 0;
  frame.writeUInt32BE(r.length, 1);
  r.writeInto(frame.subarray(HEADER));
  return frame;
}

/**
 * Frees the memory of `r`'s frame now rather than when V8 collects the frame object. Call it only from the callback
 * of the write that sent `r` without an error: grpc-js calls that once HTTP/2 has written the frame to the socket,
 * and nothing reads the frame after. A frame that outlives two scavenges (a full push to slow readers) is otherwise
 * promoted and its memory held until the next full collection: at S=200/N=400 over SotW, 130 MB of array buffers at
 * meshd's peak RSS (sampled), most of them frames already written.
 */
export function releaseFrame(r: EncodedResponse): void {
  const frame = frames.get(r);
  if (!frame) return;
  frames.set(r, null);
  // NOTE: transfer(0) detaches the frame's ArrayBuffer, which drops its memory (the frame owns all of it).
  (frame.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
}

/**
 * The gRPC frame of `r` in parts to write in order: the header with the bytes of its own that come first, each
 * shared piece as it is (never copied), and its own bytes between and after them.
 */
export function frameParts(r: EncodedResponse): Buffer[] {
  let total = 0;
  for (const p of r.pieces) total += p.length;
  assertWhole(r, total);
  const parts: Buffer[] = [];
  let run: FilledPiece[] = [];
  let header = true;
  const flush = (): void => {
    let size = header ? HEADER : 0;
    for (const p of run) size += p.length;
    if (size === 0) return;
    const buf = Buffer.allocUnsafe(size);
    let pos = 0;
    if (header) {
      buf[0] = 0;
      buf.writeUInt32BE(r.length, 1);
      pos = HEADER;
      header = false;
    }
    for (const p of run) {
      fillPiece(p, buf.subarray(pos, pos + p.length));
      pos += p.length;
    }
    parts.push(buf);
    run = [];
  };
  for (const p of r.pieces) {
    if (!Buffer.isBuffer(p)) {
      run.push(p);
      continue;
    }
    flush();
    parts.push(p);
  }
  flush();
  return parts;
}

/** The grpc-js server call internals the split write uses (BaseServerInterceptingCall). */
interface ServerCallInternals {
  readonly stream?: Writable;
  readonly maxSendMessageSize?: number;
  sendStatus?(status: { code: number; details: string; metadata: null }): void;
}

type SendMessage = (this: ServerCallInternals, message: unknown, callback: () => void) => void;

/** The response whose head `serializeMessage` is to frame alone (set only during a split write's call into grpc-js). */
let splitting: { readonly message: EncodedResponse; head: Buffer | undefined } | undefined;

/**
 * Sends `message` as its frame parts: grpc-js writes the first (after the call's metadata, with its own checks),
 * then the rest follow on the same HTTP/2 stream, the last with `callback`. Returns false, having sent nothing,
 * when the call is not as expected (the caller then sends it whole).
 */
function sendSplit(call: ServerCallInternals, original: SendMessage, message: EncodedResponse, callback: () => void): boolean {
  const stream = call.stream;
  const max = call.maxSendMessageSize;
  if (!stream || typeof stream.cork !== 'function' || typeof call.sendStatus !== 'function' || typeof max !== 'number') return false;
  // NOTE: grpc-js checks the size of what serializeMessage returns: a message over the limit goes whole, to be refused.
  if (max !== -1 && message.length > max) return false;
  const parts = frameParts(message);
  const shared = parts.filter((p) => isShared(p));
  const state = { message, head: parts[0] };
  beginWrite(message, shared);
  let sent = false;
  // NOTE: corked, the parts reach HTTP/2 in one writev after grpc-js has sent the call's metadata.
  stream.cork();
  try {
    splitting = state;
    try {
      original.call(call, message, () => undefined);
    } finally {
      splitting = undefined;
    }
    // NOTE: a head not taken means grpc-js sent nothing (the call was cancelled), and nothing more goes.
    if (state.head !== undefined) return true;
    const done = (err?: Error | null): void => {
      endWrite(shared);
      // NOTE: as grpc-js after a failed write: the call ends with INTERNAL, and the callback is not called.
      if (err) call.sendStatus?.({ code: grpc.status.INTERNAL, details: 'Internal server error', metadata: null });
      else callback();
    };
    for (let i = 1; i < parts.length; i++) stream.write(parts[i], i === parts.length - 1 ? done : undefined);
    sent = true;
  } finally {
    stream.uncork();
    if (!sent) endWrite(shared);
  }
  return true;
}

/**
 * Makes grpc-js frame EncodedResponses where they are laid out (see the file comment), and send the bytes a
 * response shares with others (resource-sections.ts) without copying them. Idempotent; returns whether it took
 * (false: grpc-js's internals are not as expected, and the copying path stays).
 */
export function installFramedResponses(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  let proto: { serializeMessage?: SerializeMessage; sendMessage?: SendMessage } | undefined;
  try {
    const require = createRequire(import.meta.url);
    const mod = require('@grpc/grpc-js/build/src/server-interceptors.js') as { BaseServerInterceptingCall?: { prototype: { serializeMessage?: SerializeMessage; sendMessage?: SendMessage } } };
    proto = mod.BaseServerInterceptingCall?.prototype;
  } catch {
    return false;
  }
  const original = proto?.serializeMessage;
  const originalSend = proto?.sendMessage;
  if (!proto || typeof original !== 'function' || original.length !== 1 || typeof originalSend !== 'function' || originalSend.length !== 2) return false;
  proto.serializeMessage = function serializeMessage(this: unknown, value: unknown): Buffer {
    if (!(value instanceof EncodedResponse)) return original.call(this, value);
    if (splitting?.message === value && splitting.head) {
      const head = splitting.head;
      splitting.head = undefined;
      return head;
    }
    return frameResponse(value);
  };
  proto.sendMessage = function sendMessage(this: ServerCallInternals, message: unknown, callback: () => void): void {
    if (message instanceof EncodedResponse && message.sharesBytes && sendSplit(this, originalSend, message, callback)) return;
    originalSend.call(this, message, callback);
  };
  installed = true;
  return true;
}
