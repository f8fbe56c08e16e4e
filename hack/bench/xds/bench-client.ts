/**
 * A lean ADS client for the benchmark (state of the world or incremental, see subscriptions.ts): one
 * HTTP/2 connection per client, subscriptions in the order a real data plane asks (Envoy: CDS, EDS, LDS,
 * RDS; proxyless gRPC: named LDS, then RDS, CDS, EDS by following references), every response ACKed at
 * once, and no response history kept (only what the variant must hold, byte counts and the arrival time
 * of the current marker).
 *
 * A response's arrival time is taken when grpc-js hands its bytes over, before any client of the thread
 * works on it (see {@link Inbox}): one thread holds hundreds of clients, and a real proxy has its own.
 */
import * as grpc from '@grpc/grpc-js';
import { decodeMessage } from '../../../xds/index.js';
import type { TestNode } from '../../../xds/testing/index.js';
import { findMarkerIn } from './markers.js';
import { releaseMessage } from './pooled-decoder.js';
import { edsNamesOfCluster } from './response-wire.js';
import { subscriptionsFor, type NamedBody, type Received, type Subscriptions, type XdsProtocol } from './subscriptions.js';

const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** Full type URLs the clients use. */
export const TYPES = {
  cds: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  eds: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  lds: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  rds: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
} as const;

/** Short names of the type URLs, for tables. */
export const TYPE_SHORT: Readonly<Record<string, string>> = { [TYPES.cds]: 'CDS', [TYPES.eds]: 'EDS', [TYPES.lds]: 'LDS', [TYPES.rds]: 'RDS' };

/** The kind of data plane a client imitates. */
export type ProxyType = 'sidecar' | 'grpc';

/**
 * The responses a thread's clients received and have not worked on yet, in arrival order. A response is
 * stamped when it arrives and worked on (decoded, ACKed, followed) after every response that arrived in the
 * same turn of the event loop has been stamped: otherwise the last of 200 clients that get a response in
 * one turn would be stamped after the other 199 were decoded and ACKed, a queue no real proxy waits in.
 */
class Inbox {
  readonly #queue: (() => void)[] = [];
  #scheduled = false;

  add(work: () => void): void {
    this.#queue.push(work);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#drain());
  }

  #drain(): void {
    this.#scheduled = false;
    // NOTE: only what is queued now; responses that arrive meanwhile are stamped in the next poll phase first.
    const batch = this.#queue.splice(0);
    for (const work of batch) work();
  }
}

/** One per thread: every client of a worker shares it. */
const inbox = new Inbox();

/** One client to open. */
export interface ClientSpec {
  readonly id: number;
  readonly node: TestNode;
  readonly proxyType: ProxyType;
  /** The ADS variant the client speaks. */
  readonly protocol: XdsProtocol;
  /** Proxyless only: listener names (`<host>:<port>`) to ask for. */
  readonly listeners: readonly string[];
}

/** A time on the shared wall clock with sub-millisecond resolution (comparable across threads and processes). */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

interface AnyMsg {
  type_url: string;
  value: Uint8Array;
}

/** Names a resource refers to (Listener -> route configs, RouteConfiguration -> clusters). */
function references(typeUrl: string, body: Uint8Array): string[] {
  const rdsOf = (a: AnyMsg | null | undefined): string | undefined => {
    if (!a?.type_url.endsWith(HCM)) return undefined;
    const h = decodeMessage(HCM, a.value) as unknown as { rds?: { routeConfigName?: string } };
    return h.rds?.routeConfigName || undefined;
  };
  switch (typeUrl) {
    case TYPES.lds: {
      const l = decodeMessage(TYPES.lds, body) as unknown as {
        apiListener?: { apiListener?: AnyMsg };
        filterChains?: { filters?: { typedConfig?: AnyMsg }[] }[];
        defaultFilterChain?: { filters?: { typedConfig?: AnyMsg }[] };
      };
      const out = new Set<string>();
      const api = rdsOf(l.apiListener?.apiListener);
      if (api) out.add(api);
      for (const fc of [...(l.filterChains ?? []), ...(l.defaultFilterChain ? [l.defaultFilterChain] : [])]) {
        for (const f of fc.filters ?? []) {
          const r = rdsOf(f.typedConfig);
          if (r) out.add(r);
        }
      }
      return [...out];
    }
    case TYPES.rds: {
      const rc = decodeMessage(TYPES.rds, body) as unknown as {
        virtualHosts?: { routes?: { route?: { cluster?: string; weightedClusters?: { clusters?: { name?: string }[] } } }[] }[];
      };
      const out = new Set<string>();
      for (const vh of rc.virtualHosts ?? []) {
        for (const r of vh.routes ?? []) {
          if (r.route?.cluster) out.add(r.route.cluster);
          for (const c of r.route?.weightedClusters?.clusters ?? []) if (c.name) out.add(c.name);
        }
      }
      return [...out];
    }
    default:
      return [];
  }
}

