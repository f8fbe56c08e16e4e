/**
 * Protobuf JSON of Envoy messages, in the form Envoy's `config_dump` prints: proto field names
 * (snake_case) by default, `google.protobuf.Any` expanded with `@type`, well-known types in their JSON
 * form (durations `"1.5s"`, wrappers as bare values, Struct as plain JSON), 64-bit integers as strings.
 */
import protobuf from 'protobufjs';
import { decodeMessage } from './codec.js';
import { lookupType } from './root.js';

/** Options of `toJson`. */
export interface ToJsonOptions {
  /** `proto` (default): snake_case as in the .proto files, like Envoy's config_dump; `json`: lowerCamelCase. */
  readonly fieldNames?: 'proto' | 'json';
}

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const snakeCache = new Map<string, string>();
function snake(name: string): string {
  let s = snakeCache.get(name);
  if (s === undefined) {
    s = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(name, s);
  }
  return s;
}

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const WRAPPERS = new Set([
  'google.protobuf.DoubleValue',
  'google.protobuf.FloatValue',
  'google.protobuf.Int64Value',
  'google.protobuf.UInt64Value',
  'google.protobuf.Int32Value',
  'google.protobuf.UInt32Value',
  'google.protobuf.BoolValue',
  'google.protobuf.StringValue',
  'google.protobuf.BytesValue',
]);

type Msg = Record<string, unknown>;

function base64(v: unknown): string {
  if (typeof v === 'string') return v;
  return Buffer.from(v as Uint8Array).toString('base64');
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

function scalarJson(type: string, v: unknown): JsonValue {
  if (LONG_TYPES.has(type)) return String(v);
  if (type === 'bytes') return base64(v);
  if (type === 'double' || type === 'float') {
    const n = num(v);
    return Number.isFinite(n) ? n : String(n);
  }
  return v as JsonValue;
}

function durationJson(m: Msg): string {
  const seconds = num(m['seconds'] ?? 0);
  const nanos = num(m['nanos'] ?? 0);
  if (nanos === 0) return `${seconds}s`;
  const sign = seconds < 0 || nanos < 0 ? '-' : '';
  let frac = String(Math.abs(nanos)).padStart(9, '0');
  frac = frac.endsWith('000000') ? frac.slice(0, 3) : frac.endsWith('000') ? frac.slice(0, 6) : frac;
  return `${sign}${Math.abs(seconds)}.${frac}s`;
}

function timestampJson(m: Msg): string {
  const ms = num(m['seconds'] ?? 0) * 1000;
  const nanos = num(m['nanos'] ?? 0);
  const iso = new Date(ms).toISOString().replace(/\.\d{3}Z$/, '');
  if (nanos === 0) return `${iso}Z`;
  return `${iso}.${String(nanos).padStart(9, '0').replace(/(000)+$/, '')}Z`;
}

function valueJson(m: Msg): JsonValue {
  if (m['nullValue'] !== undefined && Object.prototype.hasOwnProperty.call(m, 'nullValue')) return null;
  if (Object.prototype.hasOwnProperty.call(m, 'numberValue')) return num(m['numberValue']);
  if (Object.prototype.hasOwnProperty.call(m, 'stringValue')) return m['stringValue'] as string;
  if (Object.prototype.hasOwnProperty.call(m, 'boolValue')) return m['boolValue'] as boolean;
  if (Object.prototype.hasOwnProperty.call(m, 'structValue')) return structJson(m['structValue'] as Msg);
  if (Object.prototype.hasOwnProperty.call(m, 'listValue')) return listJson(m['listValue'] as Msg);
  return null;
}
function structJson(m: Msg): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries((m['fields'] as Record<string, Msg> | undefined) ?? {})) out[k] = valueJson(v);
  return out;
}
function listJson(m: Msg): JsonValue {
  return ((m['values'] as Msg[] | undefined) ?? []).map(valueJson);
}

function anyJson(m: Msg, opts: ToJsonOptions): JsonValue {
  const typeUrl = (m['type_url'] ?? m['typeUrl'] ?? '') as string;
  const value = (m['value'] ?? new Uint8Array()) as Uint8Array;
  let type: protobuf.Type;
  try {
    type = lookupType(typeUrl);
  } catch {
    return { '@type': typeUrl, value: base64(value) };
  }
  const inner = messageJson(type, type.decode(value) as unknown as Msg, opts);
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && !isSpecial(type.fullName)) {
    return { '@type': typeUrl, ...inner };
  }
  return { '@type': typeUrl, value: inner };
}

function isSpecial(fullName: string): boolean {
  const n = fullName.replace(/^\./, '');
  return WRAPPERS.has(n) || (n.startsWith('google.protobuf.') && n !== 'google.protobuf.Empty');
}

function fieldJson(field: protobuf.Field, v: unknown, opts: ToJsonOptions): JsonValue {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Enum) {
    const name = rt.valuesById[v as number];
    return name ?? (v as number);
  }
  if (rt instanceof protobuf.Type) return messageJson(rt, v as Msg, opts);
  return scalarJson(field.type, v);
}

function messageJson(type: protobuf.Type, m: Msg, opts: ToJsonOptions): JsonValue {
  const name = type.fullName.replace(/^\./, '');
  if (name === 'google.protobuf.Any') return anyJson(m, opts);
  if (name === 'google.protobuf.Duration') return durationJson(m);
  if (name === 'google.protobuf.Timestamp') return timestampJson(m);
  if (name === 'google.protobuf.Struct') return structJson(m);
  if (name === 'google.protobuf.Value') return valueJson(m);
  if (name === 'google.protobuf.ListValue') return listJson(m);
  if (WRAPPERS.has(name)) {
    const f = type.fields['value']!;
    return scalarJson(f.type, m['value'] ?? f.typeDefault);
  }
  const out: Record<string, JsonValue> = {};
  for (const field of type.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(m, field.name)) continue;
    const v = m[field.name];
    if (v === undefined || v === null) continue;
    const key = opts.fieldNames === 'json' ? field.name : snake(field.name);
    if (field.map) {
      const obj: Record<string, JsonValue> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) obj[k] = fieldJson(field, x, opts);
      if (Object.keys(obj).length > 0) out[key] = obj;
    } else if (field.repeated) {
      const arr = v as unknown[];
      if (arr.length > 0) out[key] = arr.map((x) => fieldJson(field, x, opts));
    } else {
      out[key] = fieldJson(field, v, opts);
    }
  }
  return out;
}

/**
 * The protobuf JSON of an encoded message (bytes) or of a protobufjs message of the named type.
 * Unknown Any types are kept as `{ '@type', value: <base64> }`.
 */
export function toJson(typeName: string, input: Uint8Array | protobuf.Message, opts: ToJsonOptions = {}): JsonValue {
  const type = lookupType(typeName);
  const m = input instanceof Uint8Array ? decodeMessage(typeName, input) : input;
  return messageJson(type, m as unknown as Msg, opts);
}

/** `toJson` of a `google.protobuf.Any`'s contents: `{ '@type': url, ...fields }`. */
export function anyToJson(typeUrl: string, bytes: Uint8Array, opts: ToJsonOptions = {}): JsonValue {
  return anyJson({ type_url: typeUrl, value: bytes }, opts);
}
