/**
 * State-of-the-world ADS (StreamAggregatedResources): every response of a type carries all resources of
 * that type the proxy watches; a resource left out of a wildcard (LDS/CDS) response is removed.
 */
import type { Logger } from 'pino';
import type { PushRequest } from '../../core/index.js';
import type { Connection, WatchState } from './connection.js';
import { forcedPush, pushWatchedTypes, recordAck, recordNack, WILDCARD_TYPES } from './protocol-common.js';
import type { AdsCall } from './send.js';
import type { ResponseWriter, StreamHost } from './stream-host.js';
import { GenerateError, serveStream, type ProtocolHandler } from './stream-session.js';
import { decodeDiscoveryRequestLazily } from './request-wire.js';
import { knownRuns, namesStep, sentWithin, type NamesStep } from './sotw-names.js';
import { encodeDiscoveryResponse, type DiscoveryRequest } from './wire.js';

/** The SotW half of a stream: answers requests and pushes; `write` takes the encoded responses. */
export class SotwHandler<P> implements ProtocolHandler<P, DiscoveryRequest> {
  readonly protocol = 'sotw' as const;
  constructor(
    private readonly host: StreamHost<P>,
    private readonly write: ResponseWriter<P>,
    private readonly log: Logger,
  ) {}

  decode(bytes: Uint8Array, conn: Connection<P> | undefined): DiscoveryRequest {
    // NOTE: most requests repeat the names a watch was set by (ACKs), or names other streams in the same state sent
    // (after a push, each sidecar of a scope asks for the same new ones): given those runs, the decoder finds them whole.
    const runs: Uint8Array[] = [];
    for (const w of conn?.watched.values() ?? []) {
      if (w.namesKey) runs.push(w.namesKey);
      runs.push(...knownRuns(w));
    }
    return decodeDiscoveryRequestLazily(bytes, runs);
  }

  async process(conn: Connection<P>, req: DiscoveryRequest): Promise<void> {
    const typeUrl = req.typeUrl;
    const prev = conn.watched.get(typeUrl);
    if (req.errorDetail) {
      this.#emitRequest(conn, req);
      recordNack(this.host, conn, conn.watch(typeUrl), req.responseNonce, req.errorDetail.code, req.errorDetail.message, this.log);
      return;
    }
    if (req.responseNonce === '' || !prev) {
      // A first request for this type (or a reconnect that carries a nonce of another meshd).
      this.#emitRequest(conn, req);
      const w = conn.watch(typeUrl);
      this.#setNames(w, namesStep(w, req));
      await this.#respond(conn, w, forcedPush(this.host.latestSnapshot(), this.host.clock), true);
      return;
    }
    if (req.responseNonce !== prev.nonceSent) {
      this.host.metrics.expiredNonce(typeUrl);
      this.log.debug({ connection: conn.id, type: typeUrl, nonce: req.responseNonce, nonceSent: prev.nonceSent }, 'expired nonce');
      return;
    }
    recordAck(this.host, conn, prev, req.responseNonce, req.versionInfo);
    // NOTE: most requests are plain ACKs naming what is already watched; skip rebuilding the sets then,
    // and skip even reading the names when their bytes repeat the request that set them.
    if (req.resourceNamesKey && prev.namesKey && Buffer.compare(req.resourceNamesKey, prev.namesKey) === 0) return;
    const step = namesStep(prev, req);
    if (step.same) {
      prev.namesKey = step.key;
      return;
    }
    this.#emitRequest(conn, req);
    const wasWildcard = prev.wildcard;
    const added = step.added;
    this.#setNames(prev, step);
    const push = forcedPush(this.host.latestSnapshot(), this.host.clock);
    // NOTE: a type that is not full-state (EDS, RDS) keeps what the proxy holds of the other names, so a
    // new subscription is answered with the new names only (as delta does), not everything again.
    if (prev.wildcard && !wasWildcard) await this.#respond(conn, prev, push, true);
    else if (added.length > 0) await this.#respond(conn, prev, push, true, WILDCARD_TYPES.has(typeUrl) || prev.wildcard ? undefined : new Set(added));
  }

