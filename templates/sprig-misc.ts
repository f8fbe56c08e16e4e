/** Sprig's defaults/logic, math, type, encoding and semver functions. */
import { marshalJSON, unmarshalJSON } from './go-json.js';
import { GoFunction, GoInt, GoStruct, type GoValue, isMap, kindName, typeName } from './go-value.js';
import { castToNumber } from './sprig-strings.js';
import { semverCompare } from './semver.js';

const ANY = 'interface {}' as const;
const fn = (params: GoFunction['params'], f: GoFunction['fn'], variadic?: GoFunction['variadic'], err = false): GoFunction =>
  new GoFunction(params, f, variadic, err);

/** Sprig's `empty`: nil, zero numbers, false, and empty strings, lists and maps. */
export function empty(v: GoValue): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.length === 0;
  if (typeof v === 'boolean') return !v;
  if (typeof v === 'number') return v === 0;
  if (v instanceof GoInt) return v.value === 0;
  if (v instanceof GoStruct || v instanceof GoFunction) return false;
  if (Array.isArray(v)) return v.length === 0;
  return isMap(v) && Object.keys(v).length === 0;
}

const i64 = (v: GoValue): number => castToNumber(v, true);
const I64 = (n: number): GoInt => new GoInt(n, 'int64');

function roundHalfAwayFromZero(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** Sprig's defaults, math, type, encoding and semver functions. */
export function sprigMiscFunctions(): Record<string, GoFunction> {
  return {
    default: fn([ANY], (d, ...given) => (given.length === 0 || empty(given[0]) ? d : given[0]), ANY),
    empty: fn([ANY], empty),
    coalesce: fn([], (...vs) => vs.find((v) => !empty(v)) ?? null, ANY),
    all: fn([], (...vs) => vs.every((v) => !empty(v)), ANY),
    any: fn([], (...vs) => vs.some((v) => !empty(v)), ANY),
    ternary: fn([ANY, ANY, 'bool'], (t, f, c) => (c ? t : f)),
    fail: fn(['string'], (m) => { throw new Error(m as string); }, undefined, true),
    add: fn([], (...xs) => I64(xs.reduce<number>((a, x) => a + i64(x), 0)), ANY),
    add1: fn([ANY], (x) => I64(i64(x) + 1)),
    sub: fn([ANY, ANY], (a, b) => I64(i64(a) - i64(b))),
    mul: fn([ANY], (a, ...xs) => I64(xs.reduce<number>((acc, x) => acc * i64(x), i64(a))), ANY),
    div: fn([ANY, ANY], (a, b) => {
      if (i64(b) === 0) throw new Error('runtime error: integer divide by zero');
      return I64(Math.trunc(i64(a) / i64(b)));
    }),
    mod: fn([ANY, ANY], (a, b) => {
      if (i64(b) === 0) throw new Error('runtime error: integer divide by zero');
      return I64(i64(a) % i64(b));
    }),
    max: fn([ANY], (a, ...xs) => I64(Math.max(i64(a), ...xs.map(i64))), ANY),
    min: fn([ANY], (a, ...xs) => I64(Math.min(i64(a), ...xs.map(i64))), ANY),
    floor: fn([ANY], (x) => Math.floor(castToNumber(x, false))),
    ceil: fn([ANY], (x) => Math.ceil(castToNumber(x, false))),
    round: fn([ANY, 'int'], (x, p, ...r) => {
      const f = castToNumber(x, false);
      const pow = Math.pow(10, (p as GoInt).value);
      const digit = pow * f;
      const half = r.length > 0 ? (r[0] as number) : 0.5;
      const frac = digit - Math.trunc(digit);
      const rounded = Math.abs(frac) >= half ? (digit < 0 ? Math.trunc(digit) - 1 : Math.trunc(digit) + 1) : Math.trunc(digit);
      void roundHalfAwayFromZero;
      return rounded / pow;
    }, 'float64'),
    kindOf: fn([ANY], (v) => kindName(v)),
    typeOf: fn([ANY], (v) => typeName(v)),
    kindIs: fn(['string', ANY], (k, v) => kindName(v) === k),
    typeIs: fn(['string', ANY], (t, v) => typeName(v) === t),
    typeIsLike: fn(['string', ANY], (t, v) => typeName(v) === t || '*' + typeName(v) === t),
    toJson: fn([ANY], (v) => { try { return marshalJSON(v); } catch { return ''; } }),
    mustToJson: fn([ANY], (v) => marshalJSON(v), undefined, true),
    toPrettyJson: fn([ANY], (v) => { try { return marshalJSON(v, '  '); } catch { return ''; } }),
    toRawJson: fn([ANY], (v) => { try { return marshalJSON(v, '', false); } catch { return ''; } }),
    fromJson: fn(['string'], (s) => { try { return unmarshalJSON(s as string); } catch { return null; } }),
    mustFromJson: fn(['string'], (s) => unmarshalJSON(s as string), undefined, true),
    semverCompare: fn(['string', 'string'], (c, v) => semverCompare(c as string, v as string), undefined, true),
  };
}
