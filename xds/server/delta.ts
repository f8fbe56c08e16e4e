/**
 * Incremental ADS (DeltaAggregatedResources): subscriptions change by name, responses carry changed
 * resources with versions, and `removed_resources` names what the proxy must drop. What a push carries
 * depends on MESH_DELTA_XDS (see `TransportOptions.deltaXds`).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { PushRequest } from '../../core/index.js';
import type { GeneratedResource } from './contracts.js';
import type { Connection, WatchState } from './connection.js';
import type { AdsCall } from './send.js';
import { forcedPush, pushWatchedTypes, recordAck, recordNack, WILDCARD_TYPES } from './protocol-common.js';
import type { ResponseWriter, StreamHost } from './stream-host.js';
import { GenerateError, serveStream, type ProtocolHandler } from './stream-session.js';
import { decodeDeltaDiscoveryRequest, encodeDeltaDiscoveryResponse, type DeltaDiscoveryRequest, type DeltaResourceFields } from './wire.js';

const hashes = new WeakMap<Uint8Array, string>();

/** A resource's version: the generator's, else a hash of its bytes (computed once per Uint8Array). */
export function resourceVersion(r: GeneratedResource): string {
  if (r.version !== undefined) return r.version;
  let v = hashes.get(r.body);
  if (v === undefined) {
    v = createHash('sha256').update(r.body).digest('base64url').slice(0, 22);
    hashes.set(r.body, v);
  }
  return v;
}

/** The delta half of a stream: answers requests and pushes; `write` takes the encoded responses. */
export class DeltaHandler<P> implements ProtocolHandler<P, DeltaDiscoveryRequest> {
  readonly protocol = 'delta' as const;
  constructor(
    private readonly host: StreamHost<P>,
    private readonly write: ResponseWriter<P>,
    private readonly log: Logger,
  ) {}

  decode(bytes: Uint8Array): DeltaDiscoveryRequest {
    return decodeDeltaDiscoveryRequest(bytes);
  }

  async process(conn: Connection<P>, req: DeltaDiscoveryRequest): Promise<void> {
    const typeUrl = req.typeUrl;
    const first = !conn.watched.has(typeUrl);
    // NOTE: a plain ACK (no subscription change, no error) changes nothing that is sent; it is not recorded.
    if (first || req.errorDetail || req.resourceNamesSubscribe.length > 0 || req.resourceNamesUnsubscribe.length > 0) this.#emitRequest(conn, req);
    const w = conn.watch(typeUrl);
    w.delta = this.host.deltaXds;
    if (req.errorDetail) {
      recordNack(this.host, conn, w, req.responseNonce, req.errorDetail.code, req.errorDetail.message, this.log);
      return;
    }
    if (first) {
      w.sent = w.sent.with(Object.entries(req.initialResourceVersions ?? {}), []);
      if (req.resourceNamesSubscribe.length === 0 && WILDCARD_TYPES.has(typeUrl)) w.wildcard = true;
    } else if (req.responseNonce !== '') {
      if (req.responseNonce === w.nonceSent) recordAck(this.host, conn, w, req.responseNonce, w.versionSent);
      else {
        this.host.metrics.expiredNonce(typeUrl);
        this.log.debug({ connection: conn.id, type: typeUrl, nonce: req.responseNonce, nonceSent: w.nonceSent }, 'expired nonce');
      }
    }
    // NOTE: the usual request after the first is a plain ACK (2,000 of them follow a push to 2,000 proxies): nothing more to do.
    if (!first && req.resourceNamesSubscribe.length === 0 && req.resourceNamesUnsubscribe.length === 0) return;
    const added = new Set<string>();
    let wildcardAdded = false;
    for (const n of req.resourceNamesSubscribe) {
      if (n === '*') {
        wildcardAdded = !w.wildcard;
        w.wildcard = true;
      } else if (!w.names.has(n)) added.add(n);
    }
    const dropped: string[] = [];
    for (const n of req.resourceNamesUnsubscribe) {
      if (n === '*') w.wildcard = false;
      else dropped.push(n);
    }
    if (added.size > 0 || dropped.length > 0) w.names = w.names.with([...added].map((n) => [n, ''] as const), dropped);
    if (dropped.length > 0 && !w.wildcard) w.sent = w.sent.with([], dropped);
    // NOTE: a first request always gets an answer (even empty) so that the proxy can finish warming.
    if (w.wildcard && (first || wildcardAdded)) await this.#respond(conn, w, forcedPush(this.host.latestSnapshot(), this.host.clock), { kind: 'request' });
    else if (first || added.size > 0) await this.#respond(conn, w, forcedPush(this.host.latestSnapshot(), this.host.clock), { kind: 'request', only: added });
  }

