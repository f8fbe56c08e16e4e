/**
 * The xDS discovery messages on the wire. Responses are written by hand from already-encoded resource
 * bodies (each wrapped in an Any without re-encoding it); delta requests are decoded with protobufjs, SotW
 * requests by request-wire.ts (names read lazily).
 */
import { lookupType } from '../protos/index.js';

/** google.rpc.Status as decoded from a request's error_detail. */
export interface StatusMessage {
  readonly code: number;
  readonly message: string;
}

/** The fields of envoy.config.core.v3.Node meshd reads (protobufjs camelCase form). */
export interface NodeMessage {
  readonly id: string;
  readonly cluster: string;
  readonly metadata?: { readonly fields?: Readonly<Record<string, unknown>> } | null;
  readonly locality?: { readonly region?: string; readonly zone?: string; readonly subZone?: string } | null;
  readonly userAgentName?: string;
}

/** A decoded envoy.service.discovery.v3.DiscoveryRequest. */
export interface DiscoveryRequest {
  readonly versionInfo: string;
  readonly node?: NodeMessage | null;
  readonly resourceNames: readonly string[];
  readonly typeUrl: string;
  readonly responseNonce: string;
  readonly errorDetail?: StatusMessage | null;
  /** The resource_names fields as on the wire, when decoded from bytes: equal keys mean equal name lists. */
  readonly resourceNamesKey?: Uint8Array;
}

/** A decoded envoy.service.discovery.v3.DeltaDiscoveryRequest. */
export interface DeltaDiscoveryRequest {
  readonly node?: NodeMessage | null;
  readonly typeUrl: string;
  readonly resourceNamesSubscribe: readonly string[];
  readonly resourceNamesUnsubscribe: readonly string[];
  readonly initialResourceVersions: Readonly<Record<string, string>>;
  readonly responseNonce: string;
  readonly errorDetail?: StatusMessage | null;
}

/** Decodes a DeltaDiscoveryRequest (throws on malformed bytes). */
export function decodeDeltaDiscoveryRequest(bytes: Uint8Array): DeltaDiscoveryRequest {
  return lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest').decode(bytes) as unknown as DeltaDiscoveryRequest;
}

// ---- a minimal protobuf writer: sizes first, then one allocation ----

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Size of a length-delimited field with a 1-byte tag. */
function ldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/** A protobuf writer over a buffer sized beforehand. */
export class Writer {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }
  tag(field: number, wire: number): void {
    this.buf[this.pos++] = (field << 3) | wire;
  }
  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  str(field: number, s: Buffer): void {
    this.bytes(field, s);
  }
  header(field: number, len: number): void {
    this.tag(field, 2);
    this.varint(len);
  }
}

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Any{type_url=1, value=2} size for one body. */
function anySize(typeUrlLen: number, bodyLen: number): number {
  return ldSize(typeUrlLen) + ldSize(bodyLen);
}

function writeAny(w: Writer, field: number, typeUrl: Buffer, body: Uint8Array): void {
  w.header(field, anySize(typeUrl.length, body.length));
  w.str(1, typeUrl);
  w.bytes(2, body);
}

/**
 * Resources already wrapped and laid out as a response's `resources` fields (Any{typeUrl, body} each), to be sent as
 * they are: one copy shared by every response that sends the same resources (resource-sections.ts).
 */
export class ResourceSection {
  constructor(
    /** The type URL of every resource in the section. */
    readonly typeUrl: string,
    /** The `resources` fields as on the wire. */
    readonly bytes: Buffer,
  ) {}
}

/** The size of `bodies` laid out as `resources` fields of type `typeUrl` (bytes of `typeUrl` in UTF-8: `typeUrlLength`). */
export function resourcesSize(typeUrlLength: number, bodies: readonly Uint8Array[]): number {
  let size = 0;
  for (const b of bodies) size += ldSize(anySize(typeUrlLength, b.length));
  return size;
}

/** `bodies` as the `resources` fields of a SotW response, each wrapped as Any{typeUrl, body}; `size` from resourcesSize. */
function anyResourcesPiece(typeUrl: Buffer, bodies: readonly Uint8Array[], size = resourcesSize(typeUrl.length, bodies)): FilledPiece {
  return {
    length: size,
    fill: (w) => {
      for (const b of bodies) writeAny(w, 2, typeUrl, b);
    },
  };
}

