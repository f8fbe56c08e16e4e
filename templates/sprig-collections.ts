/** Sprig's list and dict functions, with Sprig v3's signatures and Go semantics. */
import { GoFunction, GoInt, GoStruct, type GoMap, type GoValue, compareStrings, isMap, kindName, typeName, typedSlice } from './go-value.js';
import { castToNumber, strslice, strval } from './sprig-strings.js';
import { empty } from './sprig-misc.js';

const ANY = 'interface {}' as const;
const MAP = 'map[string]interface {}' as const;
const fn = (params: GoFunction['params'], f: GoFunction['fn'], variadic?: GoFunction['variadic'], err = false): GoFunction =>
  new GoFunction(params, f, variadic, err);

function asList(v: GoValue, op: string): GoValue[] {
  if (Array.isArray(v)) return v;
  throw new Error(`Cannot ${op} on type ${typeName(v)}`);
}

/** Go's reflect.DeepEqual over template values. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof GoInt) return a.value === (b as GoInt).value;
  if (a instanceof GoStruct) return deepEqual(a.fields as GoMap, (b as GoStruct).fields as GoMap);
  if (Array.isArray(a)) return a.length === (b as GoValue[]).length && a.every((x, i) => deepEqual(x, (b as GoValue[])[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy (maps and slices copied, scalars shared). */
export function deepCopy(v: GoValue): GoValue {
  if (Array.isArray(v)) return typedSlice(typeName(v).slice(2), v.map(deepCopy));
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)]));
  return v;
}

/**
 * dario.cat/mergo v1.0.1 deepMerge of map values, as Sprig's `merge` (fill keys of dst that are missing or
 * empty) and `mergeOverwrite` (every non-map source value wins, even "", false, 0 and nil) use it. A nil
 * source value is skipped by `merge` and written by `mergeOverwrite`; maps merge recursively; a non-empty
 * destination slice is kept by `merge`.
 */
function mergeInto(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const [k, sv] of Object.entries(src)) {
    const has = Object.hasOwn(dst, k);
    const dv = dst[k];
    if (sv === null || sv === undefined) {
      if (overwrite) dst[k] = null;
      continue;
    }
    if (isMap(sv) && isMap(dv)) {
      mergeInto(dv, sv, overwrite);
      if (!empty(dv)) continue;
    }
    if (overwrite || !has || empty(dv)) dst[k] = sv;
  }
}

