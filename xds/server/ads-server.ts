/**
 * The ADS server: joins the state-of-the-world and delta stream handlers (go-control-plane style) over one
 * ResourceGenerator, fans PushRequests out through the push queue, and exposes connections for debugging.
 */
import type { Server } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { Subject, type Observable, type Subscription } from 'rxjs';
import { systemClock, withSnapshot, type Clock, type PushRequest, type PushSnapshot } from '../../core/index.js';
import { protoRoot } from '../protos/index.js';
import { ADS_SERVICE } from './ads-service.js';
import { installFramedResponses } from './framed-send.js';
import { ResourceSections } from './resource-sections.js';
import type { XdsStreamAuth } from './auth.js';
import type { ProxyNode, ResourceGenerator } from './contracts.js';
import { Connection, Serial, type ConnectionInfo } from './connection.js';
import { DeltaHandler, serveDelta } from './delta.js';
import { AdsMetrics, type MetricsSource } from './metrics.js';
import { randomNonceSeed, seededNonces, snapshotVersion, type NonceSource } from './nonce-source.js';
import { PushQueue } from './push-queue.js';
import { PushTraces } from './push-trace.js';
import { RateLimiter } from './rate-limiter.js';
import { closeCall, SendError, SendTimeoutError, writeWithTimeout, type AdsCall } from './send.js';
import { effectivePushThrottle, effectiveRequestLimit, type TransportOptions } from './server-options.js';
import { serveSotw, SotwHandler } from './sotw.js';
import { streamLimits, type StreamLimits } from './stream-limits.js';
import type { AdsEvent, ConnectionPusher, RecordedRequest, StreamHost } from './stream-host.js';
import type { DeltaDiscoveryRequest, DiscoveryRequest, EncodedResponse } from './wire.js';
import { StreamError } from './stream-session.js';
import * as grpc from '@grpc/grpc-js';

/** Everything the ADS server needs; read config once in the assembly and pass it here. */
export interface AdsServerOptions<P> extends TransportOptions {
  readonly generator: ResourceGenerator<P>;
  /** Metric handles (core/metrics `Metrics`). */
  readonly metrics: MetricsSource;
  /** Loggers of the spec's scopes `ads` (state of the world, pushes) and `delta`. */
  readonly loggers: { readonly ads: Logger; readonly delta: Logger };
  /** control_plane.identifier in responses (e.g. the meshd pod name); omitted when empty. */
  readonly controlPlaneId?: string;
  /** Longest wait for admission of a new stream before RESOURCE_EXHAUSTED; Istio's 1 s by default. */
  readonly admissionWaitMs?: number;
  /** Bounds against misbehaving proxies (stuck readers, huge nodes, NACK floods); defaults in stream-limits.ts. */
  readonly limits?: Partial<StreamLimits>;
  /**
   * The newest published snapshot (the model's): what a proxy's own request (first request, new
   * subscription) is answered from, and what a push without a snapshot (e.g. a debug push) reads.
   */
  readonly latestSnapshot?: () => PushSnapshot;
  /** The clock of push-queue waits and bounds, and of the `start` of a proxy's own requests; default the system clock. */
  readonly clock?: Clock;
  /**
   * Makes response nonces; default `seededNonces(randomNonceSeed())`. Versions derive from the snapshot a
   * response reads, so with a recorded seed a replay writes the same bytes.
   */
  readonly nonces?: NonceSource;
  /**
   * Why new streams must wait (e.g. "meshd is not ready to serve discovery information: waiting for ..."),
   * or undefined once they may be served. A stream opened while it names a reason is refused with
   * UNAVAILABLE and that reason (proxies retry), as istiod refuses streams before its caches synced and
   * its first push context is built. Default: always ready.
   */
  readonly notReady?: () => string | undefined;
}

/** One response written to a local stream: the encoded DiscoveryResponse (or delta) and the push it answers. */
export interface LocalResponse {
  readonly connectionId: string;
  readonly typeUrl: string;
  readonly message: Buffer;
  readonly push: PushRequest;
}

/** A stream served without a network (the replay of an event log): the same handlers, pushes and nonces. */
export interface LocalStream {
  readonly connectionId: string;
  /**
   * Processes one request as if it came on the stream; resolves when it is answered. `answerFrom`: the
   * snapshot a proxy's own request reads (the one it read live), instead of the newest.
   */
  request(request: RecordedRequest, answerFrom?: PushSnapshot): Promise<void>;
  /** Handles one push on the stream now (not through the push queue), in turn with its requests. */
  push(request: PushRequest): Promise<void>;
  /** Ends the stream (as a disconnect). */
  close(): void;
}

