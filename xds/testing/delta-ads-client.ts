/**
 * A delta ADS test client over real gRPC: subscribe/unsubscribe by name, ACK/NACK on demand or
 * automatically, and a view of the resources it holds (applying resources and removed_resources).
 */
import { lookupType } from '../protos/index.js';
import { AdsStream, nodeObject, type AdsClientOptions } from './ads-stream.js';

const DELTA = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
const REQUEST = 'envoy.service.discovery.v3.DeltaDiscoveryRequest';

/** One resource of a delta response. */
export interface DeltaResource {
  readonly name: string;
  readonly version: string;
  readonly typeUrl: string;
  readonly body: Uint8Array;
}

/** One decoded DeltaDiscoveryResponse. */
export interface DeltaResponse {
  readonly systemVersionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly DeltaResource[];
  readonly removedResources: readonly string[];
  readonly bytes: number;
  /** The response as received on the wire. */
  readonly raw: Buffer;
  readonly index: number;
}

/** Options of the delta client. */
export interface DeltaClientOptions extends AdsClientOptions {
  readonly autoAck?: boolean;
}

interface RawResource {
  name: string;
  version: string;
  resource?: { type_url: string; value: Uint8Array } | null;
}
interface RawDelta {
  systemVersionInfo: string;
  resources: RawResource[];
  typeUrl: string;
  removedResources: string[];
  nonce: string;
}

/** The delta test client. */
export class DeltaAdsClient {
  readonly #stream: AdsStream<DeltaResponse>;
  readonly #opts: DeltaClientOptions;
  readonly #latest = new Map<string, DeltaResponse>();
  readonly #held = new Map<string, Map<string, DeltaResource>>();
  #nodeSent = false;
  #count = 0;

  constructor(opts: DeltaClientOptions) {
    this.#opts = opts;
    this.#stream = new AdsStream(opts, DELTA, (b) => this.#decode(b), (r) => {
      this.#latest.set(r.typeUrl, r);
      const held = this.#heldOf(r.typeUrl);
      for (const res of r.resources) held.set(res.name, res);
      for (const n of r.removedResources) held.delete(n);
      if (opts.autoAck) this.ack(r.typeUrl);
    });
  }

  get responses(): readonly DeltaResponse[] {
    return this.#stream.responses;
  }
  get status(): AdsStream<DeltaResponse>['status'] {
    return this.#stream.status;
  }
  get stream(): AdsStream<DeltaResponse> {
    return this.#stream;
  }

  /** The resources of a type the client holds now (name -> resource). */
  held(typeUrl: string): ReadonlyMap<string, DeltaResource> {
    return this.#heldOf(typeUrl);
  }

  /** Sends any request (the node is added to the first one). */
  request(req: {
    typeUrl: string;
    resourceNamesSubscribe?: readonly string[];
    resourceNamesUnsubscribe?: readonly string[];
    initialResourceVersions?: Readonly<Record<string, string>>;
    responseNonce?: string;
    errorDetail?: { code: number; message: string };
  }): void {
    const msg: Record<string, unknown> = { ...req };
    if (!this.#nodeSent) {
      msg['node'] = nodeObject(this.#opts.node);
      this.#nodeSent = true;
    }
    this.#stream.send(REQUEST, msg);
  }

  subscribe(typeUrl: string, names: readonly string[] = [], initialResourceVersions?: Readonly<Record<string, string>>): void {
    this.request({ typeUrl, resourceNamesSubscribe: names, ...(initialResourceVersions ? { initialResourceVersions } : {}) });
  }

  unsubscribe(typeUrl: string, names: readonly string[]): void {
    this.request({ typeUrl, resourceNamesUnsubscribe: names });
  }

  ack(typeUrl: string): void {
    const last = this.#latest.get(typeUrl);
    if (!last) throw new Error(`no ${typeUrl} response to answer yet`);
    this.request({ typeUrl, responseNonce: last.nonce });
  }

  nack(typeUrl: string, message: string, code = 13): void {
    const last = this.#latest.get(typeUrl);
    if (!last) throw new Error(`no ${typeUrl} response to answer yet`);
    this.request({ typeUrl, responseNonce: last.nonce, errorDetail: { code, message } });
  }

  nextResponse(typeUrl: string, after = this.#stream.responses.length, timeoutMs?: number): Promise<DeltaResponse> {
    return this.#stream.waitFor(`a ${typeUrl} delta response`, () => this.#stream.responses.slice(after).find((r) => r.typeUrl === typeUrl), timeoutMs);
  }

  waitFor<T>(what: string, check: () => T | undefined, timeoutMs?: number): Promise<T> {
    return this.#stream.waitFor(what, check, timeoutMs);
  }

  close(): void {
    this.#stream.close();
  }

  #heldOf(typeUrl: string): Map<string, DeltaResource> {
    let m = this.#held.get(typeUrl);
    if (!m) {
      m = new Map();
      this.#held.set(typeUrl, m);
    }
    return m;
  }

  #decode(b: Buffer): DeltaResponse {
    const r = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse').decode(b) as unknown as RawDelta;
    return {
      systemVersionInfo: r.systemVersionInfo,
      typeUrl: r.typeUrl,
      nonce: r.nonce,
      resources: r.resources.map((x) => ({ name: x.name, version: x.version, typeUrl: x.resource?.type_url ?? '', body: x.resource?.value ?? new Uint8Array() })),
      removedResources: [...r.removedResources],
      bytes: b.length,
      raw: b,
      index: this.#count++,
    };
  }
}