  push(conn: Connection<P>, push: PushRequest): Promise<void> {
    return pushWatchedTypes(this.host, conn, push, (w) => this.#respond(conn, w, push, false));
  }

  /** Emits a request that may change what is sent (see AdsEvent `request`), for an event log. */
  #emitRequest(conn: Connection<P>, req: DiscoveryRequest): void {
    // NOTE: the event copies every name (decoding them from the request's bytes), which nothing else may need.
    if (this.host.observed?.() === false) return;
    const e = req.errorDetail;
    this.host.emit({
      kind: 'request',
      connectionId: conn.id,
      token: this.host.latestSnapshot()?.token,
      request: {
        protocol: 'sotw',
        typeUrl: req.typeUrl,
        versionInfo: req.versionInfo,
        resourceNames: [...req.resourceNames],
        responseNonce: req.responseNonce,
        ...(e ? { errorDetail: { code: e.code, message: e.message } } : {}),
      },
    });
  }

  #setNames(w: WatchState, step: NamesStep): void {
    w.namesKey = step.key;
    w.names = step.names;
    w.wildcard = step.wildcard;
    if (!w.wildcard) w.sent = sentWithin(w.sent, w.names);
  }

  /**
   * Generates and sends one type. Returns false when the generator does not serve it on a push. `only`
   * (a request newly subscribing names of a type that is not full-state) generates and sends those names alone.
   */
  async #respond(conn: Connection<P>, w: WatchState, push: PushRequest, isRequest: boolean, only?: ReadonlySet<string>): Promise<boolean> {
    const start = performance.now();
    let result;
    try {
      result = await this.host.generator.generate(conn.proxy, only ? { typeUrl: w.typeUrl, names: only, wildcard: false } : w, push);
    } catch (e) {
      throw new GenerateError(w.typeUrl, e);
    }
    if (!result && !isRequest) return false;
    // NOTE: a partial response leaves the proxy's other resources of the type in place; only types that
    // are not full-state allow it (a wildcard LDS/CDS response removes what it leaves out).
    const partial = !WILDCARD_TYPES.has(w.typeUrl) && (only !== undefined || (result?.incremental === true && !isRequest));
    const bodies: Uint8Array[] = [];
    // NOTE: a full response replaces `sent`; a partial one adds to it. Names the proxy stopped watching leave
    // `sent` when its subscription changes (#setNames). A name the generator gave twice is sent once.
    const names = new Set<string>();
    for (const r of result?.resources ?? []) {
      if (!w.wildcard && !w.names.has(r.name)) continue;
      if (names.has(r.name)) continue;
      bodies.push(r.body);
      names.add(r.name);
    }
    if (partial && bodies.length === 0 && !isRequest) return false;
    w.sent = partial ? w.sent.with([...names].map((n) => [n, ''] as const), []) : w.sent.withNames(names);
    const version = this.host.version(push);
    const nonce = this.host.nonce(conn);
    // NOTE: the proxies of a scope are sent the same bodies: laid out once, the section goes to each as it is.
    const resources = this.host.sections.section(w.typeUrl, bodies) ?? bodies;
    const msg = encodeDiscoveryResponse({ versionInfo: version, typeUrl: w.typeUrl, nonce, resources, controlPlane: this.host.controlPlaneId });
    w.nonceSent = nonce;
    w.versionSent = version;
    w.sentAt = this.host.clock.date();
    await this.write(conn, w.typeUrl, msg, push);
    this.host.metrics.pushTime(w.typeUrl, (performance.now() - start) / 1000);
    this.log.debug({ connection: conn.id, type: w.typeUrl, resources: bodies.length, bytes: msg.length, version, nonce }, 'sent response');
    return true;
  }
}

/** Serves one StreamAggregatedResources call. */
export function serveSotw<P>(host: StreamHost<P>, call: AdsCall, log: Logger): void {
  serveStream(host, call, new SotwHandler(host, (conn, typeUrl, msg, push) => host.send(conn, call, typeUrl, msg, push), log), log);
}