/** ADS over gRPC: register on a grpc-js Server, attach a stream of PushRequests. */
export class AdsServer<P = unknown> {
  readonly #opts: AdsServerOptions<P>;
  readonly #limits: StreamLimits;
  readonly #metrics: AdsMetrics;
  readonly #limiter: RateLimiter;
  readonly #queue: PushQueue<Connection<P>>;
  readonly #connections = new Map<string, Connection<P>>();
  readonly #pushers = new Map<Connection<P>, ConnectionPusher>();
  readonly #calls = new Map<Connection<P>, AdsCall>();
  readonly #events = new Subject<AdsEvent>();
  readonly #versions = new WeakMap<PushRequest, string>();
  #versionCounter = 0;
  readonly #nonces: NonceSource;
  readonly #clock: Clock;
  #connectionCounter = 0;
  #closed = false;
  readonly #host: StreamHost<P>;
  readonly #traces: PushTraces;
  #watchingIdle = false;

  /** Stream events (connected, disconnected, ack, nack) for status tracking and debugging. */
  readonly events: Observable<AdsEvent> = this.#events.asObservable();

  constructor(opts: AdsServerOptions<P>) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#nonces = opts.nonces ?? seededNonces(randomNonceSeed());
    this.#limits = streamLimits(opts.limits);
    this.#metrics = new AdsMetrics(opts.metrics);
    this.#limiter = new RateLimiter({ ratePerSecond: effectiveRequestLimit(opts) });
    this.#queue = new PushQueue<Connection<P>>({
      concurrency: effectivePushThrottle(opts),
      clock: this.#clock,
      push: (conn, req) => this.#pushers.get(conn)?.(req) ?? Promise.resolve(),
      slotHoldMs: this.#limits.pushSlotHoldMs,
      drained: (conn) => conn.drained(),
      onDequeue: (_c, waitedMs) => this.#metrics.queueTime(waitedMs / 1000),
      onError: (conn, e) => opts.loggers.ads.error({ connection: conn.id, error: String(e) }, 'push failed'),
    });
    this.#host = this.#makeHost();
    // NOTE: one info line per push with its phases (from the change: published, first/last write, last flush).
    this.#traces = new PushTraces(this.#clock, (t) => opts.loggers.ads.info(t, 'push sent'));
    // NOTE: load the Envoy protos now (~0.5 s, synchronous) rather than on the first stream.
    protoRoot();
  }

  /**
   * Registers the ADS service on a grpc-js server (which the meshd assembly creates and binds). With
   * `options.auth`, every stream on that server is checked before its proxy is initialised (a refusal closes
   * the stream with the check's status: UNAUTHENTICATED or PERMISSION_DENIED). One AdsServer may be
   * registered on several servers (plaintext and TLS), each with its own check.
   */
  register(server: Server, options: { readonly auth?: XdsStreamAuth } = {}): void {
    const auth = options.auth;
    installFramedResponses();
    server.addService(ADS_SERVICE, {
      StreamAggregatedResources: (call: AdsCall) => this.#serve(call, 'sotw', auth),
      DeltaAggregatedResources: (call: AdsCall) => this.#serve(call, 'delta', auth),
    });
  }

  /** Pushes every request of `pushes` (the debounce stage's output) to all connections. */
  attach(pushes: Observable<PushRequest>): Subscription {
    return pushes.subscribe({ next: (req) => this.push(req) });
  }

  /** Queues a push to every connection, or to those `filter` selects (e.g. /debug/push for one proxy). */
  push(request: PushRequest, filter?: (c: ConnectionInfo<P>) => boolean): void {
    const latest = request.snapshot ? undefined : this.#opts.latestSnapshot?.();
    if (latest) request = withSnapshot(request, latest);
    let queued = 0;
    for (const conn of this.#connections.values()) {
      if (filter && !filter(conn.info())) continue;
      this.#queue.enqueue(conn, request);
      queued++;
    }
    this.#traces.begin(request, queued);
    if (this.#watchingIdle) return;
    this.#watchingIdle = true;
    void this.#queue.idle().then(() => {
      this.#watchingIdle = false;
      this.#traces.idle();
    });
  }

  /** How many connections are live (cheap: `connections()` builds each one's debug view). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** A snapshot of every live connection (ordered by connection time). */
  connections(): ConnectionInfo<P>[] {
    return [...this.#connections.values()].map((c) => c.info());
  }

  /** Resolves when no push is queued or running (tests and graceful shutdown). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Ends every stream with UNAVAILABLE (clients reconnect elsewhere) and stops pushing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.close();
    for (const [conn, call] of this.#calls) {
      closeCall(call, grpc.status.UNAVAILABLE, 'meshd is shutting down');
      this.#host.close(conn);
    }
    this.#events.complete();
  }

  #serve(call: AdsCall, protocol: 'sotw' | 'delta', auth: XdsStreamAuth | undefined): void {
    if (this.#closed) {
      closeCall(call, grpc.status.UNAVAILABLE, 'meshd is shutting down');
      return;
    }
    // NOTE: checked before auth and initProxy: a proxy admitted now would be answered from an incomplete snapshot.
    const waiting = this.#opts.notReady?.();
    if (waiting !== undefined) {
      this.#opts.loggers[protocol === 'sotw' ? 'ads' : 'delta'].debug({ peer: call.getPeer(), reason: waiting }, 'stream refused: not ready');
      closeCall(call, grpc.status.UNAVAILABLE, waiting);
      return;
    }
    if (protocol === 'sotw') serveSotw(this.#hostFor(call, auth), call, this.#opts.loggers.ads);
    else serveDelta(this.#hostFor(call, auth), call, this.#opts.loggers.delta);
  }

  /** The host with `open` bound to this call (so close() can end the call) and its server's auth check. */
  #hostFor(call: AdsCall, auth: XdsStreamAuth | undefined): StreamHost<P> {
    return { ...this.#host, open: (node, peer, protocol, pusher) => this.#open(call, node, peer, protocol, pusher, auth) };
  }

  async #open(
    call: AdsCall, node: ProxyNode, peer: string, protocol: 'sotw' | 'delta', pusher: ConnectionPusher, auth: XdsStreamAuth | undefined,
  ): Promise<Connection<P>> {
    if (auth) await auth.check(call, node);
    let proxy: P;
    try {
      proxy = await this.#opts.generator.initProxy(node);
    } catch (e) {
      throw new StreamError(grpc.status.FAILED_PRECONDITION, `proxy ${node.id} refused: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.#closed) {
      this.#opts.generator.closeProxy?.(proxy);
      throw new StreamError(grpc.status.UNAVAILABLE, 'meshd is shutting down');
    }
    const conn = new Connection<P>(`${node.id}-${++this.#connectionCounter}`, node, proxy, peer, protocol);
    this.#connections.set(conn.id, conn);
    this.#pushers.set(conn, pusher);
    this.#calls.set(conn, call);
    if (this.#opts.sendTimeoutMs <= 0) conn.watchStalls(this.#limits.stallTimeoutMs, () => this.#cutOffStalled(conn, call));
    this.#metrics.connected(1);
    this.#events.next({ kind: 'connected', connectionId: conn.id, node, protocol });
    return conn;
  }

  /**
   * Opens a stream with no network for a parsed node (the replay of a recorded log): it is pushed like
   * any connection, through the push queue and the real SotW or delta handler, and every response goes to
   * `onResponse` instead of a gRPC call. `connectionId` defaults to a new one as for a network stream.
   */
  async openLocal(
    node: ProxyNode, protocol: 'sotw' | 'delta', onResponse: (r: LocalResponse) => void, connectionId?: string,
  ): Promise<LocalStream> {
    const proxy = await this.#opts.generator.initProxy(node);
    const conn = new Connection<P>(connectionId ?? `${node.id}-${++this.#connectionCounter}`, node, proxy, 'local', protocol);
    const serial = new Serial();
    const write = (c: Connection<P>, typeUrl: string, message: EncodedResponse, push: PushRequest): Promise<void> => {
      onResponse({ connectionId: c.id, typeUrl, message: message.toBuffer(), push });
      return Promise.resolve();
    };
    const log = protocol === 'sotw' ? this.#opts.loggers.ads : this.#opts.loggers.delta;
    let answerFrom: PushSnapshot | undefined;
    const host: StreamHost<P> = { ...this.#host, latestSnapshot: () => answerFrom ?? this.#host.latestSnapshot() };
    const handler = protocol === 'sotw' ? new SotwHandler<P>(host, write, log) : new DeltaHandler<P>(host, write, log);
    const push = (p: PushRequest): Promise<void> =>
      serial.run(() => {
        if (conn.closed) return undefined;
        this.#events.next({ kind: 'push', connectionId: conn.id, push: p });
        return handler.push(conn, p);
      });
    this.#connections.set(conn.id, conn);
    this.#pushers.set(conn, push);
    this.#metrics.connected(1);
    this.#events.next({ kind: 'connected', connectionId: conn.id, node, protocol });
    return {
      connectionId: conn.id,
      request: (r, snapshot) =>
        serial.run(async () => {
          if (conn.closed) return undefined;
          if (r.protocol !== protocol) throw new Error(`a ${r.protocol} request on a ${protocol} stream (${conn.id})`);
          answerFrom = snapshot;
          try {
            if (r.protocol === 'sotw') return await (handler as SotwHandler<P>).process(conn, r as DiscoveryRequest);
            return await (handler as DeltaHandler<P>).process(conn, r as DeltaDiscoveryRequest);
          } finally {
            answerFrom = undefined;
          }
        }),
      push,
      close: () => {
        conn.closed = true;
        this.#host.close(conn);
      },
    };
  }

  /** Ends a stream whose proxy has read nothing for the stall bound (PILOT_XDS_SEND_TIMEOUT unset). */
  #cutOffStalled(conn: Connection<P>, call: AdsCall): void {
    const ms = this.#limits.stallTimeoutMs;
    this.#metrics.writeTimeout();
    this.#opts.loggers.ads.warn({ connection: conn.id, node: conn.node.id, unflushed: conn.unflushed, stallMs: ms }, 'cutting off a proxy that reads nothing');
    closeCall(call, grpc.status.DEADLINE_EXCEEDED, new SendTimeoutError(ms, 'the proxy read nothing; PILOT_XDS_SEND_TIMEOUT is unset, so the stall bound applies').message, true);
    this.#host.close(conn);
  }

  #makeHost(): StreamHost<P> {
    const opts = this.#opts;
    const metrics = this.#metrics;
    return {
      generator: opts.generator,
      metrics,
      log: opts.loggers.ads,
      limits: this.#limits,
      deltaXds: opts.deltaXds,
      controlPlaneId: opts.controlPlaneId || undefined,
      sections: new ResourceSections(),
      admit: () => this.#limiter.wait(opts.admissionWaitMs ?? 1000),
      open: () => Promise.reject(new Error('not bound to a call')),
      close: (conn) => {
        if (!this.#connections.delete(conn.id)) return;
        conn.closed = true;
        this.#pushers.delete(conn);
        this.#calls.delete(conn);
        this.#queue.remove(conn);
        metrics.connected(-1);
        for (const w of conn.watched.values()) if (w.rejecting) metrics.rejecting(w.typeUrl, -1);
        try {
          opts.generator.closeProxy?.(conn.proxy);
        } catch (e) {
          opts.loggers.ads.error({ connection: conn.id, error: String(e) }, 'closeProxy failed');
        }
        if (!this.#closed) this.#events.next({ kind: 'disconnected', connectionId: conn.id, node: conn.node });
      },
      clock: this.#clock,
      nonce: (conn) => this.#nonces(conn.id, ++conn.responses),
      latestSnapshot: () => opts.latestSnapshot?.(),
      version: (push) =>
        snapshotVersion(push, () => {
          // NOTE: a push without any snapshot (a transport test, no model): one made-up version per push.
          let v = this.#versions.get(push);
          if (v === undefined) {
            v = `push-${++this.#versionCounter}`;
            this.#versions.set(push, v);
          }
          return v;
        }),
      send: async (conn, call, typeUrl, message, push) => {
        if (conn.closed) throw new SendError('connection closed');
        const start = performance.now();
        const flushed = conn.trackWrite();
        const traced = push ? this.#traces.wrote(push, message.length) : undefined;
        const onSettled = traced
          ? (): void => {
              flushed();
              traced();
            }
          : flushed;
        try {
          await writeWithTimeout(call, message, opts.sendTimeoutMs, () => metrics.sendError(typeUrl), { onSettled, close: conn });
        } catch (e) {
          if (e instanceof SendTimeoutError) {
            metrics.writeTimeout();
            opts.loggers.ads.info({ connection: conn.id, type: typeUrl, bytes: message.length, timeoutMs: opts.sendTimeoutMs }, 'timeout writing response');
          } else metrics.sendError(typeUrl);
          throw e;
        }
        metrics.sent(typeUrl, message.length, (performance.now() - start) / 1000);
      },
      emit: (event) => this.#events.next(event),
      observed: () => this.#events.observed,
    };
  }
}
