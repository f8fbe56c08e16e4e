/**
 * What the state-of-the-world and delta ADS protocols share: which types are wildcard by default, the
 * push order, which types a push carries, ACK/NACK bookkeeping, and the push a proxy's own request forces.
 */
import type { Logger } from 'pino';
import { proxyRequestPush, type Clock, type PushRequest, type PushSnapshot } from '../../core/index.js';
import { PUSH_ORDER, WILDCARD_TYPES, xdsType } from './xds-types.js';
import type { Connection, WatchState } from './connection.js';
import type { StreamHost } from './stream-host.js';
import { truncate } from './stream-limits.js';

export { WILDCARD_TYPES };

/** The watched types of a connection in push order: CDS, EDS, LDS, RDS, then the rest as first asked. */
export function typesInPushOrder(conn: Connection<unknown>): readonly string[] {
  // NOTE: asked on every push to every connection; a stream's watched types are only ever added to, so the order
  // is kept until their count changes.
  const known = pushOrders.get(conn);
  if (known?.size === conn.watched.size) return known.order;
  const order = PUSH_ORDER.filter((t) => conn.watched.has(t)) as string[];
  for (const t of conn.watched.keys()) if (!order.includes(t)) order.push(t);
  pushOrders.set(conn, { size: conn.watched.size, order });
  return order;
}

const pushOrders = new WeakMap<Connection<unknown>, { readonly size: number; readonly order: readonly string[] }>();

/** True when a push may carry this type: full pushes everything, endpoint-only pushes only EDS (see XDS_TYPES). */
export function pushCarries(push: PushRequest, typeUrl: string): boolean {
  return push.full || (xdsType(typeUrl)?.endpointPush ?? false);
}

/**
 * Pushes a connection's watched types in push order: each type the push carries, that the proxy watches and
 * that the generator says may have changed is answered by `respond` (true when it sent a response). When
 * anything was sent, the push's convergence is recorded. The one push loop of both protocols.
 */
export async function pushWatchedTypes<P>(
  host: StreamHost<P>, conn: Connection<P>, push: PushRequest, respond: (w: WatchState) => Promise<boolean>,
): Promise<void> {
  let pushed = false;
  for (const typeUrl of typesInPushOrder(conn)) {
    const w = conn.watched.get(typeUrl)!;
    if (!pushCarries(push, typeUrl)) continue;
    if (!w.wildcard && w.names.size === 0) continue;
    if (!host.generator.needsPush(conn.proxy, typeUrl, push)) continue;
    pushed = (await respond(w)) || pushed;
  }
  if (pushed) host.metrics.convergence((host.clock.now() - push.start) / 1000);
}

/**
 * Records a NACK: counts it, marks the type as rejecting, logs and emits it.
 *
 * NOTE: the error detail is the proxy's text (Envoy's can be long; a hostile one 4 MB): it is cut to
 * `limits.maxNackDetailChars` with a marker before it is kept (syncz's lastNack), emitted or logged. Per
 * connection the first NACK is logged at warn, then at most one per `limits.nackLogIntervalMs` carrying
 * how many were held back since (those go to debug); the counter pilot_total_xds_rejects counts them all.
 */
export function recordNack<P>(
  host: StreamHost<P>, conn: Connection<P>, w: WatchState, nonce: string, code: number, rawMessage: string, log: Logger, now = host.clock.now(),
): void {
  host.metrics.rejected(w.typeUrl);
  if (!w.rejecting) {
    w.rejecting = true;
    host.metrics.rejecting(w.typeUrl, 1);
  }
  const message = truncate(rawMessage, host.limits.maxNackDetailChars);
  w.lastNack = { nonce, code, message, at: host.clock.date() };
  const fields = { connection: conn.id, node: conn.node.id, type: w.typeUrl, nonce, error: message };
  const state = conn.nackLog;
  if (now - state.lastAt >= host.limits.nackLogIntervalMs) {
    log.warn(state.suppressed > 0 ? { ...fields, suppressedNacks: state.suppressed } : fields, 'proxy rejected config (NACK)');
    state.lastAt = now;
    state.suppressed = 0;
  } else {
    state.suppressed++;
    log.debug(fields, 'proxy rejected config (NACK); warning rate-limited');
  }
  host.emit({ kind: 'nack', connectionId: conn.id, nodeId: conn.node.id, typeUrl: w.typeUrl, nonce, message });
}

/** Records an ACK: the acked nonce and version; the type is no longer rejecting. */
export function recordAck<P>(host: StreamHost<P>, conn: Connection<P>, w: WatchState, nonce: string, version: string): void {
  w.nonceAcked = nonce;
  w.versionAcked = version;
  if (w.rejecting) {
    w.rejecting = false;
    host.metrics.rejecting(w.typeUrl, -1);
  }
  host.emit({ kind: 'ack', connectionId: conn.id, nodeId: conn.node.id, typeUrl: w.typeUrl, version, nonce });
}

/**
 * The push a proxy's own request calls for: full, forced (sent even when nothing changed), reading the
 * newest published snapshot.
 */
export function forcedPush(snapshot: PushSnapshot | undefined, clock: Clock): PushRequest {
  return proxyRequestPush(snapshot, clock);
}
