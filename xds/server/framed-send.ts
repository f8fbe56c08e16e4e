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
 * NOTE: this reaches into grpc-js's internals (server-interceptors.js, the version package-lock.json pins). When
 * the method is not where it is expected nothing is installed, and responses take the path they took before
 * (`serializeResponse`: a scratch layout that grpc-js copies). framed-send.test.ts holds both paths to a real
 * stream, and fails if the installation stops taking.
 */
import { createRequire } from 'node:module';
import { EncodedResponse } from './wire.js';

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
 * Makes grpc-js frame EncodedResponses where they are laid out (see the file comment). Idempotent; returns
 * whether it took (false: grpc-js's internals are not as expected, and the copying path stays).
 */
export function installFramedResponses(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  let proto: { serializeMessage?: SerializeMessage } | undefined;
  try {
    const require = createRequire(import.meta.url);
    const mod = require('@grpc/grpc-js/build/src/server-interceptors.js') as { BaseServerInterceptingCall?: { prototype: { serializeMessage?: SerializeMessage } } };
    proto = mod.BaseServerInterceptingCall?.prototype;
  } catch {
    return false;
  }
  const original = proto?.serializeMessage;
  if (!proto || typeof original !== 'function' || original.length !== 1) return false;
  proto.serializeMessage = function serializeMessage(this: unknown, value: unknown): Buffer {
    return value instanceof EncodedResponse ? frameResponse(value) : original.call(this, value);
  };
  installed = true;
  return true;
}
