/**
 * ADS responses laid out straight into their gRPC frames.
 *
 * grpc-js sends a message by serializing it and copying the bytes behind the 5-byte gRPC frame header into a
 * new buffer (`BaseServerInterceptingCall.serializeMessage`). For an ADS response that is a second copy of
 * every byte after meshd's own layout (ads-service.ts): at S=100 over SotW, 41 MB per full push and ~16 % of the
 * push's server CPU in that copy (profiled, DEVELOPERS.md). Once installed, an EncodedResponse is laid out
 * directly behind the header it is sent with; every other message (the CA's, any other service's) takes
 * grpc-js's own path.
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

/** The message `r` in a gRPC frame of its own (uncompressed): the header, then the response's bytes. */
export function frameResponse(r: EncodedResponse): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + r.length);
  frame[0] = 0;
  frame.writeUInt32BE(r.length, 1);
  r.writeInto(frame.subarray(HEADER));
  return frame;
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