/** `piece` laid out in memory of its own, as a section of `typeUrl` resources. */
function sectionOf(typeUrl: string, piece: FilledPiece): ResourceSection {
  // NOTE: allocUnsafeSlow: never a slice of Node's shared pool, which a long-lived section would pin.
  const buf = Buffer.allocUnsafeSlow(piece.length);
  fillPiece(piece, buf);
  return new ResourceSection(typeUrl, buf);
}

/** Lays `bodies` out as SotW `resources` fields of type `typeUrl`, `size` bytes (resourcesSize), in memory of its own. */
export function layoutResourceSection(typeUrl: string, bodies: readonly Uint8Array[], size: number): ResourceSection {
  return sectionOf(typeUrl, anyResourcesPiece(utf8(typeUrl), bodies, size));
}

/** A response's `version_info` (SotW) or `system_version_info` (delta): field 1, left out when empty. */
function versionPiece(version: Buffer): FilledPiece {
  return {
    length: version.length ? ldSize(version.length) : 0,
    fill: (w) => {
      if (version.length) w.str(1, version);
    },
  };
}

/**
 * What follows a response's resources, the same in both protocols but for the field numbers: type_url (4), nonce (5),
 * delta's removed_resources (6), and control_plane (SotW 6, delta 7: a ControlPlane message with its identifier).
 */
function tailPiece(typeUrl: Buffer, nonce: Buffer, removed: readonly Buffer[], cp: Buffer | undefined, cpField: 6 | 7): FilledPiece {
  let length = ldSize(typeUrl.length);
  if (nonce.length) length += ldSize(nonce.length);
  for (const x of removed) length += ldSize(x.length);
  if (cp) length += ldSize(ldSize(cp.length));
  return {
    length,
    fill: (w) => {
      w.str(4, typeUrl);
      if (nonce.length) w.str(5, nonce);
      for (const x of removed) w.str(6, x);
      if (cp) {
        w.header(cpField, ldSize(cp.length));
        w.str(1, cp);
      }
    },
  };
}

/** What the transport sends in a state-of-the-world response. */
export interface DiscoveryResponseFields {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  /** Encoded resource bodies, each wrapped as Any{typeUrl, body}, or a section of them laid out already. */
  readonly resources: readonly Uint8Array[] | ResourceSection;
  /** control_plane.identifier, when set. */
  readonly controlPlane?: string;
}

/** Part of a response laid out when it is sent: `length` bytes written by `fill`. */
export interface FilledPiece {
  readonly length: number;
  readonly fill: (w: Writer) => void;
}

/** A part of a response: bytes it shares with other responses (sent as they are), or bytes of its own. */
export type ResponsePiece = Buffer | FilledPiece;

/**
 * An encoded discovery response whose bytes are laid out only when they are needed: when grpc-js sends it, straight
 * into its gRPC frame (framed-send.ts), so a response to hundreds of proxies costs one copy of its resources per
 * proxy, or none for a resource section the responses share. (Without framed-send, into a scratch buffer grpc-js
 * copies at once: ads-service.ts.)
 */
export class EncodedResponse {
  /** The message's size in bytes. */
  readonly length: number;

  constructor(
    /** The message in order: shared bytes and bytes laid out on demand. */
    readonly pieces: readonly ResponsePiece[],
  ) {
    let length = 0;
    for (const p of pieces) length += p.length;
    this.length = length;
  }

  /** Whether some of the bytes are shared with other responses (a Buffer piece). */
  get sharesBytes(): boolean {
    return this.pieces.some((p) => Buffer.isBuffer(p));
  }

  /** Writes the message at the start of `buf` (at least `length` bytes long). */
  writeInto(buf: Buffer): void {
    if (buf.length < this.length) throw new RangeError(`a ${this.length}-byte response does not fit in ${buf.length} bytes`);
    let pos = 0;
    for (const p of this.pieces) {
      if (Buffer.isBuffer(p)) buf.set(p, pos);
      else fillPiece(p, buf.subarray(pos, pos + p.length));
      pos += p.length;
    }
    assertWhole(this, pos);
  }

  /** The message in a Buffer of its own (tests, replay, debugging). */
  toBuffer(): Buffer {
    const buf = Buffer.allocUnsafe(this.length);
    this.writeInto(buf);
    return buf;
  }
}

/**
 * Throws unless `r`'s pieces add up to the `length` it was made with: shared bytes freed (shared-bytes.ts) before a
 * second write of the same response would otherwise go out as a frame shorter than its header says.
 */
