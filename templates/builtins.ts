/**
 * text/template's built-in functions (`and or not len index slice print printf println eq ne lt le
 * gt ge html js urlquery call`), with Go's semantics and error messages.
 */
import { sprint, sprintf, sprintln } from './go-fmt.js';
import {
  GoComplex, GoFunction, GoInt, GoStruct, type GoValue, byteLength, compareStrings, isMap, isTrue, mapValueType, sliceElemType,
  typeName, typedSlice, zeroOf,
} from './go-value.js';
import { AND_OR, CALL } from './exec.js';

type Kind = 'invalid' | 'bool' | 'int' | 'uint' | 'float' | 'complex' | 'string' | 'other';

function basicKind(v: GoValue): Kind {
  if (v === undefined || v === null) return 'invalid';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'string') return 'string';
  if (v instanceof GoInt) return v.unsigned ? 'uint' : 'int';
  if (v instanceof GoComplex) return 'complex';
  return 'other';
}

function numeric(v: GoValue): number {
  return v instanceof GoInt ? v.value : (v as number);
}

/** Go's `eq`: true if arg1 equals any of the others (basic kinds only, ints and uints compare). */
export function eq(arg1: GoValue, ...rest: GoValue[]): boolean {
  if (rest.length === 0) throw new Error('missing argument for comparison');
  const k1 = basicKind(arg1);
  for (const arg of rest) {
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) truth = numeric(arg1) === numeric(arg);
      else if (arg1 !== undefined && arg1 !== null && arg !== undefined && arg !== null) {
        throw new Error(`incompatible types for comparison: ${typeName(arg1)} and ${typeName(arg)}`);
      }
    } else if (k1 === 'other' || k1 === 'invalid') {
      const n1 = arg1 === undefined || arg1 === null;
      const n2 = arg === undefined || arg === null;
      if (!n1 && !n2 && (Array.isArray(arg1) || isMap(arg1) || arg1 instanceof GoFunction)) {
        throw new Error(`non-comparable type ${sprintf('%s', [arg1])}: ${typeName(arg1)}`);
      }
      if (!n1 && !n2 && typeName(arg1) !== typeName(arg)) throw new Error(`incompatible types for comparison: ${typeName(arg1)} and ${typeName(arg)}`);
      truth = n1 || n2 ? n1 === n2 : arg1 === arg || (arg1 instanceof GoStruct && sprint([arg1]) === sprint([arg]));
    } else if (k1 === 'int' || k1 === 'uint') truth = numeric(arg1) === numeric(arg);
    else if (k1 === 'complex') truth = (arg1 as GoComplex).re === (arg as GoComplex).re && (arg1 as GoComplex).im === (arg as GoComplex).im;
    else truth = arg1 === arg;
    if (truth) return true;
  }
  return false;
}

/** Go's `lt`. */
export function lt(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === 'invalid' || k1 === 'other' || k2 === 'invalid' || k2 === 'other') throw new Error('invalid type for comparison');
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return numeric(a) < numeric(b);
    throw new Error(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
  }
  if (k1 === 'bool' || k1 === 'complex') throw new Error('invalid type for comparison');
  if (k1 === 'string') return compareStrings(a as string, b as string) < 0;
  return numeric(a) < numeric(b);
}

function indexArg(index: GoValue, cap: number): number {
  if (index === undefined || index === null) throw new Error('cannot index slice/array with nil');
  if (!(index instanceof GoInt)) throw new Error(`cannot index slice/array with type ${typeName(index)}`);
  if (index.value < 0 || index.value > cap) throw new Error(`index out of range: ${index.value}`);
  return index.value;
}

/** Go's `index`. */
export function index(item: GoValue, ...indexes: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new Error('index of untyped nil');
  let cur: GoValue = item;
  for (const idx of indexes) {
    if (cur === null || cur === undefined) throw new Error('index of nil pointer');
    if (typeof cur === 'string') {
      const bytes: Buffer = Buffer.from(cur, "utf8");
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new Error(`index out of range: ${x}`);
      cur = new GoInt(bytes[x], 'uint8');
    } else if (Array.isArray(cur)) {
      const x = indexArg(idx, cur.length);
      if (x === cur.length) throw new Error(`index out of range: ${x}`);
      cur = cur[x];
    } else if (isMap(cur)) {
      if (idx === undefined || idx === null) throw new Error('value is nil; should be of type string');
      if (typeof idx !== 'string') throw new Error(`value has type ${typeName(idx)}; should be string`);
      cur = Object.hasOwn(cur, idx) ? cur[idx] : zeroOf(mapValueType(cur));
      if (cur === undefined) cur = null;
    } else throw new Error(`can't index item of type ${typeName(cur)}`);
  }
  return cur;
}

