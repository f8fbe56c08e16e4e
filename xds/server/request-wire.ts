/**
 * A DiscoveryRequest decoder that reads the resource names lazily. Most SotW requests are ACKs that repeat
 * the names of the previous request (a sidecar's EDS ACK names every cluster), so the decoder keeps those
 * names' raw bytes (`resourceNamesKey`) for a byte comparison and turns them into strings only when asked.
 * Given name runs seen before (those the stream's watches were set by, and those other streams in the same state
 * sent: sotw.ts), a request that repeats one of them is not walked name by name: one comparison finds the run, and
 * its key is the known one.
 */
import { isUtf8 } from 'node:buffer';
import { lookupType } from '../protos/index.js';
import type { DiscoveryRequest, NodeMessage, StatusMessage } from './wire.js';

/** A malformed request (what is wrong and at which byte). */
export class RequestDecodeError extends Error {}

const enum Wire {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2,
  Fixed32 = 5,
}

/** Field numbers of envoy.service.discovery.v3.DiscoveryRequest. */
const enum Field {
  VersionInfo = 1,
  Node = 2,
  ResourceNames = 3,
  TypeUrl = 4,
  ResponseNonce = 5,
  ErrorDetail = 6,
}

/** A DiscoveryRequest whose names are decoded on first use. */
class LazyDiscoveryRequest implements DiscoveryRequest {
  versionInfo = '';
  node: NodeMessage | null = null;
  typeUrl = '';
  responseNonce = '';
  errorDetail: StatusMessage | null = null;
  #names: readonly string[] | undefined;
  constructor(
    private readonly bytes: Buffer,
    /**
     * Per resource_names record, in order: where the record starts, where its string starts and ends (in `bytes`);
     * undefined when the names are a known run: then they are read from the key (itself a request of those records).
     */
    private readonly ranges: number[] | undefined,
    /** The resource_names records as on the wire (tags, lengths, bytes): equal keys, equal name lists. */
    readonly resourceNamesKey: Buffer,
  ) {}