/**
 * References of resources already seen, by type and name and then by bytes: the clients of one worker
 * share it, so a resource many clients get with the same bytes (a namespace's route configuration) is
 * decoded once, not once per client. A few variants are kept per name (route configuration `8080`
 * differs per namespace); the oldest goes first.
 */
export class ReferenceCache {
  static readonly VARIANTS = 16;
  readonly #m = new Map<string, { body: Buffer; refs: readonly string[] }[]>();

  /** The names a listener or route configuration refers to. */
  refs(typeUrl: string, name: string, body: Buffer): readonly string[] {
    return this.memo(`${typeUrl}|${name}`, body, () => references(typeUrl, body));
  }

  /**
   * The references `compute` finds in `bytes`, computed once per distinct bytes under `key` (a copy of them is kept):
   * e.g. the references of a whole SotW response's resources, which every sidecar of a namespace gets alike.
   */
  memo(key: string, bytes: Buffer, compute: () => readonly string[]): readonly string[] {
    let seen = this.#m.get(key);
    if (!seen) this.#m.set(key, (seen = []));
    for (const v of seen) if (v.body.length === bytes.length && v.body.equals(bytes)) return v.refs;
    const refs = compute();
    seen.push({ body: Buffer.from(bytes), refs });
    if (seen.length > ReferenceCache.VARIANTS) seen.shift();
    return refs;
  }
}

/** Per-type traffic counters of one client. */
export interface TypeCounters {
  bytes: number;
  responses: number;
  resources: number;
}

/** Callbacks of a client (all on the worker's thread). */
export interface ClientHooks {
  /** The first response arrived (the connection is up). */
  connected(c: BenchClient): void;
  /** Every subscribed type has been answered and ACKed. */
  complete(c: BenchClient): void;
  /** The current marker was found in a response. */
  arrived(c: BenchClient): void;
  /** The stream ended before `close` (the client opens a new one after a backoff). */
  ended(c: BenchClient, status: grpc.StatusObject): void;
  /** The server refused the client for good (it stopped reconnecting). */
  refused(c: BenchClient): void;
  /** Any response arrived. */
  response(c: BenchClient, typeUrl: string, bytes: number): void;
  /** After {@link BenchClient.rearm}: a stream opened since then has every subscribed type answered and ACKed. */
  recomplete?(c: BenchClient): void;
}

const identity = (b: Buffer): Buffer => b;

/** Status codes after which a client stops reconnecting: the server will not serve it. */
const REFUSALS: ReadonlySet<number> = new Set([
  grpc.status.INVALID_ARGUMENT, grpc.status.FAILED_PRECONDITION, grpc.status.PERMISSION_DENIED, grpc.status.UNIMPLEMENTED, grpc.status.UNAUTHENTICATED,
]);

const NO_REFERENCES: readonly string[] = Object.freeze([]);

/** One ADS client. */
export class BenchClient {
  readonly spec: ClientSpec;
  readonly counters = new Map<string, TypeCounters>();
  completeAt: number | undefined;
  connectedAt: number | undefined;
  startedAt = 0;
  /** The marker being watched and when it arrived. */
  marker: Buffer | undefined;
  markerTypes: ReadonlySet<string> = new Set();
  arrivedAt: number | undefined;
  arrivedType: string | undefined;
  closed = false;
  /** Why the server refused this client, when it did. */
  refused: string | undefined;
  readonly #hooks: ClientHooks;
  readonly #refs: ReferenceCache;
  #client: grpc.Client | undefined;
  #call: grpc.ClientDuplexStream<Buffer, Buffer> | undefined;
  #subs: Subscriptions | undefined;
  #retries = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Streams that ended with an error (each one reopened). */
  reconnects = 0;
  /** Streams opened so far, and how many had been opened at the last {@link rearm} (undefined: never rearmed). */
  #streams = 0;
  #rearmedAt: number | undefined;
  /** After {@link rearm}: streams opened since, the first response on one of them, and when one was complete. */
  attemptsSinceRearm = 0;
  reconnectedAt: number | undefined;
  recompleteAt: number | undefined;
  readonly #expected = new Set<string>();
  readonly #answered = new Set<string>();