/** Sprig's list and dict functions. */
export function sprigCollectionFunctions(): Record<string, GoFunction> {
  return {
    list: fn([], (...a) => a, ANY),
    slice: fn([ANY], (l, ...ix) => {
      if (!Array.isArray(l)) throw new Error(`list should be type of slice or array but ${kindName(l)}`);
      const start = ix.length > 0 ? castToNumber(ix[0], true) : 0;
      const end = ix.length > 1 ? castToNumber(ix[1], true) : l.length;
      if (start < 0 || end < start || end > l.length) throw new Error('reflect.Value.Slice: slice index out of bounds');
      return typedSlice(typeName(l).slice(2), l.slice(start, end));
    }, ANY, true),
    first: fn([ANY], (l) => { const xs = asList(l, 'find first'); return xs.length ? xs[0] : null; }),
    last: fn([ANY], (l) => { const xs = asList(l, 'find last'); return xs.length ? xs[xs.length - 1] : null; }),
    rest: fn([ANY], (l) => { const xs = asList(l, 'find rest'); return xs.length ? xs.slice(1) : null; }),
    initial: fn([ANY], (l) => { const xs = asList(l, 'find initial'); return xs.length ? xs.slice(0, -1) : null; }),
    append: fn([ANY, ANY], (l, v) => [...asList(l, 'push'), v]),
    push: fn([ANY, ANY], (l, v) => [...asList(l, 'push'), v]),
    prepend: fn([ANY, ANY], (l, v) => [v, ...asList(l, 'prepend')]),
    concat: fn([], (...ls) => ls.flatMap((l) => asList(l, 'concat')), ANY),
    has: fn([ANY, ANY], (needle, hay) => (hay === null ? false : asList(hay, 'find has').some((x) => deepEqual(x, needle)))),
    without: fn([ANY], (l, ...omit) => asList(l, 'find without').filter((x) => !omit.some((o) => deepEqual(o, x))), ANY),
    uniq: fn([ANY], (l) => asList(l, 'find uniq').filter((x, i, xs) => xs.findIndex((y) => deepEqual(x, y)) === i)),
    compact: fn([ANY], (l) => asList(l, 'compact').filter((x) => !empty(x))),
    sortAlpha: fn([ANY], (l) => typedSlice('string', strslice(l).sort(compareStrings))),
    reverse: fn([ANY], (l) => [...asList(l, 'find reverse')].reverse()),
    until: fn(['int'], (n) => untilStep(0, (n as GoInt).value, (n as GoInt).value >= 0 ? 1 : -1)),
    untilStep: fn(['int', 'int', 'int'], (a, b, s) => untilStep((a as GoInt).value, (b as GoInt).value, (s as GoInt).value)),
    seq: fn([], (...ps) => seq(ps.map((p) => (p as GoInt).value)), 'int'),
    dict: fn([], (...kv) => {
      const d: GoMap = {};
      for (let i = 0; i < kv.length; i += 2) d[strval(kv[i])] = i + 1 < kv.length ? kv[i + 1] : '';
      return d;
    }, ANY),
    get: fn([MAP, 'string'], (d, k) => (d && Object.hasOwn(d as GoMap, k as string) ? (d as GoMap)[k as string] : '')),
    set: fn([MAP, 'string', ANY], (d, k, v) => { (d as GoMap)[k as string] = v; return d; }),
    unset: fn([MAP, 'string'], (d, k) => { delete (d as GoMap)[k as string]; return d; }),
    hasKey: fn([MAP, 'string'], (d, k) => d !== null && Object.hasOwn(d as GoMap, k as string)),
    keys: fn([], (...ds) => typedSlice('string', ds.flatMap((d) => Object.keys((d ?? {}) as GoMap))), MAP),
    values: fn([MAP], (d) => Object.values((d ?? {}) as GoMap)),
    pick: fn([MAP], (d, ...ks) => Object.fromEntries((ks as string[]).filter((k) => Object.hasOwn(d as GoMap, k)).map((k) => [k, (d as GoMap)[k]])), 'string'),
    omit: fn([MAP], (d, ...ks) => Object.fromEntries(Object.entries((d ?? {}) as GoMap).filter(([k]) => !(ks as string[]).includes(k))), 'string'),
    merge: fn([MAP], (dst, ...srcs) => { for (const s of srcs) if (s) mergeInto(dst as GoMap, s as GoMap, false); return dst; }, MAP),
    mergeOverwrite: fn([MAP], (dst, ...srcs) => { for (const s of srcs) if (s) mergeInto(dst as GoMap, s as GoMap, true); return dst; }, MAP),
    deepCopy: fn([ANY], deepCopy),
    dig: fn([], (...ps) => {
      if (ps.length < 3) throw new Error('dig needs at least three arguments');
      const dict = ps[ps.length - 1] as GoMap;
      const def = ps[ps.length - 2];
      let cur: GoValue = dict;
      for (const k of ps.slice(0, -2)) {
        if (!isMap(cur) || !Object.hasOwn(cur, k as string)) return def;
        cur = cur[k as string];
      }
      return cur;
    }, ANY, true),
    pluck: fn(['string'], (k, ...ds) => (ds as GoMap[]).filter((d) => d && Object.hasOwn(d, k as string)).map((d) => d[k as string]), MAP),
  };
}

function untilStep(start: number, stop: number, step: number): GoValue {
  const out: GoValue[] = [];
  if (step === 0) return typedSlice('int', out);
  if (stop < start) {
    if (step >= 0) return typedSlice('int', out);
    for (let i = start; i > stop; i += step) out.push(new GoInt(i));
  } else {
    if (step <= 0) return typedSlice('int', out);
    for (let i = start; i < stop; i += step) out.push(new GoInt(i));
  }
  return typedSlice('int', out);
}

function seq(ps: number[]): string {
  let [start, end, step] = [1, 0, 1];
  if (ps.length === 0) return '';
  if (ps.length === 1) { end = ps[0]; if (end < 1) step = -1; }
  else if (ps.length === 2) { start = ps[0]; end = ps[1]; if (end < start) step = -1; }
  else if (ps.length === 3) { [start, step, end] = ps; if ((end < start && step > 0) || (end > start && step < 0) || step === 0) return ''; }
  else return '';
  const out: number[] = [];
  if (step > 0) for (let i = start; i <= end; i += step) out.push(i);
  else for (let i = start; i >= end; i += step) out.push(i);
  return out.join(' ');
}
