/**
 * Discovery responses read straight from their wire bytes, for the benchmark clients: the fields a client acts
 * on (version, nonce, type, each resource's name and body bytes, removals, a cluster's EDS name), without
 * building protobufjs objects.
 *
 * NOTE: a client thread stands in for hundreds of Envoys, which read xDS in C++. Decoding every response with
 * protobufjs (an object and a type-URL string per resource, 1,000 per SotW CDS response) made the two client
 * threads the slowest part of a full push at S=200 (74-83 % busy), so the benchmark timed its own clients
 * more than either server.
 */

/**
 * The top-level fields of `buf[from, to)`, one at a time: `next()` reads the next field's number, wire type and payload
 * span (length-delimited), or its value in `start` (varint); it throws RangeError on malformed bytes.
 * NOTE: a cursor, not a callback per field: the clients walk ~1,600 resources per CDS response.
 */
class Fields {
  number = 0;
  wire = 0;
  /** Where the field's key starts. */
  fieldStart = 0;
  /** Payload start and end (length-delimited), or the varint's value in `start`. */
  start = 0;
  end = 0;
  #i: number;
  readonly #to: number;
  readonly #buf: Uint8Array;

  constructor(buf: Uint8Array, from: number, to: number) {
    this.#buf = buf;
    this.#i = from;
    this.#to = to;
  }

