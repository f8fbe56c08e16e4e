/**
 * A state-of-the-world ADS test client over real gRPC: sends the node on its first request, subscribes
 * per type like Envoy (each request carries the last version and nonce of that type), ACKs or NACKs on
 * demand or automatically, and records every response.
 */
import { lookupType } from '../protos/index.js';
import { WILDCARD_TYPES } from '../server/xds-types.js';
import { AdsStream, nodeObject, type AdsClientOptions } from './ads-stream.js';
import { resourceName } from './resource-name.js';

const STREAM = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
const REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';

/** One resource of a response. */
export interface SotwResource {
  readonly name: string;
  readonly typeUrl: string;
  readonly body: Uint8Array;
}

/** One decoded DiscoveryResponse. */
export interface SotwResponse {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly controlPlane: string;
  /** Empty when the client was made with `keepBodies: false`; see `resourceCount`. */
  readonly resources: readonly SotwResource[];
  readonly resourceCount: number;
  /** Size on the wire (bytes). */
  readonly bytes: number;
  /** The response as received on the wire. */
  readonly raw: Buffer;
  /** Index in `responses`. */
  readonly index: number;
}

/** Options of the SotW client. */
export interface SotwClientOptions extends AdsClientOptions {
  /** ACK every response as it arrives (like a healthy proxy). Default false. */
  readonly autoAck?: boolean;
  /** Decode each resource to learn its name (default true; benchmarks may turn it off). */
  readonly decodeNames?: boolean;
  /** Keep resource bodies in `responses` (default true). False keeps only counts and sizes (benchmarks). */
  readonly keepBodies?: boolean;
}

interface RawAny {
  type_url: string;
  value: Uint8Array;
}
interface RawResponse {
  versionInfo: string;
  resources: RawAny[];
  typeUrl: string;
  nonce: string;
  controlPlane?: { identifier?: string } | null;
}

/** The SotW test client. */
export class AdsClient {
  readonly #stream: AdsStream<SotwResponse>;
  readonly #opts: SotwClientOptions;
  readonly #names = new Map<string, readonly string[]>();
  readonly #latest = new Map<string, SotwResponse>();
  readonly #held = new Map<string, Map<string, SotwResource>>();
  #nodeSent = false;
  #count = 0;

