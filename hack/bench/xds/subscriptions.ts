/**
 * The two ADS variants a benchmark client speaks: state of the world (`StreamAggregatedResources`, every
 * response the whole set of a type) and incremental (`DeltaAggregatedResources`, responses carry changed
 * resources and the names removed; the client keeps what it holds). A `Subscriptions` keeps one stream's
 * requests and held resources; the client decides what to ask for, this encodes it as its variant does.
 */
import { encode } from '../../../xds/index.js';
import { nodeObject, type TestNode } from '../../../xds/testing/index.js';
import { leadingName, readDeltaDiscoveryResponse, readDiscoveryResponse } from './response-wire.js';

/** The ADS variant of a client. */
export type XdsProtocol = 'sotw' | 'delta';
export const XDS_PROTOCOLS: readonly XdsProtocol[] = ['sotw', 'delta'];

/** A resource by name with its encoded body. */
export interface NamedBody {
  readonly name: string;
  readonly body: Uint8Array;
}

/**
 * The names a resource refers to that its client follows (a listener's route configurations, a cluster's
 * endpoints), computed once when the resource arrives: a stream keeps these, not the bodies. Kept bodies held every
 * client's startup responses (1.2 MB per sidecar, 240 MB per worker) and 250,000 Buffer views per worker.
 */
export type ReferencesOf = (typeUrl: string, resource: NamedBody) => readonly string[];

/** One decoded response, applied to what the stream holds. */
export interface Received {
  readonly typeUrl: string;
  /** How many resources the response carries. */
  readonly count: number;
  /** Resources in this response (a delta response: only the changed ones); SotW reads them on first use. */
  readonly changed: readonly NamedBody[];
  /** The names of the type the stream holds after this response (read before the next `receive`). */
  heldNames(): readonly string[];
  /** Every reference of the resources of the type the stream holds after this response (read before the next `receive`). */
  references(): readonly string[];
  /**
   * SotW: the bytes of every resource of the response, which alone decide `references()` (undefined for a delta
   * response, whose references include what the stream held before).
   */
  readonly resourceBytes?: Buffer | undefined;
}

/** One stream's subscriptions: encodes its requests and applies its responses. */
export interface Subscriptions {
  /** The gRPC method of the variant. */
  readonly method: string;
  /** Whether the type has been asked for on this stream. */
  has(typeUrl: string): boolean;
  /** Asks for `names` of a type (`[]`: every resource of a wildcard type); the first request carries the node. */
  subscribe(typeUrl: string, names: readonly string[]): Buffer;
  /** The request that changes a subscription to exactly `names`, or undefined when it is unchanged. */
  follow(typeUrl: string, names: readonly string[]): Buffer | undefined;
  /** Decodes a response and applies it. */
  receive(bytes: Buffer): Received;
  /** The ACK of the type's last response. */
  ack(typeUrl: string): Buffer;
}

/** The names seen in this thread, each once (it grows with the distinct resource names of a run). */
const namePool = new Map<string, string>();

/**
 * One string per resource name in this thread (a worker's clients share it). Decoded names are new strings, many of
 * them concatenations (protobufjs builds long strings in chunks): 200 sidecars holding 1,200 cluster and endpoint
 * names each kept 3.6 million string objects per worker, whose marking made 100-190 ms GC pauses land in the
 * measured pushes. A proxy keeps its names in C++, with no such pauses.
 */
export function internName(name: string): string {
  const known = namePool.get(name);
  if (known !== undefined) return known;
  namePool.set(name, name);
  return name;
}

/**
 * A resource of a SotW response, its name read from its bytes only when asked for: a client reads few of them (a
 * cluster's endpoint name is in its body), and decoding and interning 1,600 names per CDS response was ~10 % of a
 * client thread's time in a full push at S=200 (profiled).
 */
