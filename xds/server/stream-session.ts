/**
 * The life of one ADS stream, shared by SotW and delta: admission, the first request's node, one-at-a-time
 * processing of requests and pushes, and closing with a status that says what went wrong.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { PushRequest } from '../../core/index.js';
import { Serial, type Connection } from './connection.js';
import { NodeError, parseNode } from './node.js';
import { closeCall, SendError, SendTimeoutError, type AdsCall } from './send.js';
import type { StreamHost } from './stream-host.js';
import type { StreamLimits } from './stream-limits.js';
import type { NodeMessage } from './wire.js';

/** An error that ends the stream with a given gRPC status. */
export class StreamError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
    this.name = 'StreamError';
  }
}

/** A generator failed while building resources for a proxy. */
export class GenerateError extends Error {
  constructor(typeUrl: string, cause: unknown) {
    super(`generating ${typeUrl} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'GenerateError';
  }
}

/** What the session reads of any request, SotW or delta. */
export interface AdsRequest {
  readonly node?: NodeMessage | null;
  readonly typeUrl: string;
}

/** The protocol-specific half of a stream. */
export interface ProtocolHandler<P, Req extends AdsRequest> {
  readonly protocol: 'sotw' | 'delta';
  /** `conn`: the stream's connection once its first request opened it. */
  decode(bytes: Uint8Array, conn: Connection<P> | undefined): Req;
  process(conn: Connection<P>, req: Req): Promise<void>;
  push(conn: Connection<P>, push: PushRequest): Promise<void>;
}

/**
 * Refuses a request that would make the stream hold state for one type URL too many, or for an absurdly
 * long one. NOTE: Istio ignores unknown types; meshd answers them empty but must not keep state for any
 * number of them (20,000 distinct types made every push walk them all), so the count of types one
 * stream may hold is capped and the stream that passes the cap is ended, naming the limit.
 */
function checkTypeLimits(conn: Connection<unknown>, typeUrl: string, limits: StreamLimits): void {
  if (conn.watched.has(typeUrl)) return;
  if (typeUrl.length > limits.maxTypeUrlLength) {
    throw new StreamError(grpc.status.INVALID_ARGUMENT, `type_url of ${typeUrl.length} characters is longer than the limit of ${limits.maxTypeUrlLength}`);
  }
  if (conn.watched.size >= limits.maxTypesPerStream) {
    throw new StreamError(
      grpc.status.RESOURCE_EXHAUSTED,
      `too many type URLs on one stream: the limit is ${limits.maxTypesPerStream} (refused "${typeUrl.slice(0, 100)}")`,
    );
  }
}

/** Serves one stream until it ends. Returns at once; everything runs on events. */
export function serveStream<P, Req extends AdsRequest>(host: StreamHost<P>, call: AdsCall, handler: ProtocolHandler<P, Req>, log: Logger): void {
  const peer = call.getPeer();
  const serial = new Serial();
  let conn: Connection<P> | undefined;
  let ended = false;

  const teardown = (): void => {
    if (ended) return;
    ended = true;
    if (conn) {
      conn.closed = true;
      host.close(conn);
      log.debug({ connection: conn.id, peer }, 'stream closed');
    }
  };

  const fail = (err: unknown): void => {
    if (ended) return;
    let code = grpc.status.INTERNAL;
    let hard = false;
    if (err instanceof StreamError) code = err.code;
    else if (err instanceof NodeError) code = grpc.status.INVALID_ARGUMENT;
    else if (err instanceof SendTimeoutError) {
      code = grpc.status.DEADLINE_EXCEEDED;
      hard = true;
    } else if (err instanceof SendError) code = grpc.status.UNAVAILABLE;
    else host.metrics.internalError();
    const message = err instanceof Error ? err.message : String(err);
    const fields = { connection: conn?.id, node: conn?.node.id, peer, code: grpc.status[code], error: message };
    if (code === grpc.status.INTERNAL) log.error(fields, 'closing stream on internal error');
    else log.warn(fields, 'closing stream');
    closeCall(call, code, message, hard);
    teardown();
  };

  const onData = async (bytes: Uint8Array): Promise<void> => {
    if (ended) return;
    let req: Req;
    try {
      req = handler.decode(bytes, conn);
    } catch (e) {
      throw new StreamError(grpc.status.INVALID_ARGUMENT, `malformed ${handler.protocol === 'sotw' ? 'DiscoveryRequest' : 'DeltaDiscoveryRequest'}: ${(e as Error).message}`);
    }
    if (!conn) {
      const node = parseNode(req.node, host.limits);
      const opened = await host.open(node, peer, handler.protocol, (push) =>
        serial
          .run(() => {
            if (ended) return undefined;
            // NOTE: one event per connection per push (2,000 at N=2,000), built only when something listens.
            if (host.observed?.() !== false) host.emit({ kind: 'push', connectionId: opened.id, push });
            return handler.push(opened, push);
          })
          .catch(fail),
      );
      conn = opened;
      if (ended) {
        host.close(opened);
        return;
      }
      log.info({ connection: conn.id, node: node.id, peer, proxyless: node.proxyless }, 'new connection');
    }
    if (req.typeUrl === '') throw new StreamError(grpc.status.INVALID_ARGUMENT, 'request has an empty type_url');
    checkTypeLimits(conn, req.typeUrl, host.limits);
    await handler.process(conn, req);
  };

  const start = async (): Promise<void> => {
    if (!(await host.admit())) {
      log.warn({ peer }, 'refusing stream: request rate limit exceeded');
      closeCall(call, grpc.status.RESOURCE_EXHAUSTED, 'request rate limit exceeded (PILOT_MAX_REQUESTS_PER_SECOND); retry later');
      ended = true;
      return;
    }
    if (call.cancelled) {
      ended = true;
      return;
    }
    // NOTE: requests wait in `serial` while an earlier one (or a push) is written to a proxy that may not
    // read; past `maxPendingRequests` the call is paused, so HTTP/2 flow control holds the rest at the peer.
    let backlog = 0;
    let paused = false;
    const maxBacklog = Math.max(1, host.limits.maxPendingRequests);
    call.on('data', (bytes: Uint8Array) => {
      backlog++;
      if (conn) conn.pendingRequests = backlog;
      if (backlog >= maxBacklog && !paused) {
        paused = true;
        call.pause();
      }
      void serial
        .run(() => onData(bytes))
        .catch(fail)
        .finally(() => {
          backlog--;
          if (conn) conn.pendingRequests = backlog;
          if (paused && backlog <= maxBacklog / 2 && !ended) {
            paused = false;
            call.resume();
          }
        });
    });
    call.on('end', () =>
      void serial.run(() => {
        if (ended) return;
        teardown();
        call.end();
      }),
    );
    call.on('cancelled', teardown);
    call.on('close', teardown);
    call.on('error', teardown);
  };
  void start().catch(fail);
}