  constructor(opts: SotwClientOptions) {
    this.#opts = opts;
    this.#stream = new AdsStream(opts, STREAM, (b) => this.#decode(b), (r) => {
      this.#latest.set(r.typeUrl, r);
      this.#hold(r);
      if (opts.autoAck) this.ack(r.typeUrl);
    });
  }

  /** Every response so far, in order. */
  get responses(): readonly SotwResponse[] {
    return this.#stream.responses;
  }
  /** The final status, once the stream has ended. */
  get status(): AdsStream<SotwResponse>['status'] {
    return this.#stream.status;
  }
  /** The underlying stream (pause, raw sends, waits). */
  get stream(): AdsStream<SotwResponse> {
    return this.#stream;
  }

  /** The latest response of a type. */
  latest(typeUrl: string): SotwResponse | undefined {
    return this.#latest.get(typeUrl);
  }

  /**
   * The resources of a type the client holds now, as Envoy keeps them: a response of a full-state type
   * (LDS, CDS: the wildcard types) replaces them all; a response of another type (EDS, RDS) replaces only
   * the resources it carries, and a subscription drops the names it no longer names.
   */
  held(typeUrl: string): ReadonlyMap<string, SotwResource> {
    return this.#held.get(typeUrl) ?? new Map<string, SotwResource>();
  }

  /** Sends any request (the node is added to the first one). */
  request(req: { typeUrl: string; resourceNames?: readonly string[]; versionInfo?: string; responseNonce?: string; errorDetail?: { code: number; message: string } }): void {
    const msg: Record<string, unknown> = { ...req, resourceNames: req.resourceNames ?? [] };
    if (!this.#nodeSent) {
      msg['node'] = nodeObject(this.#opts.node);
      this.#nodeSent = true;
    }
    this.#stream.send(REQUEST, msg);
  }

  /** Subscribes to `names` of a type (empty = wildcard for LDS/CDS), carrying the type's last version and nonce. */
  subscribe(typeUrl: string, names: readonly string[] = []): void {
    this.#names.set(typeUrl, names);
    const held = this.#held.get(typeUrl);
    if (held && names.length > 0 && !WILDCARD_TYPES.has(typeUrl)) {
      const keep = new Set(names);
      for (const n of held.keys()) if (!keep.has(n)) held.delete(n);
    }
    const last = this.#latest.get(typeUrl);
    this.request({ typeUrl, resourceNames: names, versionInfo: last?.versionInfo ?? '', responseNonce: last?.nonce ?? '' });
  }

  /** Drops names from a type's subscription (a request with the remaining names). */
  unsubscribe(typeUrl: string, names: readonly string[]): void {
    const drop = new Set(names);
    this.subscribe(typeUrl, (this.#names.get(typeUrl) ?? []).filter((n) => !drop.has(n)));
  }

  /** ACKs the latest response of a type. */
  ack(typeUrl: string): void {
    const last = this.#mustLatest(typeUrl);
    this.request({ typeUrl, resourceNames: this.#names.get(typeUrl) ?? [], versionInfo: last.versionInfo, responseNonce: last.nonce });
  }

  /** NACKs the latest response of a type with an error message (code 13 INTERNAL, as Envoy sends). */
  nack(typeUrl: string, message: string, code = 13): void {
    const last = this.#mustLatest(typeUrl);
    const acked = [...this.#stream.responses].reverse().find((r) => r.typeUrl === typeUrl && r !== last);
    this.request({ typeUrl, resourceNames: this.#names.get(typeUrl) ?? [], versionInfo: acked?.versionInfo ?? '', responseNonce: last.nonce, errorDetail: { code, message } });
  }

  /** Waits for a response of `typeUrl` after the first `after` responses (default: any new one from now). */
  nextResponse(typeUrl: string, after = this.#stream.responses.length, timeoutMs?: number): Promise<SotwResponse> {
    return this.#stream.waitFor(`a ${typeUrl} response`, () => this.#stream.responses.slice(after).find((r) => r.typeUrl === typeUrl), timeoutMs);
  }

  /** Waits until `check` holds over the responses so far. */
  waitFor<T>(what: string, check: () => T | undefined, timeoutMs?: number): Promise<T> {
    return this.#stream.waitFor(what, check, timeoutMs);
  }

  close(): void {
    this.#stream.close();
  }

  #hold(r: SotwResponse): void {
    let held = this.#held.get(r.typeUrl);
    if (!held || WILDCARD_TYPES.has(r.typeUrl)) this.#held.set(r.typeUrl, (held = new Map()));
    for (const x of r.resources) held.set(x.name, x);
  }

  #mustLatest(typeUrl: string): SotwResponse {
    const last = this.#latest.get(typeUrl);
    if (!last) throw new Error(`no ${typeUrl} response to answer yet`);
    return last;
  }

  #decode(b: Buffer): SotwResponse {
    const r = lookupType('envoy.service.discovery.v3.DiscoveryResponse').decode(b) as unknown as RawResponse;
    return {
      versionInfo: r.versionInfo,
      typeUrl: r.typeUrl,
      nonce: r.nonce,
      controlPlane: r.controlPlane?.identifier ?? '',
      resources:
        this.#opts.keepBodies === false
          ? []
          : r.resources.map((a) => ({ typeUrl: a.type_url, body: a.value, name: this.#opts.decodeNames === false ? '' : resourceName(a.type_url, a.value) })),
      resourceCount: r.resources.length,
      bytes: b.length,
      raw: b,
      index: this.#count++,
    };
  }
}