/** Go's `slice`. */
export function slice(item: GoValue, ...indexes: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new Error('slice of untyped nil');
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (typeof item === 'string') {
    if (indexes.length === 3) throw new Error('cannot 3-index slice a string');
    len = byteLength(item);
  } else if (Array.isArray(item)) len = item.length;
  else throw new Error(`can't slice item of type ${typeName(item)}`);
  const idx = [0, len];
  indexes.forEach((x, i) => (idx[i] = indexArg(x, len)));
  if (idx[0] > idx[1]) throw new Error(typeof item === 'string' ? 'reflect.Value.Slice: string slice index out of bounds' : 'reflect.Value.Slice: slice index out of bounds');
  if (indexes.length === 3 && idx[1] > idx[2]) throw new Error(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (typeof item === 'string') return Buffer.from(item, 'utf8').subarray(idx[0], idx[1]).toString('utf8');
  return typedSlice(sliceElemType(item), item.slice(idx[0], idx[1]));
}

/** Go's `len`. */
export function length(item: GoValue): GoValue {
  if (item === null) throw new Error('len of nil pointer');
  if (item === undefined) throw new Error('reflect: call of reflect.Value.Type on zero Value');
  if (typeof item === 'string') return new GoInt(byteLength(item));
  if (Array.isArray(item)) return new GoInt(item.length);
  if (isMap(item)) return new GoInt(Object.keys(item).length);
  throw new Error(`len of type ${typeName(item)}`);
}

function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args);
}

/** Go's `template.HTMLEscapeString`. */
export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** Go's `template.JSEscapeString`. */
export function jsEscape(s: string): string {
  let out = '';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    switch (c) {
      case '\\': out += '\\\\'; continue;
      case "'": out += "\\'"; continue;
      case '"': out += '\\"'; continue;
      case '<': out += '\\u003C'; continue;
      case '>': out += '\\u003E'; continue;
      case '&': out += '\\u0026'; continue;
      case '=': out += '\\u003D'; continue;
    }
    if (cp < 0x80) {
      out += cp < 0x20 || cp === 0x7f ? '\\u' + cp.toString(16).toUpperCase().padStart(4, '0') : c;
    } else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c)) out += c;
    else out += '\\u' + cp.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** Go's `url.QueryEscape`. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

const R = 'reflect.Value' as const;
const ANY = 'interface {}' as const;

/** The built-in function table. */
export function builtinFunctions(): Record<string, GoFunction> {
  return {
    and: AND_OR.and,
    or: AND_OR.or,
    call: CALL,
    not: new GoFunction([R], (a) => !isTrue(a)),
    len: new GoFunction([R], length, undefined, true),
    index: new GoFunction([R], index, R, true),
    slice: new GoFunction([R], slice, R, true),
    print: new GoFunction([], (...a) => sprint(a), ANY),
    printf: new GoFunction(['string'], (f, ...a) => sprintf(f as string, a), ANY),
    println: new GoFunction([], (...a) => sprintln(a), ANY),
    eq: new GoFunction([R], eq, R, true),
    ne: new GoFunction([R, R], (a, b) => !eq(a, b), undefined, true),
    lt: new GoFunction([R, R], lt, undefined, true),
    le: new GoFunction([R, R], (a, b) => lt(a, b) || eq(a, b), undefined, true),
    gt: new GoFunction([R, R], (a, b) => !lt(a, b) && !eq(a, b), undefined, true),
    ge: new GoFunction([R, R], (a, b) => !lt(a, b), undefined, true),
    html: new GoFunction([], (...a) => htmlEscape(evalArgs(a)), ANY),
    js: new GoFunction([], (...a) => jsEscape(evalArgs(a)), ANY),
    urlquery: new GoFunction([], (...a) => queryEscape(evalArgs(a)), ANY),
  };
}
