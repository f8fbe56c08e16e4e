/**
 * The benchmark clients' gRPC messages reassembled into reused memory.
 *
 * grpc-js's client reads a message that spans many HTTP/2 DATA frames by keeping each chunk and concatenating them
 * into a new buffer at the end (`StreamDecoder.write`). A SotW CDS response at S=200 is ~620 KB, 400 clients get one
 * per full push, and the fresh memory of each concatenation (page faults, then a collection to free it) made that copy
 * the largest single cost of the client threads (17 % of their time in a new-service push, profiled), time the
 * measured servers then shared two cores with. Envoy reads into buffers it reuses. Once installed (per thread), a
 * message of at least {@link POOLED_MIN_BYTES} is copied chunk by chunk into memory taken from a {@link FramePool},
 * which the client gives back with {@link releaseMessage} once it has worked on the message; smaller ones get memory
 * of their own as before.
 *
 * NOTE: this replaces a method of grpc-js's internals (stream-decoder.js, the version package-lock.json pins); when
 * it is not where it is expected nothing is installed and grpc-js's own decoder stays. pooled-decoder.test.ts
 * checks the bytes against grpc-js's decoder and fails if the installation stops taking.
 */
import { createRequire } from 'node:module';

/** The gRPC length-prefixed message header: a compressed flag byte and a 32-bit big-endian length. */
const HEADER = 5;

/** Messages (with their header) at least this large are read into pooled memory. */
export const POOLED_MIN_BYTES = 64 * 1024;

/**
 * Reusable memory by size class (powers of two from {@link POOLED_MIN_BYTES}), one pool per thread. Memory handed out
 * is the caller's until it is given back; at most `maxFreeBytes` is kept free.
 */
export class FramePool {
  readonly #free = new Map<number, ArrayBuffer[]>();
  readonly #ours = new WeakSet<ArrayBuffer>();
  /** The memory in `#free`, to refuse a second release in O(1). */
  readonly #isFree = new WeakSet<ArrayBuffer>();
  #freeBytes = 0;
  readonly maxFreeBytes: number;
  /** Buffers handed out that were reused rather than allocated (for tests and reports). */
  reused = 0;

  constructor(maxFreeBytes = 128 * 1024 * 1024) {
    this.maxFreeBytes = maxFreeBytes;
  }

  /** A buffer of exactly `size` bytes (uninitialized) over memory of the pool. */
  acquire(size: number): Buffer {
    const cls = sizeClass(size);
    const list = this.#free.get(cls);
    let memory = list?.pop();
    if (memory) {
      this.#isFree.delete(memory);
      this.#freeBytes -= cls;
      this.reused++;
    } else {
      memory = new ArrayBuffer(cls);
      this.#ours.add(memory);
    }
    return Buffer.from(memory, 0, size);
  }

  /** Gives back the memory under `bytes` when it came from this pool (any view of it); other memory is left alone. */
  release(bytes: Uint8Array): void {
    const memory = bytes.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#ours.has(memory)) return;
    // NOTE: a second release of the same memory would hand it out twice.
    if (this.#isFree.has(memory)) throw new Error('FramePool: memory released twice');
    if (this.#freeBytes + memory.byteLength > this.maxFreeBytes) return;
    const cls = memory.byteLength;
    let list = this.#free.get(cls);
    if (!list) this.#free.set(cls, (list = []));
    list.push(memory);
    this.#isFree.add(memory);
    this.#freeBytes += cls;
  }
}

function sizeClass(size: number): number {
  let cls = POOLED_MIN_BYTES;
  while (cls < size) cls *= 2;
  return cls;
}

/** The state of one stream's decoder, kept on grpc-js's StreamDecoder object. */
interface DecoderState {
  /** The header read so far (a message's header may arrive split). */
  header?: Buffer;
  headerRead?: number;
  /** The message being filled (header included) and how much of it is filled. */
  message?: Buffer | undefined;
  filled?: number;
  maxReadMessageLength: number;
}

let pool: FramePool | undefined;

/** The pool of this thread's installation (undefined when not installed). */
export function installedPool(): FramePool | undefined {
  return pool;
}

/**
 * Makes grpc-js's client decoder in this thread read large messages into `framePool`'s memory (see the file comment).
 * Idempotent per thread; returns whether it took.
 */
export function installPooledDecoder(framePool = new FramePool()): boolean {
  if (pool) return true;
  let proto: { write?: (data: Buffer) => Buffer[] } | undefined;
  try {
    const require = createRequire(import.meta.url);
    const mod = require('@grpc/grpc-js/build/src/stream-decoder.js') as { StreamDecoder?: { prototype: { write?: (data: Buffer) => Buffer[] } } };
    proto = mod.StreamDecoder?.prototype;
  } catch {
    return false;
  }
  if (!proto || typeof proto.write !== 'function' || proto.write.length !== 1) return false;
  pool = framePool;
  const p = framePool;
  proto.write = function write(this: DecoderState, data: Buffer): Buffer[] {
    return decode(this, data, p);
  };
  return true;
}

/** Gives a message the client has worked on back to this thread's pool (nothing when it is not pooled memory). */
export function releaseMessage(bytes: Uint8Array): void {
  pool?.release(bytes);
}

/** Reads `data` into `s`; returns the messages it completed, each with its 5-byte header (as grpc-js's decoder does). */
export function decode(s: DecoderState, data: Buffer, framePool: FramePool): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    if (s.message === undefined) {
      s.header ??= Buffer.alloc(HEADER);
      s.headerRead ??= 0;
      const n = Math.min(HEADER - s.headerRead, data.length - at);
      data.copy(s.header, s.headerRead, at, at + n);
      s.headerRead += n;
      at += n;
      if (s.headerRead < HEADER) break;
      s.headerRead = 0;
      const length = s.header.readUInt32BE(1);
      const max = s.maxReadMessageLength;
      if (max !== -1 && length > max) throw new Error(`Received message larger than max (${length} vs ${max})`);
      const size = HEADER + length;
      s.message = size >= POOLED_MIN_BYTES ? framePool.acquire(size) : Buffer.allocUnsafe(size);
      s.header.copy(s.message, 0, 0, HEADER);
      s.filled = HEADER;
    }
    const message = s.message;
    const n = Math.min(message.length - s.filled!, data.length - at);
    data.copy(message, s.filled!, at, at + n);
    s.filled! += n;
    at += n;
    if (s.filled === message.length) {
      out.push(message);
      s.message = undefined;
    }
  }
  return out;
}
