// A small DER (ASN.1 Distinguished Encoding Rules) writer and reader: just what X.509 certificates and
// PKCS#10 requests need. NOTE: hand-written instead of node-forge because forge's ASN.1 objects and
// binary strings cost more than the native RSA signature they wrap (see shared/notes/performance-facts.md).

/** ASN.1 universal tags used by X.509 and PKCS#10 (constructed bit included where it applies). */
export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Thrown when DER input is malformed; the message names what was expected and the byte offset. */
export class DerError extends Error {
  override readonly name = 'DerError';
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** Encodes one TLV: `tag`, definite length, then the concatenated `content` parts. */
export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = content.length === 1 ? content[0]! : Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

/** SEQUENCE of already-encoded elements. */
export function sequence(...elements: Buffer[]): Buffer {
  return tlv(TAG.SEQUENCE, ...elements);
}

/** SET of already-encoded elements (DER order: sorted by encoding). */
export function set(...elements: Buffer[]): Buffer {
  return tlv(TAG.SET, ...[...elements].sort(Buffer.compare));
}

/** Context-specific tag `[n]`; constructed (explicit) by default. */
export function contextTag(n: number, constructed: boolean, ...content: Buffer[]): Buffer {
  return tlv((constructed ? 0xa0 : 0x80) | n, ...content);
}

/** INTEGER from unsigned big-endian bytes (adds a leading zero when the high bit is set). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && (bytes[start + 1]! & 0x80) === 0) start++;
  const trimmed = bytes.subarray(start);
  return (trimmed[0]! & 0x80) !== 0 ? tlv(TAG.INTEGER, Buffer.from([0]), trimmed) : tlv(TAG.INTEGER, trimmed);
}

/** INTEGER from a small non-negative number. */
export function smallInteger(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new DerError(`smallInteger: ${n} is not a non-negative safe integer`);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return unsignedInteger(Buffer.from(bytes.length === 0 ? [0] : bytes));
}

/** BOOLEAN. */
export function boolean(value: boolean): Buffer {
  return tlv(TAG.BOOLEAN, Buffer.from([value ? 0xff : 0x00]));
}

/** NULL. */
export const NULL = Buffer.from([TAG.NULL, 0]);

/** BIT STRING with `unusedBits` padding bits in the last byte. */
export function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(TAG.BIT_STRING, Buffer.from([unusedBits]), bytes);
}

/** OCTET STRING. */
export function octetString(bytes: Buffer): Buffer {
  return tlv(TAG.OCTET_STRING, bytes);
}

const oidCache = new Map<string, Buffer>();

/** OBJECT IDENTIFIER from dotted text, e.g. `2.5.29.17` (encodings are cached). */
export function oid(dotted: string): Buffer {
  const cached = oidCache.get(dotted);
  if (cached) return cached;
  const arcs = dotted.split('.').map((a) => Number(a));
  if (arcs.length < 2 || arcs.some((a) => !Number.isSafeInteger(a) || a < 0)) throw new DerError(`oid: bad OID "${dotted}"`);
  const bytes: number[] = [];
  for (const arc of [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)]) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  const encoded = tlv(TAG.OID, Buffer.from(bytes));
  oidCache.set(dotted, encoded);
  return encoded;
}

/** A string type with the given tag (UTF8String, PrintableString, IA5String). */
export function stringOf(tag: number, text: string): Buffer {
  return tlv(tag, Buffer.from(text, tag === TAG.UTF8_STRING ? 'utf8' : 'latin1'));
}

/** X.509 Time: UTCTime for years 1950-2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const year = date.getUTCFullYear();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  if (year >= 1950 && year < 2050) return tlv(TAG.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`, 'latin1'));
  return tlv(TAG.GENERALIZED_TIME, Buffer.from(`${digits}Z`, 'latin1'));
}

/** One decoded TLV: its tag, the content bytes, and the whole element's bytes. */
export interface DerElement {
  readonly tag: number;
  readonly content: Buffer;
  readonly raw: Buffer;
}

/** Reads the TLV at `offset` of `buf`; throws `DerError` naming `what` when malformed. */
export function readElement(buf: Buffer, offset: number, what: string): DerElement {
  if (offset + 2 > buf.length) throw new DerError(`${what}: truncated at byte ${offset}`);
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`${what}: multi-byte tags are not supported (byte ${offset})`);
  let length = buf[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError(`${what}: unsupported length form at byte ${offset + 1}`);
    if (offset + 2 + count > buf.length) throw new DerError(`${what}: truncated length at byte ${offset + 1}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[offset + 2 + i]!;
    header += count;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new DerError(`${what}: element at byte ${offset} runs past the end of its container`);
  return { tag, content: buf.subarray(offset + header, end), raw: buf.subarray(offset, end) };
}

/** Decodes the single element that must fill `buf` exactly. */
export function readOne(buf: Buffer, what: string, expectedTag?: number): DerElement {
  const el = readElement(buf, 0, what);
  if (el.raw.length !== buf.length) throw new DerError(`${what}: ${buf.length - el.raw.length} trailing bytes`);
  if (expectedTag !== undefined && el.tag !== expectedTag) {
    throw new DerError(`${what}: expected tag 0x${expectedTag.toString(16)}, got 0x${el.tag.toString(16)}`);
  }
  return el;
}

/** Decodes the children of a constructed element. */
export function children(el: DerElement, what: string): DerElement[] {
  const out: DerElement[] = [];
  for (let offset = 0; offset < el.content.length; ) {
    const child = readElement(el.content, offset, what);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

/**
 * Decodes an OBJECT IDENTIFIER's content bytes to dotted text. `el` may be missing (an empty SEQUENCE where one
 * was expected): that is malformed DER like any other wrong element.
 */
export function decodeOid(el: DerElement | undefined, what: string): string {
  if (el?.tag !== TAG.OID || el.content.length === 0) throw new DerError(`${what}: expected an OBJECT IDENTIFIER${el ? '' : ', found nothing'}`);
  const subids: number[] = [];
  let value = 0;
  for (const byte of el.content) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      subids.push(value);
      value = 0;
    }
  }
  const first = subids[0]!;
  const arcs = [first < 80 ? Math.floor(first / 40) : 2, first < 80 ? first % 40 : first - 80, ...subids.slice(1)];
  return arcs.join('.');
}

/** Decodes UTCTime or GeneralizedTime (the `Z` forms X.509 uses). */
export function decodeTime(el: DerElement, what: string): Date {
  const text = el.content.toString('latin1');
  const m = el.tag === TAG.UTC_TIME ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : el.tag === TAG.GENERALIZED_TIME ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : null;
  if (!m) throw new DerError(`${what}: expected UTCTime or GeneralizedTime, got "${text}"`);
  let year = Number(m[1]);
  if (el.tag === TAG.UTC_TIME) year += year >= 50 ? 1900 : 2000;
  return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
}

/** PEM-armours DER bytes with the given label (64-column base64). */
export function toPem(der: Buffer, label: string): string {
  const b64 = der.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Compiled once per label (matchAll works on a copy, so sharing a global RegExp is safe). */
const pemPatterns = new Map<string, RegExp>();

/** Every PEM block of `text` with `label` (e.g. `CERTIFICATE`), decoded to DER, in order. */
export function fromPemAll(text: string, label: string): Buffer[] {
  let re = pemPatterns.get(label);
  if (!re) {
    re = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]*?)-----END ${label}-----`, 'g');
    pemPatterns.set(label, re);
  }
  return [...text.matchAll(re)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
}
