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

/** One length-delimited or varint field of a message: its number, wire type, and where its payload lies. */
interface Field {
  number: number;
  wire: number;
  /** Payload start and end (length-delimited), or the varint's value in `start`. */
  start: number;
  end: number;
}

/**
 * Calls `visit` for each top-level field of `buf[from, to)` until it returns true; throws RangeError on malformed
 * bytes. `visit` gets one Field object, reused: copy what it keeps.
 */
function eachField(buf: Uint8Array, from: number, to: number, visit: (f: Field) => boolean | void): void {
  let i = from;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (i >= to) throw new RangeError('truncated varint');
      const b = buf[i++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  const f: Field = { number: 0, wire: 0, start: 0, end: 0 };
  while (i < to) {
    const key = varint();
    f.number = Math.floor(key / 8);
    f.wire = key & 7;
    if (f.wire === 0) {
      f.start = varint();
      f.end = i;
    } else if (f.wire === 1 || f.wire === 5) {
      f.start = i;
      i += f.wire === 1 ? 8 : 4;
      f.end = i;
    } else if (f.wire === 2) {
      const len = varint();
      f.start = i;
      i += len;
      f.end = i;
    } else throw new RangeError(`unsupported wire type ${f.wire}`);
    if (i > to) throw new RangeError(`field ${f.number} runs past the end of its message`);
    if (visit(f) === true) return;
  }
}

const text = (buf: Buffer, f: Field): string => buf.toString('utf8', f.start, f.end);

/** `bytes` as a Buffer (a view, not a copy). */
const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** The `value` bytes of an encoded google.protobuf.Any (empty when it has none). */
function anyValue(buf: Buffer, from: number, to: number): Buffer {
  let value = buf.subarray(0, 0);
  eachField(buf, from, to, (f) => {
    if (f.number === 2 && f.wire === 2) value = buf.subarray(f.start, f.end);
  });
  return value;
}

/** The fields of a DiscoveryResponse a client reads. */
export interface SotwResponseWire {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  /** Each resource's body (the Any's value). */
  readonly bodies: readonly Buffer[];
}

/** Reads an envoy.service.discovery.v3.DiscoveryResponse. */
export function readDiscoveryResponse(bytes: Uint8Array): SotwResponseWire {
  const buf = asBuffer(bytes);
  let versionInfo = '';
  let typeUrl = '';
  let nonce = '';
  const bodies: Buffer[] = [];
  eachField(buf, 0, buf.length, (f) => {
    if (f.wire !== 2) return;
    if (f.number === 1) versionInfo = text(buf, f);
    else if (f.number === 2) bodies.push(anyValue(buf, f.start, f.end));
    else if (f.number === 4) typeUrl = text(buf, f);
    else if (f.number === 5) nonce = text(buf, f);
  });
  return { versionInfo, typeUrl, nonce, bodies };
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
  eachField(buf, 0, buf.length, (f) => {
    if (f.wire !== 2) return;
    if (f.number === 2) resources.push(deltaResource(buf, f.start, f.end));
    else if (f.number === 4) typeUrl = text(buf, f);
    else if (f.number === 5) nonce = text(buf, f);
    else if (f.number === 6) removedResources.push(text(buf, f));
  });
  return { typeUrl, nonce, resources, removedResources };
}

function deltaResource(buf: Buffer, from: number, to: number): DeltaResourceWire {
  let name = '';
  let body: Buffer | undefined;
  eachField(buf, from, to, (f) => {
    if (f.wire !== 2) return;
    if (f.number === 3) name = text(buf, f);
    else if (f.number === 2) body = anyValue(buf, f.start, f.end);
  });
  return { name, body };
}

/** The string in field 1 of an encoded message (the `name` of Listener/Cluster/RouteConfiguration, CLA `cluster_name`). */
export function leadingName(bytes: Uint8Array): string {
  const body = asBuffer(bytes);
  let name = '';
  eachField(body, 0, body.length, (f) => {
    if (f.number !== 1 || f.wire !== 2) return false;
    name = text(body, f);
    return true;
  });
  return name;
}

/**
 * The endpoint names an encoded Cluster asks EDS for: `eds_cluster_config.service_name` (field 3, then 2), or the
 * cluster's own name when that is empty; none when the cluster is not an EDS cluster.
 */
export function edsNamesOfCluster(bytes: Uint8Array, name: string): readonly string[] {
  const body = asBuffer(bytes);
  let eds: string | undefined;
  eachField(body, 0, body.length, (f) => {
    if (f.number !== 3 || f.wire !== 2) return;
    eds = '';
    eachField(body, f.start, f.end, (g) => {
      if (g.number === 2 && g.wire === 2) eds = text(body, g);
    });
  });
  return eds === undefined ? [] : [eds || name];
}
