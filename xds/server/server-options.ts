/**
 * Options of the ADS transport, and the grpc-js server options the meshd assembly passes when it
 * creates the discovery gRPC server (message size, streams, keepalive, connection age).
 */
import { availableParallelism } from 'node:os';
import type { ChannelOptions } from '@grpc/grpc-js';
import type { Env } from '../../core/index.js';
import { defaultRequestLimit } from './rate-limiter.js';

/** Transport tuning, read from the environment once at start (see `transportOptionsFromEnv`). */
export interface TransportOptions {
  /** PILOT_PUSH_THROTTLE: concurrent pushes; 0 derives it from cores (Istio: min(15 + 5 * cores, 100)). */
  readonly pushThrottle: number;
  /** PILOT_MAX_REQUESTS_PER_SECOND: new streams admitted per second; 0 derives it (Istio: min(15 + 5 * cores, 100)). */
  readonly maxRequestsPerSecond: number;
  /** PILOT_XDS_SEND_TIMEOUT in ms; 0 = no timeout. */
  readonly sendTimeoutMs: number;
  /**
   * MESH_DELTA_XDS. meshd serves both SotW and delta streams whatever this says (pilot-agent reads the
   * same variable to choose the API it speaks). In meshd it switches what a delta stream carries on a
   * push: true = real deltas (only resources whose version differs from what the client holds, including
   * the versions it reports on reconnect); false = every subscribed resource of a pushed type, i.e. the
   * delta API with state-of-the-world payloads, which is what "does not send real deltas" describes.
   */
  readonly deltaXds: boolean;
}

/** Istio's derivation for PILOT_PUSH_THROTTLE=0: `min(15 + 5 * cores, 100)`. */
export function defaultPushThrottle(cores = availableParallelism()): number {
  return Math.min(15 + 5 * cores, 100);
}

/** The effective push concurrency (0 = derived). */
export function effectivePushThrottle(opts: Pick<TransportOptions, 'pushThrottle'>): number {
  return opts.pushThrottle > 0 ? opts.pushThrottle : defaultPushThrottle();
}

/** The effective admission rate (0 = derived). */
export function effectiveRequestLimit(opts: Pick<TransportOptions, 'maxRequestsPerSecond'>): number {
  return opts.maxRequestsPerSecond > 0 ? opts.maxRequestsPerSecond : defaultRequestLimit();
}

/** Reads the transport's variables from a loaded Env. Negative values are rejected naming the variable. */
export function transportOptionsFromEnv(env: Env): TransportOptions {
  const pushThrottle = env.int('PILOT_PUSH_THROTTLE');
  if (pushThrottle < 0) throw new RangeError(`PILOT_PUSH_THROTTLE=${pushThrottle}: must be 0 (derive from cores) or more`);
  const maxRequestsPerSecond = env.float('PILOT_MAX_REQUESTS_PER_SECOND');
  if (maxRequestsPerSecond < 0) throw new RangeError(`PILOT_MAX_REQUESTS_PER_SECOND=${maxRequestsPerSecond}: must be 0 (derive from cores) or more`);
  const sendTimeoutMs = env.duration('PILOT_XDS_SEND_TIMEOUT');
  if (sendTimeoutMs < 0) throw new RangeError(`PILOT_XDS_SEND_TIMEOUT: must not be negative`);
  return { pushThrottle, maxRequestsPerSecond, sendTimeoutMs, deltaXds: env.bool('MESH_DELTA_XDS') };
}

/** What `adsServerOptions` needs: the variables and flags of the discovery gRPC server. */
export interface GrpcServerLimits {
  /** MESH_GPRC_MAXRECVMSGSIZE (bytes). */
  readonly maxRecvMsgSize: number;
  /** MESH_GPRC_MAXSTREAMS. */
  readonly maxStreams: number;
  /** --keepaliveInterval (ms): idle time before pinging the peer. */
  readonly keepaliveIntervalMs: number;
  /** --keepaliveTimeout (ms): wait for the ping's answer before closing. */
  readonly keepaliveTimeoutMs: number;
  /** --keepaliveMaxServerConnectionAge (ms); Go's maximum duration means "never". */
  readonly maxConnectionAgeMs: number;
}

/** Largest delay Node timers accept; longer ages mean "never" (Go's default is its maximum duration). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * grpc-js server options for the discovery server. The send side is unbounded (responses for a large
 * mesh exceed 4 MB); the receive side is MESH_GPRC_MAXRECVMSGSIZE. Connection age gets Istio's grace.
 */
export function adsServerOptions(limits: GrpcServerLimits): ChannelOptions {
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`${k}=${v}: must be a number >= 0`);
  }
  const opts: ChannelOptions = {
    'grpc.max_receive_message_length': limits.maxRecvMsgSize,
    'grpc.max_send_message_length': -1,
    'grpc.max_concurrent_streams': limits.maxStreams,
    'grpc.keepalive_time_ms': limits.keepaliveIntervalMs,
    'grpc.keepalive_timeout_ms': limits.keepaliveTimeoutMs,
  };
  if (limits.maxConnectionAgeMs > 0 && limits.maxConnectionAgeMs < MAX_TIMER_MS) {
    opts['grpc.max_connection_age_ms'] = limits.maxConnectionAgeMs;
    opts['grpc.max_connection_age_grace_ms'] = 10_000;
  }
  return opts;
}
