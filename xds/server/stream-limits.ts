/**
 * Bounds that keep one misbehaving proxy from costing meshd (or the other proxies) more than a fixed
 * amount of time, memory or log: stuck writes, inbound requests waiting, subscribed types, node fields,
 * NACK details. None is an environment variable of the spec; the defaults are far beyond what a real
 * proxy reaches, and tests pass smaller ones.
 */
import { DEFAULT_NODE_LIMITS } from './node.js';

/** The limits of the ADS transport. */
export interface StreamLimits {
  /**
   * Longest a push holds one of the PILOT_PUSH_THROTTLE slots (ms). A push still running after that goes
   * on without a slot, and the connection's next pushes wait for it, merged, without taking one.
   */
  readonly pushSlotHoldMs: number;
  /**
   * Longest one response may wait for the proxy to read it when PILOT_XDS_SEND_TIMEOUT is 0 (ms); the
   * stream is then cut off with DEADLINE_EXCEEDED and counted in pilot_xds_write_timeout.
   */
  readonly stallTimeoutMs: number;
  /**
   * Requests received on one stream and not yet processed before meshd stops reading it (HTTP/2 flow
   * control then holds the rest at the peer). With grpc-js's own 16-message read buffer, at most
   * `maxPendingRequests + 16` requests of at most MESH_GPRC_MAXRECVMSGSIZE each are held per stream.
   */
  readonly maxPendingRequests: number;
  /** Distinct type URLs one stream may hold state for; one more ends the stream with RESOURCE_EXHAUSTED. */
  readonly maxTypesPerStream: number;
  /** Longest type URL (characters); a longer one ends the stream with INVALID_ARGUMENT. */
  readonly maxTypeUrlLength: number;
  /** Longest node id (bytes, UTF-8). */
  readonly maxNodeIdBytes: number;
  /** Longest node cluster, user agent and locality fields (bytes each). */
  readonly maxNodeFieldBytes: number;
  /** Largest node metadata, measured as its JSON (bytes). */
  readonly maxNodeMetadataBytes: number;
  /** Longest NACK error detail kept and logged (characters); the rest is cut with a marker. */
  readonly maxNackDetailChars: number;
  /** Per connection, at most one NACK warning per this interval (ms) after the first; the rest are counted. */
  readonly nackLogIntervalMs: number;
}

/**
 * The defaults.
 *
 * NOTE (stallTimeoutMs): a proxy that reads nothing is cut off after 30 s, like istiod with
 * PILOT_XDS_SEND_TIMEOUT set, rather than kept with bounded buffers only: a healthy Envoy's stream window
 * is 256 MiB and its reads keep up within milliseconds on any link meshd serves, so 30 s without the
 * proxy taking one response is a dead or hostile peer; keeping it would hold its generator state and its
 * last response for ever. Memory is bounded as well (as grpc-go's per-stream write quota does): a
 * connection has at most one response waiting for flow control plus `EARLY_RESOLVE_MAX_QUEUED` small
 * ones, because every write waits for the one before it to be taken (see send.ts).
 *
 * NOTE (node fields): see `DEFAULT_NODE_LIMITS` in node.ts.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = Object.freeze({
  pushSlotHoldMs: 1_000,
  stallTimeoutMs: 30_000,
  maxPendingRequests: 8,
  maxTypesPerStream: 64,
  maxTypeUrlLength: 512,
  ...DEFAULT_NODE_LIMITS,
  maxNackDetailChars: 4096,
  nackLogIntervalMs: 30_000,
});

/** The defaults with `overrides` applied; every value must be a positive number. */
export function streamLimits(overrides: Partial<StreamLimits> = {}): StreamLimits {
  const out = { ...DEFAULT_STREAM_LIMITS, ...overrides };
  for (const [k, v] of Object.entries(out)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`stream limit ${k}=${String(v)}: must be a number >= 0`);
  }
  return Object.freeze(out);
}

/** `text` cut to `max` characters with a marker saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}... [truncated ${text.length - max} of ${text.length} characters]`;
}