  get resourceNames(): readonly string[] {
    if (this.#names) return this.#names;
    if (!this.ranges) return (this.#names = decodeDiscoveryRequestLazily(this.resourceNamesKey).resourceNames);
    const names: string[] = [];
    for (let i = 0; i < this.ranges.length; i += 3) names.push(this.bytes.toString('utf8', this.ranges[i + 1], this.ranges[i + 2]));
    return (this.#names = names);
  }
}

/**
 * Decodes a DiscoveryRequest (throws RequestDecodeError on malformed bytes: truncated fields, bad wire
 * types, strings that are not UTF-8). `node` and `error_detail` go through protobufjs.
 * `knownRuns`: resource_names runs (keys) of earlier requests, each once decoded from a request and so well formed.
 * When this request's names are exactly one of them, that key is its key.
 */
export function decodeDiscoveryRequestLazily(input: Uint8Array, knownRuns: readonly Uint8Array[] = []): DiscoveryRequest {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let known: Buffer | undefined;
  const ranges: number[] = [];
  const scalars: { [F in Field]?: [number, number] } = {};
  let namesStart = -1;
  let namesEnd = -1;
  let contiguous = true;
  let allShort = true;
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= bytes.length) throw new RequestDecodeError(`DiscoveryRequest: truncated varint at byte ${pos}`);
      const b = bytes[pos++];
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new RequestDecodeError(`DiscoveryRequest: varint longer than 10 bytes at byte ${pos}`);
    }
  };
  while (pos < bytes.length) {
    const recordStart = pos;
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 0) throw new RequestDecodeError(`DiscoveryRequest: field number 0 at byte ${recordStart}`);
    if (field === Field.ResourceNames && wire === Wire.Bytes) {
      // NOTE: a further names record after a known run: the names are not that run; walk them all.
      if (known) return decodeDiscoveryRequestLazily(input);
      if (namesStart < 0 && (known = knownRunAt(bytes, recordStart, knownRuns))) {
        namesStart = recordStart;
        pos = namesEnd = recordStart + known.length;
        continue;
      }
    }
    if (wire === Wire.Varint) {
      varint();
      continue;
    }
    if (wire === Wire.Fixed64 || wire === Wire.Fixed32) {
      pos += wire === Wire.Fixed64 ? 8 : 4;
      if (pos > bytes.length) throw new RequestDecodeError(`DiscoveryRequest: truncated field ${field} at byte ${recordStart}`);
      continue;
    }
    if (wire !== Wire.Bytes) throw new RequestDecodeError(`DiscoveryRequest: unsupported wire type ${wire} of field ${field} at byte ${recordStart}`);
    const len = varint();
    const start = pos;
    pos += len;
    if (pos > bytes.length) throw new RequestDecodeError(`DiscoveryRequest: field ${field} of ${len} bytes at byte ${recordStart} runs past the end (${bytes.length} bytes)`);
    if (field === Field.ResourceNames) {
      ranges.push(recordStart, start, pos);
      if (len >= 0x80) allShort = false;
      if (namesStart < 0) namesStart = recordStart;
      else if (namesEnd !== recordStart) contiguous = false;
      namesEnd = pos;
    } else if (field >= Field.VersionInfo && field <= Field.ErrorDetail) {
      // NOTE: as protobufjs (and proto3), the last occurrence of a singular field wins.
      scalars[field as Field] = [start, pos];
    }
  }
  let req: LazyDiscoveryRequest;
  if (known) req = new LazyDiscoveryRequest(bytes, undefined, known);
  else {
    const key = namesStart < 0 ? Buffer.alloc(0) : contiguous ? bytes.subarray(namesStart, namesEnd) : Buffer.concat(recordsOf(bytes, ranges));
    // NOTE: with one-byte tags and lengths (both ASCII), the records are valid UTF-8 together exactly when
    // each name is: one native check instead of one per name.
    if (!(contiguous && allShort && isUtf8(key))) checkNames(bytes, ranges);
    req = new LazyDiscoveryRequest(bytes, ranges, key);
  }
  req.versionInfo = utf8Field(bytes, scalars[Field.VersionInfo], 'version_info');
  req.typeUrl = utf8Field(bytes, scalars[Field.TypeUrl], 'type_url');
  req.responseNonce = utf8Field(bytes, scalars[Field.ResponseNonce], 'response_nonce');
  const node = scalars[Field.Node];
  if (node) req.node = lookupType('envoy.config.core.v3.Node').decode(bytes.subarray(node[0], node[1])) as unknown as NodeMessage;
  const status = scalars[Field.ErrorDetail];
  if (status) req.errorDetail = lookupType('google.rpc.Status').decode(bytes.subarray(status[0], status[1])) as unknown as StatusMessage;
  return req;
}

/**
 * The known run that `bytes` holds from `start`, as a Buffer (the first that matches), if any. A match may still be
 * followed by more names records; the caller checks.
 */
function knownRunAt(bytes: Buffer, start: number, runs: readonly Uint8Array[]): Buffer | undefined {
  for (const run of runs) {
    if (run.length === 0 || start + run.length > bytes.length) continue;
    if (bytes.compare(run, 0, run.length, start, start + run.length) === 0) return Buffer.isBuffer(run) ? run : Buffer.from(run.buffer, run.byteOffset, run.byteLength);
  }
  return undefined;
}

function checkNames(bytes: Buffer, ranges: number[]): void {
  for (let i = 0; i < ranges.length; i += 3) {
    if (!isUtf8(bytes.subarray(ranges[i + 1], ranges[i + 2]))) throw new RequestDecodeError(`DiscoveryRequest: resource_names[${i / 3}] is not valid UTF-8`);
  }
}

function recordsOf(bytes: Buffer, ranges: number[]): Buffer[] {
  const parts: Buffer[] = [];
  for (let i = 0; i < ranges.length; i += 3) parts.push(bytes.subarray(ranges[i], ranges[i + 2]));
  return parts;
}

function utf8Field(bytes: Buffer, range: [number, number] | undefined, name: string): string {
  if (!range) return '';
  const slice = bytes.subarray(range[0], range[1]);
  if (!isUtf8(slice)) throw new RequestDecodeError(`DiscoveryRequest: ${name} is not valid UTF-8`);
  return slice.toString('utf8');
}
