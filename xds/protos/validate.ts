/**
 * Checks an Envoy message against the protoc-gen-validate rules of its .proto files (the way Envoy
 * validates config it receives), after a shape check of plain objects (unknown or misspelled fields,
 * wrong value kinds, several members of one oneof). Any contents are decoded and checked too.
 */
import protobuf from 'protobufjs';
import { decodeMessage, encode, ProtoCodecError } from './codec.js';
import { lookupType } from './root.js';
import {
  checkBytes,
  checkDuration,
  checkEnum,
  checkNumber,
  checkRepeated,
  checkString,
  num,
  type Rules,
  type ValidationIssue,
} from './validate-rules.js';

export type { ValidationIssue } from './validate-rules.js';

/** Thrown by `assertValid`: lists every broken rule with its field path. */
export class ProtoValidationError extends Error {
  constructor(
    readonly typeName: string,
    readonly issues: readonly ValidationIssue[],
  ) {
    super(`${typeName} is invalid: ${issues.map((i) => `${i.path || '<root>'}: ${i.message}`).join('; ')}`);
    this.name = 'ProtoValidationError';
  }
}

type Msg = Record<string, unknown>;
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const NUMERIC_RULE_KEY: Record<string, string> = {
  int32: 'int32', int64: 'int64', uint32: 'uint32', uint64: 'uint64', sint32: 'sint32', sint64: 'sint64',
  fixed32: 'fixed32', fixed64: 'fixed64', sfixed32: 'sfixed32', sfixed64: 'sfixed64', double: 'double', float: 'float',
};
const WRAPPER_RULE_KEY: Record<string, string> = {
  'google.protobuf.DoubleValue': 'double', 'google.protobuf.FloatValue': 'float', 'google.protobuf.Int64Value': 'int64',
  'google.protobuf.UInt64Value': 'uint64', 'google.protobuf.Int32Value': 'int32', 'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.BoolValue': 'bool', 'google.protobuf.StringValue': 'string', 'google.protobuf.BytesValue': 'bytes',
};

const rulesCache = new WeakMap<protobuf.Field, Rules>();
function fieldRules(field: protobuf.Field): Rules {
  let r = rulesCache.get(field);
  if (!r) {
    r = {};
    for (const o of field.parsedOptions ?? []) {
      const v = (o as Record<string, unknown>)['(validate.rules)'];
      if (v && typeof v === 'object') Object.assign(r, v);
    }
    rulesCache.set(field, r);
  }
  return r;
}

function sub(r: Rules, key: string): Rules | undefined {
  const v = r[key];
  return v && typeof v === 'object' ? (v as Rules) : undefined;
}

function fullName(t: protobuf.Type): string {
  return t.fullName.replace(/^\./, '');
}

/** Checks one singular value of a field against the field's rules, then recurses into messages. */
function checkValue(field: protobuf.Field, r: Rules, value: unknown, path: string, out: ValidationIssue[]): void {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Enum) {
    const er = sub(r, 'enum');
    if (er) checkEnum(er, num(value), rt.valuesById, path, out);
    return;
  }
  if (rt instanceof protobuf.Type) {
    const name = fullName(rt);
    const m = value as Msg;
    if (name === 'google.protobuf.Duration') {
      const dr = sub(r, 'duration');
      if (dr) checkDuration(dr, m, path, out);
      return;
    }
    const wrapped = WRAPPER_RULE_KEY[name];
    if (wrapped) {
      const wr = sub(r, wrapped);
      if (wr) checkScalar(wrapped, wr, m['value'] ?? rt.fields['value']!.typeDefault, path, out);
      return;
    }
    if (name === 'google.protobuf.Any') {
      checkAny(sub(r, 'any') ?? {}, m, path, out);
      return;
    }
    if (sub(r, 'message')?.['skip'] === true) return;
    checkMessage(rt, m, path, out);
    return;
  }
  const key = NUMERIC_RULE_KEY[field.type] ?? field.type;
  const sr = sub(r, key);
  if (sr) checkScalar(key, sr, value, path, out);
}

function checkScalar(kind: string, r: Rules, value: unknown, path: string, out: ValidationIssue[]): void {
  if (kind === 'string') checkString(r, String(value ?? ''), path, out);
  else if (kind === 'bytes') checkBytes(r, (value as Uint8Array | undefined) ?? new Uint8Array(), path, out);
  else if (kind === 'bool') {
    if (r['const'] !== undefined && Boolean(value) !== r['const']) out.push({ path, message: `value must be ${String(r['const'])}` });
  } else checkNumber(r, num(value ?? 0), path, out);
}