export function assertWhole(r: EncodedResponse, piecesLength: number): void {
  if (piecesLength !== r.length) throw new Error(`a ${r.length}-byte response has ${piecesLength} bytes left: its shared bytes were freed after its first write`);
}

/** Writes `p` at the start of `buf`, checking it wrote exactly its length. */
export function fillPiece(p: FilledPiece, buf: Buffer): void {
  const w = new Writer(buf);
  p.fill(w);
  if (w.pos !== p.length) throw new Error(`encoded ${w.pos} bytes of a ${p.length}-byte response piece`);
}

/** `resources` when it is a section of `typeUrl` resources, undefined for a list; throws for another type's section. */
function sectionFor(resources: unknown, typeUrl: string): ResourceSection | undefined {
  if (!(resources instanceof ResourceSection)) return undefined;
  if (resources.typeUrl !== typeUrl) throw new Error(`a section of ${resources.typeUrl} resources in a ${typeUrl} response`);
  return resources;
}

/** Encodes a DiscoveryResponse. */
export function encodeDiscoveryResponse(r: DiscoveryResponseFields): EncodedResponse {
  const version = utf8(r.versionInfo);
  const typeUrl = utf8(r.typeUrl);
  const nonce = utf8(r.nonce);
  const cp = r.controlPlane ? utf8(r.controlPlane) : undefined;
  const section = sectionFor(r.resources, r.typeUrl);
  return new EncodedResponse([
    versionPiece(version),
    section?.bytes ?? anyResourcesPiece(typeUrl, r.resources as readonly Uint8Array[]),
    tailPiece(typeUrl, nonce, [], cp, 6),
  ]);
}

/** One resource of a delta response. */
export interface DeltaResourceFields {
  readonly name: string;
  readonly version: string;
  readonly body: Uint8Array;
}

/** What the transport sends in a delta response. */
export interface DeltaDiscoveryResponseFields {
  readonly systemVersionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  /** The resources, or a section of them laid out already. */
  readonly resources: readonly DeltaResourceFields[] | ResourceSection;
  readonly removedResources: readonly string[];
  readonly controlPlane?: string;
}

/** A delta response's resources with their fields in UTF-8 and the size of each Resource message. */
function deltaEntries(typeUrlLength: number, resources: readonly DeltaResourceFields[]) {
  return resources.map((x) => {
    const name = utf8(x.name);
    const ver = utf8(x.version);
    const inner = ldSize(name.length) + (ver.length ? ldSize(ver.length) : 0) + ldSize(anySize(typeUrlLength, x.body.length));
    return { name, ver, body: x.body, inner };
  });
}

function writeDeltaEntry(w: Writer, typeUrl: Buffer, x: ReturnType<typeof deltaEntries>[number]): void {
  w.header(2, x.inner);
  if (x.ver.length) w.str(1, x.ver);
  writeAny(w, 2, typeUrl, x.body);
  w.str(3, x.name);
}

/** `resources` as the `resources` fields of a delta response (Resource{version, Any, name} each). */
function deltaResourcesPiece(typeUrl: Buffer, resources: readonly DeltaResourceFields[]): FilledPiece {
  const entries = deltaEntries(typeUrl.length, resources);
  let size = 0;
  for (const x of entries) size += ldSize(x.inner);
  return {
    length: size,
    fill: (w) => {
      for (const x of entries) writeDeltaEntry(w, typeUrl, x);
    },
  };
}

/** Lays `resources` out as a delta response's `resources` fields of type `typeUrl`, in memory of its own. */
export function layoutDeltaResourceSection(typeUrl: string, resources: readonly DeltaResourceFields[]): ResourceSection {
  return sectionOf(typeUrl, deltaResourcesPiece(utf8(typeUrl), resources));
}

/** Encodes a DeltaDiscoveryResponse. */
export function encodeDeltaDiscoveryResponse(r: DeltaDiscoveryResponseFields): EncodedResponse {
  const version = utf8(r.systemVersionInfo);
  const typeUrl = utf8(r.typeUrl);
  const nonce = utf8(r.nonce);
  const cp = r.controlPlane ? utf8(r.controlPlane) : undefined;
  const section = sectionFor(r.resources, r.typeUrl);
  return new EncodedResponse([
    versionPiece(version),
    section?.bytes ?? deltaResourcesPiece(typeUrl, r.resources as readonly DeltaResourceFields[]),
    tailPiece(typeUrl, nonce, r.removedResources.map(utf8), cp, 7),
  ]);
}