  constructor(spec: ClientSpec, hooks: ClientHooks, refs: ReferenceCache) {
    this.spec = spec;
    this.#hooks = hooks;
    this.#refs = refs;
  }

  /** Opens the connection and sends the first subscription; a failed stream is opened again with backoff, as a proxy does. */
  start(address: string): void {
    this.startedAt = now();
    this.#client = new grpc.Client(address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
      'grpc.max_receive_message_length': -1,
      'grpc.enable_channelz': 0,
      // NOTE: a large receive window, as a proxy's: Envoy opens 256 MiB per stream, pilot-agent's gRPC-go grows
      // its window with the bandwidth-delay product. grpc-js's 64 KiB default made each server wait for this
      // client's window updates (a client thread turn each) several times per route configuration.
      'grpc-node.flow_control_window': 64 * 1024 * 1024,
    });
    this.#openStream();
  }

  #openStream(): void {
    const subs = subscriptionsFor(this.spec.protocol, this.spec.node, (type, resource) => this.#referencesOf(type, resource));
    const call = this.#client!.makeBidiStreamRequest(subs.method, identity, identity);
    this.#call = call;
    this.#subs = subs;
    this.#streams++;
    if (this.#rearmedAt !== undefined) this.attemptsSinceRearm++;
    this.#expected.clear();
    this.#answered.clear();
    call.on('data', (b: Buffer) => {
      const t = now();
      inbox.add(() => {
        try {
          if (call === this.#call && !this.closed) this.#onData(b, t);
        } finally {
          // NOTE: nothing keeps the message's bytes past #onData (a kept body is copied: ReferenceCache).
          releaseMessage(b);
        }
      });
    });
    call.on('error', () => {
      // NOTE: 'status' carries the details; 'error' needs a listener.
    });
    call.on('status', (s: grpc.StatusObject) => {
      if (this.closed || call !== this.#call) return;
      this.#hooks.ended(this, s);
      if (REFUSALS.has(s.code)) {
        // NOTE: the server refuses this client for good (e.g. an unsupported proxy type): stop, unlike a proxy.
        this.refused = `${grpc.status[s.code]}: ${s.details}`;
        this.#hooks.refused(this);
        return;
      }
      // NOTE: jittered exponential backoff from 200 ms up to 5 s, like a data plane reconnecting.
      const delay = Math.min(5000, 200 * 2 ** this.#retries++) * (0.5 + Math.random());
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        if (!this.closed) this.#openStream();
      }, delay);
    });
    if (this.spec.proxyType === 'sidecar') {
      this.#expected.add(TYPES.cds).add(TYPES.lds);
      this.#subscribe(TYPES.cds, []);
    } else {
      this.#expected.add(TYPES.lds);
      this.#subscribe(TYPES.lds, this.spec.listeners);
    }
  }

  /** Starts watching for a marker in responses of the given types (clears the previous arrival). */
  watch(marker: Buffer | undefined, typeUrls: ReadonlySet<string>): void {
    this.marker = marker;
    this.markerTypes = typeUrls;
    this.arrivedAt = undefined;
    this.arrivedType = undefined;
  }

  /**
   * Starts tracking a reconnection (the server is about to restart): from now on, the first response on a newer
   * stream sets `reconnectedAt`, and that stream becoming complete sets `recompleteAt` and calls `recomplete`.
   */
  rearm(): void {
    this.#rearmedAt = this.#streams;
    this.attemptsSinceRearm = 0;
    this.reconnectedAt = undefined;
    this.recompleteAt = undefined;
  }

  close(): void {
    this.closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    try {
      this.#call?.end();
      this.#call?.cancel();
    } catch {
      // already ended
    }
    this.#client?.close();
  }

  #subscribe(typeUrl: string, names: readonly string[]): void {
    this.#expected.add(typeUrl);
    this.#call!.write(this.#subs!.subscribe(typeUrl, names));
  }

  /** Subscribes to `names` of a type when they differ from what was asked (an empty list is never sent: it would mean wildcard). */
  #follow(typeUrl: string, names: readonly string[]): void {
    if (names.length === 0) return;
    const req = this.#subs!.follow(typeUrl, names);
    if (!req) return;
    this.#expected.add(typeUrl);
    this.#call!.write(req);
  }

  /** Works on one response that arrived at `t` (on this client's current stream). */
  #onData(b: Buffer, t: number): void {
    this.#retries = 0;
    const subs = this.#subs!;
    const r = subs.receive(b);
    const type = r.typeUrl;
    const c = this.counters.get(type) ?? { bytes: 0, responses: 0, resources: 0 };
    c.bytes += b.length;
    c.responses++;
    c.resources += r.count;
    this.counters.set(type, c);
    if (this.connectedAt === undefined) {
      this.connectedAt = t;
      this.#hooks.connected(this);
    }
    // ACK first, like a healthy proxy, then follow references to the next type.
    this.#call!.write(subs.ack(type));
    this.#answered.add(type);
    if (this.marker && this.arrivedAt === undefined && this.markerTypes.has(type) && findMarkerIn(b, () => r.changed, this.marker) !== undefined) {
      this.arrivedAt = t;
      this.arrivedType = type;
      this.#hooks.arrived(this);
    }
    this.#followReferences(type, r);
    this.#hooks.response(this, type, b.length);
    const allAnswered = [...this.#expected].every((x) => this.#answered.has(x));
    if (this.completeAt === undefined && allAnswered) {
      this.completeAt = now();
      this.#hooks.complete(this);
    }
    if (this.#rearmedAt !== undefined && this.#streams > this.#rearmedAt) {
      this.reconnectedAt ??= t;
      if (this.recompleteAt === undefined && allAnswered) {
        this.recompleteAt = now();
        this.#hooks.recomplete?.(this);
      }
    }
  }

  /** The references of a resource this client follows (see #followReferences); none for a type it does not follow from. */
  #referencesOf(type: string, resource: NamedBody): readonly string[] {
    const body = resource.body;
    // NOTE: a cluster's EDS name is read from its bytes directly (cheaper than comparing them with a cached copy).
    if (type === TYPES.cds) return edsNamesOfCluster(body, () => resource.name);
    const follows = type === TYPES.lds || (type === TYPES.rds && this.spec.proxyType !== 'sidecar');
    return follows ? this.#refs.refs(type, resource.name, Buffer.from(body.buffer, body.byteOffset, body.byteLength)) : NO_REFERENCES;
  }

  #followReferences(type: string, received: Received): void {
    // NOTE: a SotW response's references depend only on its resources' bytes, which the sidecars of a namespace all
    // get alike: they are read once per distinct bytes (compared whole, ~0.1 ms), not once per client (~1 ms each for
    // 1,600 clusters at S=200).
    const region = received.resourceBytes;
    const refsOf = (): readonly string[] =>
      region ? this.#refs.memo(`${this.spec.proxyType}|${type}`, region, () => received.references()) : received.references();
    const sidecar = this.spec.proxyType === 'sidecar';
    switch (type) {
      case TYPES.lds:
        this.#follow(TYPES.rds, refsOf());
        break;
      case TYPES.rds:
        if (!sidecar) this.#follow(TYPES.cds, refsOf());
        break;
      case TYPES.cds: {
        const eds = refsOf();
        this.#follow(TYPES.eds, eds);
        // NOTE: Envoy asks for listeners once clusters (and their endpoints) are warm.
        if (sidecar && eds.length === 0 && !this.#subs!.has(TYPES.lds)) this.#subscribe(TYPES.lds, []);
        break;
      }
      case TYPES.eds:
        if (sidecar && !this.#subs!.has(TYPES.lds)) this.#subscribe(TYPES.lds, []);
        break;
      default:
        break;
    }
  }
}