function checkAny(r: Rules, m: Msg, path: string, out: ValidationIssue[]): void {
  const url = String(m['type_url'] ?? '');
  const ins = Array.isArray(r['in']) ? (r['in'] as string[]) : [];
  if (ins.length > 0 && !ins.includes(url)) out.push({ path, message: `type URL must be one of [${ins.join(', ')}] (got "${url}")` });
  if (Array.isArray(r['not_in']) && (r['not_in'] as string[]).includes(url)) out.push({ path, message: `type URL "${url}" is not allowed` });
  let inner: protobuf.Type;
  try {
    inner = lookupType(url);
  } catch {
    out.push({ path, message: `unknown Any type "${url}"` });
    return;
  }
  let decoded: Msg;
  try {
    decoded = inner.decode((m['value'] as Uint8Array | undefined) ?? new Uint8Array()) as unknown as Msg;
  } catch (e) {
    out.push({ path, message: `Any of type "${url}" does not decode: ${(e as Error).message}` });
    return;
  }
  checkMessage(inner, decoded, `${path}<${inner.name}>`, out);
}

function isPresent(m: Msg, field: protobuf.Field): boolean {
  if (!hasOwn(m, field.name)) return false;
  const v = m[field.name];
  if (v === undefined || v === null) return false;
  if (field.repeated) return (v as unknown[]).length > 0;
  if (field.map) return Object.keys(v as object).length > 0;
  return true;
}

function checkMessage(type: protobuf.Type, m: Msg, path: string, out: ValidationIssue[]): void {
  const opts = type.options ?? {};
  if (opts['(validate.disabled)'] === true || opts['(validate.ignored)'] === true) return;
  const prefix = path ? `${path}.` : '';
  for (const oneof of type.oneofsArray) {
    if (oneof.options?.['(validate.required)'] !== true) continue;
    if (!oneof.fieldsArray.some((f) => isPresent(m, f))) {
      out.push({ path: `${prefix}${oneof.name}`, message: `exactly one of (${oneof.oneof.join(', ')}) must be set` });
    }
  }
  for (const field of type.fieldsArray) {
    const r = fieldRules(field);
    const p = `${prefix}${field.name}`;
    const present = isPresent(m, field);
    if (field.map) {
      const obj = present ? (m[field.name] as Record<string, unknown>) : {};
      const mr = sub(r, 'map') ?? {};
      const n = Object.keys(obj).length;
      if (mr['min_pairs'] !== undefined && n < num(mr['min_pairs'])) out.push({ path: p, message: `must have at least ${num(mr['min_pairs'])} entries` });
      if (mr['max_pairs'] !== undefined && n > num(mr['max_pairs'])) out.push({ path: p, message: `must have at most ${num(mr['max_pairs'])} entries` });
      const keyRules = sub(sub(mr, 'keys') ?? {}, 'string');
      for (const [k, v] of Object.entries(obj)) {
        if (keyRules) checkString(keyRules, k, `${p}[${JSON.stringify(k)}] (key)`, out);
        checkValue(field, sub(mr, 'values') ?? {}, v, `${p}[${JSON.stringify(k)}]`, out);
      }
      continue;
    }
    if (field.repeated) {
      const items = present ? (m[field.name] as unknown[]) : [];
      const rr = sub(r, 'repeated') ?? {};
      checkRepeated(rr, items, p, out);
      const itemRules = sub(rr, 'items') ?? {};
      items.forEach((it, i) => {
        if (field.resolvedType instanceof protobuf.Type && sub(itemRules, 'message')?.['required'] === true && it == null) {
          out.push({ path: `${p}[${i}]`, message: 'is required' });
        }
        checkValue(field, itemRules, it, `${p}[${i}]`, out);
      });
      continue;
    }
    const isMessage = field.resolvedType instanceof protobuf.Type;
    if (!present) {
      const required = sub(r, 'message')?.['required'] === true || sub(r, 'duration')?.['required'] === true ||
        sub(r, 'timestamp')?.['required'] === true || sub(r, 'any')?.['required'] === true;
      if (isMessage && required && !field.partOf) out.push({ path: p, message: 'is required' });
      // NOTE: PGV checks proto3 scalars without presence at their zero value; members of a oneof
      // (and proto3 `optional`) only when set.
      if (isMessage || field.partOf) continue;
      checkValue(field, r, field.typeDefault, p, out);
      continue;
    }
    checkValue(field, r, m[field.name], p, out);
  }
}

