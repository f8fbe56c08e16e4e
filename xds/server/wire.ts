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

class Writer {
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

/** What the transport sends in a state-of-the-world response. */
export interface DiscoveryResponseFields {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  /** Encoded resource bodies, each wrapped as Any{typeUrl, body}. */
  readonly resources: readonly Uint8Array[];
  /** control_plane.identifier, when set. */
  readonly controlPlane?: string;
}

/**
 * An encoded discovery response whose bytes are laid out only when they are needed: when grpc-js sends it, straight
 * into its gRPC frame (framed-send.ts), so a response to hundreds of proxies costs one copy of its resources per
 * proxy. (Without framed-send, into a scratch buffer grpc-js copies at once: ads-service.ts.)
 */
export class EncodedResponse {
  constructor(
    /** The message's size in bytes. */
    readonly length: number,
    private readonly fill: (w: Writer) => void,
  ) {}

  /** Writes the message at the start of `buf` (at least `length` bytes long). */
  writeInto(buf: Buffer): void {
    if (buf.length < this.length) throw new RangeError(`a ${this.length}-byte response does not fit in ${buf.length} bytes`);
    const w = new Writer(buf);
    this.fill(w);
    if (w.pos !== this.length) throw new Error(`encoded ${w.pos} bytes of a ${this.length}-byte response`);
  }

  /** The message in a Buffer of its own (tests, replay, debugging). */
  toBuffer(): Buffer {
    const buf = Buffer.allocUnsafe(this.length);
    this.writeInto(buf);
    return buf;
  }
}

/** Encodes a DiscoveryResponse. */
export function encodeDiscoveryResponse(r: DiscoveryResponseFields): EncodedResponse {
  const version = utf8(r.versionInfo);
  const typeUrl = utf8(r.typeUrl);
  const nonce = utf8(r.nonce);
  const cp = r.controlPlane ? utf8(r.controlPlane) : undefined;
  let size = 0;
  if (version.length) size += ldSize(version.length);
  for (const b of r.resources) size += ldSize(anySize(typeUrl.length, b.length));
  size += ldSize(typeUrl.length);
  if (nonce.length) size += ldSize(nonce.length);
  if (cp) size += ldSize(ldSize(cp.length));
  const resources = r.resources;
  return new EncodedResponse(size, (w) => {
    if (version.length) w.str(1, version);
    for (const b of resources) writeAny(w, 2, typeUrl, b);
    w.str(4, typeUrl);
    if (nonce.length) w.str(5, nonce);
    if (cp) {
      w.header(6, ldSize(cp.length));
      w.str(1, cp);
    }
  });
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
  readonly resources: readonly DeltaResourceFields[];
  readonly removedResources: readonly string[];
  readonly controlPlane?: string;
}

/** Encodes a DeltaDiscoveryResponse. */
export function encodeDeltaDiscoveryResponse(r: DeltaDiscoveryResponseFields): EncodedResponse {
  const version = utf8(r.systemVersionInfo);
  const typeUrl = utf8(r.typeUrl);
  const nonce = utf8(r.nonce);
  const cp = r.controlPlane ? utf8(r.controlPlane) : undefined;
  const res = r.resources.map((x) => {
    const name = utf8(x.name);
    const ver = utf8(x.version);
    const inner = ldSize(name.length) + (ver.length ? ldSize(ver.length) : 0) + ldSize(anySize(typeUrl.length, x.body.length));
    return { name, ver, body: x.body, inner };
  });
  const removed = r.removedResources.map(utf8);
  let size = 0;
  if (version.length) size += ldSize(version.length);
  for (const x of res) size += ldSize(x.inner);
  size += ldSize(typeUrl.length);
  if (nonce.length) size += ldSize(nonce.length);
  for (const x of removed) size += ldSize(x.length);
  if (cp) size += ldSize(ldSize(cp.length));
  return new EncodedResponse(size, (w) => {
    if (version.length) w.str(1, version);
    for (const x of res) {
      w.header(2, x.inner);
      if (x.ver.length) w.str(1, x.ver);
      writeAny(w, 2, typeUrl, x.body);
      w.str(3, x.name);
    }
    w.str(4, typeUrl);
    if (nonce.length) w.str(5, nonce);
    for (const x of removed) w.str(6, x);
    if (cp) {
      w.header(7, ldSize(cp.length));
      w.str(1, cp);
    }
  });
}
