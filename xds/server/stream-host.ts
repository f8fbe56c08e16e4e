/**
 * What the SotW and delta stream handlers get from the server that joins them: the generator, metrics,
 * options, and connection bookkeeping. Internal to xds/server.
 */
import type { Logger } from 'pino';
import type { Clock, PushRequest, PushSnapshot } from '../../core/index.js';
import type { ProxyNode, ResourceGenerator } from './contracts.js';
import type { Connection } from './connection.js';
import type { AdsMetrics } from './metrics.js';
import type { AdsCall } from './send.js';
import type { EncodedResponse } from './wire.js';
import type { ResourceSections } from './resource-sections.js';
import type { StreamLimits } from './stream-limits.js';

/** What happened on a stream, for subscribers of `AdsServer.events`. */
export type AdsEvent =
  | { readonly kind: 'connected'; readonly connectionId: string; readonly node: ProxyNode; readonly protocol: 'sotw' | 'delta' }
  | { readonly kind: 'disconnected'; readonly connectionId: string; readonly node: ProxyNode }
  | { readonly kind: 'ack'; readonly connectionId: string; readonly nodeId: string; readonly typeUrl: string; readonly version: string; readonly nonce: string }
  | { readonly kind: 'nack'; readonly connectionId: string; readonly nodeId: string; readonly typeUrl: string; readonly nonce: string; readonly message: string }
  /**
   * A request that may change what the stream is sent (a first request, a change of subscriptions, a
   * NACK; not a plain ACK or an expired nonce), emitted before it is acted on, with the token of the
   * newest snapshot its answer reads. The record of an event log.
   */
  | { readonly kind: 'request'; readonly connectionId: string; readonly request: RecordedRequest; readonly token: number | undefined }
  /**
   * A connection starts handling a push, after the push queue's merges, in its turn among the stream's
   * requests: the record of an event log (what the queue's timing decided).
   */
  | { readonly kind: 'push'; readonly connectionId: string; readonly push: PushRequest };

/** A request as an event log records it (plain JSON; the node is in the connect record). */
export type RecordedRequest =
  | {
      readonly protocol: 'sotw';
      readonly typeUrl: string;
      readonly versionInfo: string;
      readonly resourceNames: readonly string[];
      readonly responseNonce: string;
      readonly errorDetail?: { readonly code: number; readonly message: string };
    }
  | {
      readonly protocol: 'delta';
      readonly typeUrl: string;
      readonly resourceNamesSubscribe: readonly string[];
      readonly resourceNamesUnsubscribe: readonly string[];
      readonly initialResourceVersions: Readonly<Record<string, string>>;
      readonly responseNonce: string;
      readonly errorDetail?: { readonly code: number; readonly message: string };
    };

/** Writes one encoded response of `push` to a connection (the gRPC call, or a local stream's sink). */
export type ResponseWriter<P> = (conn: Connection<P>, typeUrl: string, message: EncodedResponse, push: PushRequest) => Promise<void>;

/** Pushes one PushRequest to one connection (protocol specific). */
export type ConnectionPusher = (request: PushRequest) => Promise<void>;

/** Services the stream handlers use. */
export interface StreamHost<P> {
  readonly generator: ResourceGenerator<P>;
  readonly metrics: AdsMetrics;
  readonly log: Logger;
  readonly limits: StreamLimits;
  readonly deltaXds: boolean;
  readonly controlPlaneId: string | undefined;
  /** Laid-out resources shared by the responses that send the same ones (one per server). */
  readonly sections: ResourceSections;
  /** Waits for admission (PILOT_MAX_REQUESTS_PER_SECOND); false = refuse the stream. */
  admit(): Promise<boolean>;
  /** Makes a connection for a parsed node: runs `initProxy`, registers it for pushes, counts it. */
  open(node: ProxyNode, peer: string, protocol: 'sotw' | 'delta', pusher: ConnectionPusher): Promise<Connection<P>>;
  /** Unregisters a connection (idempotent). */
  close(conn: Connection<P>): void;
  /** The clock of the stream's timestamps and of the `start` of a proxy's own requests. */
  readonly clock: Clock;
  /** The nonce of the next response on `conn` (counts it in `conn.responses`). */
  nonce(conn: Connection<P>): string;
  /** The newest published snapshot, read by the answer to a proxy's own request (undefined without a model). */
  latestSnapshot(): PushSnapshot | undefined;
  /** The version string of a push (stable for one PushRequest object). */
  version(push: PushRequest): string;
  /** Writes one response of `push` (for the push's trace), counting it; throws SendTimeoutError / SendError. */
  send(conn: Connection<P>, call: AdsCall, typeUrl: string, message: EncodedResponse, push?: PushRequest): Promise<void>;
  emit(event: AdsEvent): void;
  /** Whether anything listens to `emit` now (absent: assume so); a costly event is not built otherwise. */
  observed?(): boolean;
}