class WireResource implements NamedBody {
  readonly body: Buffer;
  #name: string | undefined;
  constructor(body: Buffer) {
    this.body = body;
  }
  get name(): string {
    return (this.#name ??= internName(leadingName(this.body)));
  }
}

/** Whether two lists hold the same names in the same order. */
function sameList(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What both variants keep of a stream: the names asked per type, and the node until the first request carries it. */
abstract class StreamSubscriptions {
  protected readonly names = new Map<string, readonly string[]>();
  readonly #asked = new Map<string, ReadonlySet<string>>();
  /** The last list each type was followed with that matched what was asked (a response's references, in its order). */
  readonly #lastSame = new Map<string, readonly string[]>();
  protected readonly referencesOf: ReferencesOf;
  #node: TestNode | undefined;

  constructor(node: TestNode, referencesOf: ReferencesOf) {
    this.#node = node;
    this.referencesOf = referencesOf;
  }

  has(typeUrl: string): boolean {
    return this.names.has(typeUrl);
  }

  /** Records the names asked for a type. */
  protected ask(typeUrl: string, names: readonly string[]): void {
    this.names.set(typeUrl, names);
    this.#asked.set(typeUrl, setOf(names));
    // NOTE: a list that matched what was asked before may not match this.
    this.#lastSame.delete(typeUrl);
  }

  /** Whether `names`, in any order, are what was last asked for the type (a set compare: a CDS response names 1,000). */
  protected askedAlready(typeUrl: string, names: readonly string[]): boolean {
    const asked = this.#asked.get(typeUrl);
    if (!asked) return false;
    // NOTE: a response repeats its references in the same order while nothing changes: a list compare, no set.
    if (sameList(names, this.#lastSame.get(typeUrl))) return true;
    const now = new Set(names);
    if (now.size !== asked.size) return false;
    for (const n of now) if (!asked.has(n)) return false;
    this.#lastSame.set(typeUrl, names);
    return true;
  }

  /** Adds the node to the stream's first request. */
  protected withNode(msg: Record<string, unknown>): Record<string, unknown> {
    if (this.#node) msg['node'] = nodeObject(this.#node);
    this.#node = undefined;
    return msg;
  }
}

/** State of the world: every request repeats the names and the last version and nonce of its type. */
export class SotwSubscriptions extends StreamSubscriptions implements Subscriptions {
  readonly method = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
  readonly #last = new Map<string, { version: string; nonce: string }>();

  subscribe(typeUrl: string, names: readonly string[]): Buffer {
    this.ask(typeUrl, names);
    return this.#request(typeUrl);
  }

  follow(typeUrl: string, names: readonly string[]): Buffer | undefined {
    return this.askedAlready(typeUrl, names) ? undefined : this.subscribe(typeUrl, canonical(names));
  }

  receive(bytes: Buffer): Received {
    const r = readDiscoveryResponse(bytes);
    this.#last.set(r.typeUrl, { version: r.versionInfo, nonce: r.nonce });
    let resources: WireResource[] | undefined;
    const all = (): WireResource[] => (resources ??= r.bodies.map((body) => new WireResource(body)));
    return {
      typeUrl: r.typeUrl,
      count: r.count,
      get changed(): readonly NamedBody[] {
        return all();
      },
      heldNames: () => all().map((x) => x.name),
      references: () => union(all().map((x) => this.referencesOf(r.typeUrl, x))),
      resourceBytes: r.resourceBytes,
    };
  }

  ack(typeUrl: string): Buffer {
    return this.#request(typeUrl);
  }

  /**
   * The request of a type: fields 1-2 (version, node), 3 (the names), 4-5 (type, nonce), in that order, each part
   * encoded alone (protobuf concatenates fields); the names part once per asked list.
   * NOTE: an ACK repeats every name (an EDS ACK names every cluster): encoding them with protobufjs per ACK made a
   * thread of 200 clients spend ~100 ms per endpoint push on ACKs at S=200, which Envoy does in C++, and the
   * responses arriving meanwhile were stamped that much late.
   */
  #request(typeUrl: string): Buffer {
    const last = this.#last.get(typeUrl);
    const names = this.names.get(typeUrl) ?? NO_NAMES;
    let namesPart = namesParts.get(names);
    if (!namesPart) namesParts.set(names, (namesPart = Buffer.from(encode(REQUEST, { resourceNames: names }))));
    const head = encode(REQUEST, this.withNode({ versionInfo: last?.version ?? '' }));
    const tail = encode(REQUEST, { typeUrl, responseNonce: last?.nonce ?? '' });
    return Buffer.concat([head, namesPart, tail]);
  }
}

const REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';

/**
 * Per list of names, made once per thread and shared by its clients (the lists come from ReferenceCache.memo, one
 * array per distinct response): the list deduplicated and sorted as it is asked for, its set, its encoded
 * resource_names. A new service changes every sidecar's EDS list at once: sorting and encoding 1,600 names per
 * client was ~6 % of a client thread's time in that push at S=200 (profiled).
 */
const canonicalLists = new WeakMap<readonly string[], readonly string[]>();
const nameSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const namesParts = new WeakMap<readonly string[], Buffer>();

function canonical(names: readonly string[]): readonly string[] {
  let list = canonicalLists.get(names);
  if (!list) canonicalLists.set(names, (list = [...new Set(names)].sort()));
  return list;
}

function setOf(names: readonly string[]): ReadonlySet<string> {
  let set = nameSets.get(names);
  if (!set) nameSets.set(names, (set = new Set(names)));
  return set;
}
const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * Incremental, as Envoy speaks it: a wildcard type is asked for with no names, a named one by
 * subscribing and unsubscribing the difference; an ACK carries only the nonce; the client applies
 * `resources` and `removed_resources` to what it holds.
 */
export class DeltaSubscriptions extends StreamSubscriptions implements Subscriptions {
  readonly method = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
  readonly #nonce = new Map<string, string>();
  /** Per type, each held resource's references. */
  readonly #held = new Map<string, Map<string, readonly string[]>>();

  subscribe(typeUrl: string, names: readonly string[]): Buffer {
    this.ask(typeUrl, names);
    return this.#request({ typeUrl, resourceNamesSubscribe: names });
  }

  follow(typeUrl: string, names: readonly string[]): Buffer | undefined {
    if (this.askedAlready(typeUrl, names)) return undefined;
    const sorted = [...new Set(names)].sort();
    const was = new Set(this.names.get(typeUrl));
    const now = new Set(sorted);
    this.ask(typeUrl, sorted);
    return this.#request({
      typeUrl,
      resourceNamesSubscribe: sorted.filter((n) => !was.has(n)),
      resourceNamesUnsubscribe: [...was].filter((n) => !now.has(n)),
    });
  }

  receive(bytes: Buffer): Received {
    const r = readDeltaDiscoveryResponse(bytes);
    this.#nonce.set(r.typeUrl, r.nonce);
    let held = this.#held.get(r.typeUrl);
    if (!held) this.#held.set(r.typeUrl, (held = new Map()));
    for (const n of r.removedResources) held.delete(n);
    const changed: NamedBody[] = [];
    for (const x of r.resources) {
      // NOTE: a resource without a body is a name the client asked for that does not exist (as a removal).
      if (!x.body) {
        held.delete(x.name);
        continue;
      }
      const resource = { name: internName(x.name), body: x.body };
      held.set(resource.name, this.referencesOf(r.typeUrl, resource));
      changed.push(resource);
    }
    const all = held;
    return { typeUrl: r.typeUrl, count: changed.length, changed, heldNames: () => [...all.keys()], references: () => union(all.values()) };
  }

  ack(typeUrl: string): Buffer {
    return this.#request({ typeUrl, responseNonce: this.#nonce.get(typeUrl) ?? '' });
  }

  #request(msg: Record<string, unknown>): Buffer {
    return Buffer.from(encode('envoy.service.discovery.v3.DeltaDiscoveryRequest', this.withNode(msg)));
  }
}

/** A stream's subscriptions in the given variant. */
export function subscriptionsFor(protocol: XdsProtocol, node: TestNode, referencesOf: ReferencesOf): Subscriptions {
  return protocol === 'delta' ? new DeltaSubscriptions(node, referencesOf) : new SotwSubscriptions(node, referencesOf);
}

/** The distinct names of several reference lists, in first-seen order. */
function union(lists: Iterable<readonly string[]>): string[] {
  const out = new Set<string>();
  for (const l of lists) for (const x of l) out.add(x);
  return [...out];
}