  next(): boolean {
    if (this.#i >= this.#to) return false;
    this.fieldStart = this.#i;
    const key = this.#varint();
    this.number = Math.floor(key / 8);
    this.wire = key & 7;
    if (this.wire === 0) {
      this.start = this.#varint();
      this.end = this.#i;
    } else if (this.wire === 1 || this.wire === 5) {
      this.start = this.#i;
      this.#i += this.wire === 1 ? 8 : 4;
      this.end = this.#i;
    } else if (this.wire === 2) {
      const len = this.#varint();
      this.start = this.#i;
      this.#i += len;
      this.end = this.#i;
    } else throw new RangeError(`unsupported wire type ${this.wire}`);
    if (this.#i > this.#to) throw new RangeError(`field ${this.number} runs past the end of its message`);
    return true;
  }

  #varint(): number {
    const buf = this.#buf;
    let v = 0;
    let mul = 1;
    for (;;) {
      if (this.#i >= this.#to) throw new RangeError('truncated varint');
      const b = buf[this.#i++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  }
}

const text = (buf: Buffer, f: Fields): string => buf.toString('utf8', f.start, f.end);

/** `bytes` as a Buffer (a view, not a copy). */
const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** The `value` bytes of an encoded google.protobuf.Any (empty when it has none). */
function anyValue(buf: Buffer, from: number, to: number): Buffer {
  let value: Buffer | undefined;
  for (const f = new Fields(buf, from, to); f.next(); ) if (f.number === 2 && f.wire === 2) value = buf.subarray(f.start, f.end);
  return value ?? buf.subarray(0, 0);
}

/** The fields of a DiscoveryResponse a client reads. */
export interface SotwResponseWire {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  /** How many resources it carries. */
  readonly count: number;
  /** Each resource's body (the Any's value), read on first use: a client that needs none skips the work. */
  readonly bodies: readonly Buffer[];
  /**
   * The bytes from the first resource through the last, when nothing else lies between them (as encoders write a
   * message: field by field): the whole of what the response carries besides its version, type and nonce.
   */
  readonly resourceBytes: Buffer | undefined;
}

/** Reads an envoy.service.discovery.v3.DiscoveryResponse. */
export function readDiscoveryResponse(bytes: Uint8Array): SotwResponseWire {
  const buf = asBuffer(bytes);
  let versionInfo = '';
  let typeUrl = '';
  let nonce = '';
  /** Where each resource's Any lies (start, end, ...). */
  const spans: number[] = [];
  /** Where the resources' run of fields starts and ends; `split` once another field interrupts it. */
  let first = -1;
  let last = -1;
  let split = false;
  for (const f = new Fields(buf, 0, buf.length); f.next(); ) {
    if (f.number === 2 && f.wire === 2) {
      if (first < 0) first = f.fieldStart;
      else if (last !== f.fieldStart) split = true;
      last = f.end;
      spans.push(f.start, f.end);
      continue;
    }
    if (f.wire !== 2) continue;
    if (f.number === 1) versionInfo = text(buf, f);
    else if (f.number === 4) typeUrl = text(buf, f);
    else if (f.number === 5) nonce = text(buf, f);
  }
  const resourceBytes = first < 0 ? buf.subarray(0, 0) : split ? undefined : buf.subarray(first, last);
  let bodies: Buffer[] | undefined;
  return {
    versionInfo,
    typeUrl,
    nonce,
    count: spans.length / 2,
    get bodies(): readonly Buffer[] {
      if (!bodies) {
        bodies = [];
        for (let i = 0; i < spans.length; i += 2) bodies.push(anyValue(buf, spans[i]!, spans[i + 1]!));
      }
      return bodies;
    },
    resourceBytes,
  };
}

/** One Resource of a delta response; `body` is undefined when it carries no resource (a name that does not exist). */
export interface DeltaResourceWire {
  readonly name: string;
  readonly body: Buffer | undefined;
}

/** The fields of a DeltaDiscoveryResponse a client reads. */
export interface DeltaResponseWire {
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly DeltaResourceWire[];
  readonly removedResources: readonly string[];
}

/** Reads an envoy.service.discovery.v3.DeltaDiscoveryResponse. */
export function readDeltaDiscoveryResponse(bytes: Uint8Array): DeltaResponseWire {
  const buf = asBuffer(bytes);
  let typeUrl = '';
  let nonce = '';
  const resources: DeltaResourceWire[] = [];
  const removedResources: string[] = [];
  for (const f = new Fields(buf, 0, buf.length); f.next(); ) {
    if (f.wire !== 2) continue;
    if (f.number === 2) resources.push(deltaResource(buf, f.start, f.end));
    else if (f.number === 4) typeUrl = text(buf, f);
    else if (f.number === 5) nonce = text(buf, f);
    else if (f.number === 6) removedResources.push(text(buf, f));
  }
  return { typeUrl, nonce, resources, removedResources };
}

function deltaResource(buf: Buffer, from: number, to: number): DeltaResourceWire {
  let name = '';
  let body: Buffer | undefined;
  for (const f = new Fields(buf, from, to); f.next(); ) {
    if (f.wire !== 2) continue;
    if (f.number === 3) name = text(buf, f);
    else if (f.number === 2) body = anyValue(buf, f.start, f.end);
  }
  return { name, body };
}

/** The string in field 1 of an encoded message (the `name` of Listener/Cluster/RouteConfiguration, CLA `cluster_name`). */
export function leadingName(bytes: Uint8Array): string {
  const body = asBuffer(bytes);
  for (const f = new Fields(body, 0, body.length); f.next(); ) if (f.number === 1 && f.wire === 2) return text(body, f);
  return '';
}

/**
 * The endpoint names an encoded Cluster asks EDS for: `eds_cluster_config.service_name` (field 3, then 2), or the
 * cluster's own name (`nameOf`, read only then) when that is empty; none when the cluster is not an EDS cluster.
 */
export function edsNamesOfCluster(bytes: Uint8Array, nameOf: () => string): readonly string[] {
  const body = asBuffer(bytes);
  let eds: string | undefined;
  for (const f = new Fields(body, 0, body.length); f.next(); ) {
    if (f.number !== 3 || f.wire !== 2) continue;
    eds = '';
    for (const g = new Fields(body, f.start, f.end); g.next(); ) if (g.number === 2 && g.wire === 2) eds = text(body, g);
  }
  return eds === undefined ? [] : [eds || nameOf()];
}
