/**
 * Protobuf JSON (what Envoy reads: snake_case or lowerCamelCase names, durations as `"1.5s"`, wrappers
 * as bare values, Struct as plain JSON, Any with `@type`) to the plain-object form the proto codec and
 * validator take. Unknown fields, wrong kinds and unknown enum names are errors naming the JSON path,
 * so a bootstrap template that Envoy would reject is refused here with the same reason.
 */
import protobuf from 'protobufjs';
import { lookupType } from './xds-protos.js';

/** Thrown by `fromProtoJson`: `path` is the JSON path of the bad value (`static_resources.clusters[0]`). */
export class ProtoJsonError extends Error {
  override readonly name = 'ProtoJsonError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || '<root>'}: ${problem}`);
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const camel = (s: string): string => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const WRAPPERS = new Set(['DoubleValue', 'FloatValue', 'Int64Value', 'UInt64Value', 'Int32Value', 'UInt32Value', 'BoolValue', 'StringValue', 'BytesValue'].map((n) => `google.protobuf.${n}`));
const INTS = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64']);

/** Converts protobuf JSON of message type `typeName` to the codec's plain-object form. Throws `ProtoJsonError`. */
export function fromProtoJson(typeName: string, json: unknown): Record<string, unknown> {
  return message(lookupType(typeName), json as Json, '') as Record<string, unknown>;
}

function fullName(t: protobuf.Type): string {
  return t.fullName.replace(/^\./, '');
}

function duration(v: Json, path: string): { seconds: number; nanos: number } {
  const m = typeof v === 'string' ? /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(v) : null;
  if (!m) throw new ProtoJsonError(path, `${JSON.stringify(v)} is not a duration (use a number of seconds with an "s", like "1.5s")`);
  const sign = m[1] === '-' ? -1 : 1;
  return { seconds: sign * Number(m[2]), nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
}

function structValue(v: Json): Record<string, unknown> {
  if (v === null) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(structValue) } };
  return { structValue: struct(v) };
}

function struct(v: Record<string, Json>): Record<string, unknown> {
  return { fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, structValue(x)])) };
}

function message(t: protobuf.Type, v: Json, path: string): unknown {
  const name = fullName(t);
  if (name === 'google.protobuf.Duration') return duration(v, path);
  if (WRAPPERS.has(name)) return { value: scalar(t.fields['value']!, v, path) };
  if (name === 'google.protobuf.Struct') {
    if (!isObject(v)) throw new ProtoJsonError(path, 'expected a JSON object (google.protobuf.Struct)');
    return struct(v);
  }
  if (name === 'google.protobuf.Value') return structValue(v);
  if (name === 'google.protobuf.ListValue') {
    if (!Array.isArray(v)) throw new ProtoJsonError(path, 'expected a JSON array (google.protobuf.ListValue)');
    return { values: v.map(structValue) };
  }
  if (!isObject(v)) throw new ProtoJsonError(path, `expected a JSON object (${name}), got ${JSON.stringify(v)}`);
  if (name === 'google.protobuf.Any') {
    const url = v['@type'];
    if (typeof url !== 'string') throw new ProtoJsonError(path, 'google.protobuf.Any needs an "@type"');
    let inner: protobuf.Type;
    try {
      inner = lookupType(url);
    } catch {
      throw new ProtoJsonError(`${path}["@type"]`, `unknown type ${JSON.stringify(url)}`);
    }
    const { '@type': _, ...rest } = v;
    const special = /^google\.protobuf\.(Duration|Struct|Value|ListValue|\w+Value)$/.test(fullName(inner));
    const body = message(inner, special ? (rest['value'] ?? null) : rest, path);
    return { '@type': url, ...(body as Record<string, unknown>) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v)) {
    const fieldPath = path ? `${path}.${key}` : key;
    // NOTE: protobufjs camelCases only letters after "_" (trace_id_128bit -> traceId_128bit).
    const field = t.fields[camel(key)] ?? t.fields[key];
    if (!field) throw new ProtoJsonError(fieldPath, `unknown field of ${name}`);
    if (value === null) continue;
    out[field.name] = fieldValue(field, value, fieldPath);
  }
  return out;
}

function fieldValue(field: protobuf.Field, v: Json, path: string): unknown {
  if (field instanceof protobuf.MapField) {
    if (!isObject(v)) throw new ProtoJsonError(path, 'expected a JSON object (map)');
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, single(field, x, `${path}.${k}`)]));
  }
  if (field.repeated) {
    if (!Array.isArray(v)) throw new ProtoJsonError(path, 'expected a JSON array (repeated field)');
    return v.map((x, i) => single(field, x, `${path}[${i}]`));
  }
  return single(field, v, path);
}

function single(field: protobuf.Field, v: Json, path: string): unknown {
  field.resolve();
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Type) return message(rt, v, path);
  if (rt instanceof protobuf.Enum) {
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && v in rt.values) return v;
    throw new ProtoJsonError(path, `${JSON.stringify(v)} is not a value of ${rt.fullName.replace(/^\./, '')} (one of ${Object.keys(rt.values).join(', ')})`);
  }
  return scalar(field, v, path);
}

function scalar(field: protobuf.Field, v: Json, path: string): unknown {
  const type = field.type;
  if (type === 'string') {
    if (typeof v !== 'string') throw new ProtoJsonError(path, `expected a string, got ${JSON.stringify(v)}`);
    return v;
  }
  if (type === 'bool') {
    if (typeof v !== 'boolean') throw new ProtoJsonError(path, `expected true or false, got ${JSON.stringify(v)}`);
    return v;
  }
  if (type === 'bytes') {
    if (typeof v !== 'string') throw new ProtoJsonError(path, 'expected base64 text (bytes)');
    return v;
  }
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n)) throw new ProtoJsonError(path, `expected a number (${type}), got ${JSON.stringify(v)}`);
  if (INTS.has(type) && !Number.isInteger(n)) throw new ProtoJsonError(path, `expected a whole number (${type}), got ${JSON.stringify(v)}`);
  if (type.startsWith('uint') || type.startsWith('fixed')) {
    if (n < 0) throw new ProtoJsonError(path, `expected a non-negative number (${type}), got ${JSON.stringify(v)}`);
  }
  return n;
}