/** Checks a plain object's keys and value kinds against the type (what protobufjs silently ignores). */
function checkShape(type: protobuf.Type, obj: unknown, path: string, out: ValidationIssue[]): void {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || obj instanceof Uint8Array) {
    out.push({ path, message: `expected an object for ${type.name}` });
    return;
  }
  const o = obj as Msg;
  const name = fullName(type);
  const prefix = path ? `${path}.` : '';
  if (name === 'google.protobuf.Any' && typeof o['@type'] === 'string') {
    let inner: protobuf.Type;
    try {
      inner = lookupType(o['@type']);
    } catch {
      out.push({ path: `${prefix}@type`, message: `unknown Any type "${o['@type']}"` });
      return;
    }
    const { '@type': _t, ...rest } = o;
    checkShape(inner, rest, `${path}<${inner.name}>`, out);
    return;
  }
  if (name === 'google.protobuf.Struct' || name === 'google.protobuf.Value' || name === 'google.protobuf.ListValue') return;
  for (const [k, v] of Object.entries(o)) {
    const field = type.fields[k];
    if (!field) {
      const camel = k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
      const hint = camel !== k && type.fields[camel] ? ` (use camelCase "${camel}")` : '';
      out.push({ path: `${prefix}${k}`, message: `unknown field of ${type.name}${hint}` });
      continue;
    }
    if (v === undefined || v === null) continue;
    const p = `${prefix}${k}`;
    if (field.map) {
      if (typeof v !== 'object' || Array.isArray(v)) out.push({ path: p, message: 'expected an object (map)' });
      else for (const [mk, mv] of Object.entries(v)) checkShapeValue(field, mv, `${p}[${JSON.stringify(mk)}]`, out);
    } else if (field.repeated) {
      if (!Array.isArray(v)) out.push({ path: p, message: 'expected an array' });
      else v.forEach((it, i) => checkShapeValue(field, it, `${p}[${i}]`, out));
    } else checkShapeValue(field, v, p, out);
  }
  for (const oneof of type.oneofsArray) {
    const set = oneof.oneof.filter((f) => o[f] !== undefined && o[f] !== null);
    if (set.length > 1) out.push({ path: `${prefix}${oneof.name}`, message: `only one of (${oneof.oneof.join(', ')}) may be set (got ${set.join(', ')})` });
  }
}

function checkShapeValue(field: protobuf.Field, v: unknown, path: string, out: ValidationIssue[]): void {
  const rt = field.resolvedType;
  if (rt instanceof protobuf.Type) return checkShape(rt, v, path, out);
  if (rt instanceof protobuf.Enum) {
    if (typeof v === 'string' ? rt.values[v] === undefined : typeof v !== 'number') {
      out.push({ path, message: `${JSON.stringify(v)} is not a value of enum ${rt.name} (${Object.keys(rt.values).join(', ')})` });
    }
    return;
  }
  const t = field.type;
  const ok =
    t === 'string' ? typeof v === 'string'
    : t === 'bool' ? typeof v === 'boolean'
    : t === 'bytes' ? v instanceof Uint8Array || typeof v === 'string'
    : typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'string' && /^-?\d+$/.test(v)) || (typeof v === 'object' && v !== null && 'low' in v);
  if (!ok) out.push({ path, message: `expected a ${t}, got ${typeof v}` });
}

/**
 * Every broken rule of `input` (a plain object in `encode`'s form, or encoded bytes) as the named type.
 * Empty when valid. Plain objects are shape-checked first; their rules are then checked on the encoded form.
 */
export function validate(typeName: string, input: object | Uint8Array): ValidationIssue[] {
  const type = lookupType(typeName);
  const out: ValidationIssue[] = [];
  let bytes: Uint8Array;
  if (input instanceof Uint8Array) bytes = input;
  else {
    checkShape(type, input, '', out);
    try {
      bytes = encode(typeName, input);
    } catch (e) {
      out.push({ path: '', message: e instanceof ProtoCodecError ? e.message : String(e) });
      return out;
    }
  }
  let m: protobuf.Message;
  try {
    m = decodeMessage(typeName, bytes);
  } catch (e) {
    out.push({ path: '', message: (e as Error).message });
    return out;
  }
  checkMessage(type, m as unknown as Msg, '', out);
  return out;
}

/** Throws ProtoValidationError when `validate` finds anything. */
export function assertValid(typeName: string, input: object | Uint8Array): void {
  const issues = validate(typeName, input);
  if (issues.length > 0) throw new ProtoValidationError(typeName, issues);
}
