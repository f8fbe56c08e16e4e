/**
 * Shared plumbing of the test ADS clients: a raw bidi stream to an ADS method over real gRPC, a queue of
 * decoded responses with deadline-bounded waits, and the stream's final status.
 */
import * as grpc from '@grpc/grpc-js';
import { encode } from '../protos/index.js';

/** Node metadata as plain JS (strings, numbers, booleans, nested objects, lists). */
export type NodeMetadata = Readonly<Record<string, unknown>>;

/** The node a test client sends. */
export interface TestNode {
  readonly id: string;
  readonly cluster?: string;
  readonly metadata?: NodeMetadata;
  readonly locality?: { readonly region?: string; readonly zone?: string; readonly subZone?: string };
}

function toValue(v: unknown): Record<string, unknown> {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStruct(v as Record<string, unknown>) };
}

/** Plain JS object -> google.protobuf.Struct in plain-object form. */
export function toStruct(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) fields[k] = toValue(v);
  return { fields };
}

/** The envoy.config.core.v3.Node plain object for a TestNode. */
export function nodeObject(node: TestNode): Record<string, unknown> {
  return {
    id: node.id,
    ...(node.cluster ? { cluster: node.cluster } : {}),
    ...(node.metadata ? { metadata: toStruct(node.metadata) } : {}),
    ...(node.locality ? { locality: node.locality } : {}),
  };
}

/** Thrown when a wait passes its deadline. */
export class WaitTimeoutError extends Error {
  constructor(what: string, timeoutMs: number) {
    super(`timed out after ${timeoutMs}ms waiting for ${what}`);
    this.name = 'WaitTimeoutError';
  }
}

/** Options common to the test clients. */
export interface AdsClientOptions {
  /** `host:port` of the ADS server. */
  readonly address: string;
  readonly node: TestNode;
  readonly credentials?: grpc.ChannelCredentials;
  readonly channelOptions?: grpc.ChannelOptions;
  /** Default deadline of waits (ms); 10 s. */
  readonly waitMs?: number;
}

const identity = (b: Buffer): Buffer => b;

/** A bidi byte stream plus a response log. `R` is the decoded response type. */
export class AdsStream<R> {
  readonly responses: R[] = [];
  /** Resolves with the stream's final status (OK on a clean end). */
  readonly status: Promise<grpc.StatusObject>;
  readonly #client: grpc.Client;
  readonly #call: grpc.ClientDuplexStream<Buffer, Buffer>;
  readonly #waiters = new Set<() => void>();
  readonly #waitMs: number;
  #ended: grpc.StatusObject | undefined;

  constructor(opts: AdsClientOptions, method: string, decode: (b: Buffer) => R, onResponse: (r: R) => void) {
    this.#waitMs = opts.waitMs ?? 10_000;
    this.#client = new grpc.Client(opts.address, opts.credentials ?? grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
      // NOTE: a large receive window, as Envoy's (256 MiB per stream); grpc-js defaults to 64 KiB.
      'grpc-node.flow_control_window': 64 * 1024 * 1024,
      ...opts.channelOptions,
    });
    this.#call = this.#client.makeBidiStreamRequest(method, identity, identity);
    this.status = new Promise((resolve) => {
      this.#call.on('status', (s: grpc.StatusObject) => {
        this.#ended = s;
        resolve(s);
        this.#notify();
      });
    });
    this.#call.on('error', () => {
      // NOTE: the status event carries the details; 'error' must have a listener.
    });
    this.#call.on('data', (b: Buffer) => {
      const r = decode(b);
      this.responses.push(r);
      onResponse(r);
      this.#notify();
    });
  }

  /** Sends one request message of the given type. */
  send(typeName: string, message: object): void {
    this.#call.write(Buffer.from(encode(typeName, message)));
  }

  /** Sends raw bytes (for malformed-request tests). */
  sendRaw(bytes: Uint8Array): void {
    this.#call.write(Buffer.from(bytes));
  }

  /** Stops reading responses (flow control then stalls the server's writes). */
  pause(): void {
    this.#call.pause();
  }

  /** The final status if the stream has ended. */
  get ended(): grpc.StatusObject | undefined {
    return this.#ended;
  }

  /**
   * Resolves with the first value `check` returns that is not undefined, re-checking after every response
   * and at the end of the stream; rejects at the deadline or when the stream ends first.
   */
  waitFor<T>(what: string, check: () => T | undefined, timeoutMs = this.#waitMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const attempt = (): boolean => {
        const v = check();
        if (v !== undefined) {
          done();
          resolve(v);
          return true;
        }
        if (this.#ended) {
          done();
          reject(new Error(`stream ended (${grpc.status[this.#ended.code]}: ${this.#ended.details}) while waiting for ${what}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new WaitTimeoutError(what, timeoutMs));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(listener);
      };
      const listener = (): void => void attempt();
      if (attempt()) return;
      this.#waiters.add(listener);
    });
  }

  /** Half-closes, cancels and closes the channel. */
  close(): void {
    try {
      this.#call.end();
    } catch {
      // already ended
    }
    this.#call.cancel();
    this.#client.close();
  }

  #notify(): void {
    for (const w of [...this.#waiters]) w();
  }
}