  push(conn: Connection<P>, push: PushRequest): Promise<void> {
    return pushWatchedTypes(this.host, conn, push, (w) => this.#respond(conn, w, push, { kind: 'push' }));
  }

  /** Emits a request that may change what is sent (see AdsEvent `request`), for an event log. */
  #emitRequest(conn: Connection<P>, req: DeltaDiscoveryRequest): void {
    if (this.host.observed?.() === false) return;
    const e = req.errorDetail;
    this.host.emit({
      kind: 'request',
      connectionId: conn.id,
      token: this.host.latestSnapshot()?.token,
      request: {
        protocol: 'delta',
        typeUrl: req.typeUrl,
        resourceNamesSubscribe: [...req.resourceNamesSubscribe],
        resourceNamesUnsubscribe: [...req.resourceNamesUnsubscribe],
        initialResourceVersions: { ...(req.initialResourceVersions ?? {}) },
        responseNonce: req.responseNonce,
        ...(e ? { errorDetail: { code: e.code, message: e.message } } : {}),
      },
    });
  }

  /**
   * Generates one type and sends what changed. `only` limits a request's answer to newly subscribed
   * names. Returns whether anything was sent.
   */
  async #respond(conn: Connection<P>, w: WatchState, push: PushRequest, mode: { kind: 'request' | 'push'; only?: ReadonlySet<string> }): Promise<boolean> {
    const start = performance.now();
    let result;
    try {
      // NOTE: an answer to new subscriptions generates those names only (as SotW does), not every watched one again.
      result = await this.host.generator.generate(conn.proxy, mode.only ? { typeUrl: w.typeUrl, names: mode.only, wildcard: false } : w, push);
    } catch (e) {
      throw new GenerateError(w.typeUrl, e);
    }
    if (!result && mode.kind === 'push') return false;
    const generated = new Map<string, GeneratedResource>();
    const resources: DeltaResourceFields[] = [];
    const removed = new Set<string>();
    // NOTE: without MESH_DELTA_XDS every candidate is (re)sent; with it only versions the client lacks.
    const skipUnchanged = this.host.deltaXds;
    const offer = (r: GeneratedResource, had: string | undefined): void => {
      const version = resourceVersion(r);
      if (!skipUnchanged || had !== version) resources.push({ name: r.name, version, body: r.body });
    };
    // NOTE: one pass; `held` counts the generated names the client holds: when that is all it holds,
    // nothing was removed and the names it holds need no walk.
    let held = 0;
    for (const r of result?.resources ?? []) {
      if ((!w.wildcard && !w.names.has(r.name)) || generated.has(r.name)) continue;
      generated.set(r.name, r);
      if (mode.only) continue;
      const had = w.sent.get(r.name);
      if (had !== undefined) held++;
      offer(r, had);
    }
    if (mode.only) {
      for (const n of mode.only) {
        const r = generated.get(n);
        if (r) offer(r, w.sent.get(n));
        else removed.add(n); // asked for, does not exist
      }
    } else if (result?.incremental === true && mode.kind === 'push') {
      // NOTE: an incremental result holds only what changed: what it leaves out stays as the client holds it.
    } else if (held < w.sent.size) {
      for (const n of w.sent.keys()) if (!generated.has(n)) removed.add(n);
    }
    for (const n of result?.removed ?? []) if (w.sent.has(n) && !generated.has(n)) removed.add(n);
    if (mode.kind === 'push' && resources.length === 0 && removed.size === 0) return false;

    w.sent = w.sent.with(resources.map((r) => [r.name, r.version] as const), removed);
    const version = this.host.version(push);
    const nonce = this.host.nonce(conn);
    const msg = encodeDeltaDiscoveryResponse({
      systemVersionInfo: version,
      typeUrl: w.typeUrl,
      nonce,
      // NOTE: the proxies of a scope are sent the same resources: laid out once, the section goes to each as it is.
      resources: this.host.sections.deltaSection(w.typeUrl, resources) ?? resources,
      // NOTE: sorted: the order the held names iterate in depends on which stream built the shared table.
      removedResources: [...removed].sort(),
      controlPlane: this.host.controlPlaneId,
    });
    w.nonceSent = nonce;
    w.versionSent = version;
    w.sentAt = this.host.clock.date();
    await this.write(conn, w.typeUrl, msg, push);
    this.host.metrics.pushTime(w.typeUrl, (performance.now() - start) / 1000);
    this.log.debug({ connection: conn.id, type: w.typeUrl, resources: resources.length, removed: removed.size, bytes: msg.length, nonce }, 'sent delta response');
    return true;
  }
}

/** Serves one DeltaAggregatedResources call. */
export function serveDelta<P>(host: StreamHost<P>, call: AdsCall, log: Logger): void {
  serveStream(host, call, new DeltaHandler(host, (conn, typeUrl, msg, push) => host.send(conn, call, typeUrl, msg, push), log), log);
}
