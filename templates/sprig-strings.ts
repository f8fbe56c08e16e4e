/** Sprig's string, conversion and regex functions, with Sprig v3's signatures and Go semantics. */
import { createHash } from 'node:crypto';
import { sprint, sprintf, quoteString } from './go-fmt.js';
import { GoFunction, GoInt, type GoValue, byteLength, typedMap, typedSlice } from './go-value.js';
import { parseGoInt } from './go-strconv.js';

/** Sprig's `strval`: strings as is, everything else through `%v`. */
export function strval(v: GoValue): string {
  return typeof v === 'string' ? v : sprintf('%v', [v]);
}

/** Sprig's `strslice`: a list as strings (nil elements dropped), a scalar as a one-element list. */
export function strslice(v: GoValue): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(strval);
  if (v === null || v === undefined) return [];
  return [strval(v)];
}

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
const sub = (s: string, a: number, b?: number): string => bytes(s).subarray(a, b).toString('utf8');

/** Go's regexp syntax to JavaScript's (named groups), compiled with the `u` flag. */
export function goRegexp(re: string, flags = ''): RegExp {
  try {
    return new RegExp(re.replace(/\(\?P</g, '(?<'), 'u' + flags);
  } catch {
    throw new Error(`error parsing regexp: invalid or unsupported Perl syntax: \`${re}\``);
  }
}

/** Go's `Regexp.Expand` template syntax ($1, ${1}, $name, ${name}, $$). */
function expand(template: string, m: RegExpExecArray): string {
  return template.replace(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (_all, d: string, braced?: string, bare?: string) => {
    if (d === '$') return '$';
    const name = braced ?? bare!;
    if (/^\d+$/.test(name)) return m[Number(name)] ?? '';
    return m.groups?.[name] ?? '';
  });
}

function toInt(v: GoValue, type: 'int' | 'int64'): GoInt {
  return new GoInt(castToNumber(v, true), type);
}

/** spf13/cast's ToInt64/ToFloat64 (errors give 0). */
export function castToNumber(v: GoValue, integer: boolean): number {
  if (typeof v === 'number') return integer ? Math.trunc(v) : v;
  if (v instanceof GoInt) return v.value;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = integer ? v.replace(/^([+-]?\d+)\.0*$/, '$1') : v;
    if (integer) return parseGoInt(s) ?? 0;
    const f = Number(s);
    return s.trim() === '' || Number.isNaN(f) || !/^[+-]?(\d|\.\d|inf|Inf|nan|NaN|0x)/.test(s) ? 0 : f;
  }
  return 0;
}

const S = 'string' as const;
const ANY = 'interface {}' as const;
const INT = 'int' as const;
const fn = (params: GoFunction['params'], f: GoFunction['fn'], variadic?: GoFunction['variadic'], err = false): GoFunction =>
  new GoFunction(params, f, variadic, err);
const str = (f: (...a: string[]) => GoValue, n = 1): GoFunction => fn(Array(n).fill(S), (...a) => f(...(a as string[])));

/** Sprig's string functions. */
export function sprigStringFunctions(): Record<string, GoFunction> {
  return {
    trim: str((s) => s.replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/gu, '')),
    trimAll: str((cut, s) => trimSet(s, cut, true, true), 2),
    trimPrefix: str((p, s) => (s.startsWith(p) ? s.slice(p.length) : s), 2),
    trimSuffix: str((p, s) => (p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s), 2),
    upper: str((s) => s.toUpperCase()),
    lower: str((s) => s.toLowerCase()),
    title: str((s) => s.replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase())),
    untitle: str((s) => s.replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toLowerCase())),
    replace: str((o, n, s) => s.split(o).join(n), 3),
    contains: str((sub2, s) => s.includes(sub2), 2),
    hasPrefix: str((p, s) => s.startsWith(p), 2),
    hasSuffix: str((p, s) => s.endsWith(p), 2),
    split: str((sep, s) => typedMap('string', Object.fromEntries(goSplit(s, sep).map((p, i) => [`_${i}`, p]))), 2),
    splitList: str((sep, s) => typedSlice('string', goSplit(s, sep)), 2),
    join: fn([S, ANY], (sep, v) => strslice(v).join(sep as string)),
    trunc: fn([INT, S], (c, s) => {
      const n = (c as GoInt).value;
      const len = byteLength(s as string);
      if (n < 0 && len + n > 0) return sub(s as string, len + n);
      if (n >= 0 && len > n) return sub(s as string, 0, n);
      return s;
    }),
    substr: fn([INT, INT, S], (a, b, s) => {
      const start = (a as GoInt).value;
      const end = (b as GoInt).value;
      const len = byteLength(s as string);
      if (start < 0) return sub(s as string, 0, end);
      if (end < 0 || end > len) return sub(s as string, start);
      return sub(s as string, start, end);
    }),
    repeat: fn([INT, S], (c, s) => (s as string).repeat(Math.max((c as GoInt).value, 0))),
    nospace: str((s) => s.replace(/\s/gu, '')),
    quote: fn([], (...a) => a.filter((x) => x !== null && x !== undefined).map((x) => quoteString(strval(x))).join(' '), ANY),
    squote: fn([], (...a) => a.filter((x) => x !== null && x !== undefined).map((x) => `'${strval(x)}'`).join(' '), ANY),
    cat: fn([], (...a) => sprint(a.filter((x) => x !== null && x !== undefined).flatMap((x, i) => (i > 0 ? [' ', x] : [x]))), ANY),
    indent: fn([INT, S], (n, s) => indent((n as GoInt).value, s as string)),
    nindent: fn([INT, S], (n, s) => '\n' + indent((n as GoInt).value, s as string)),
    toString: fn([ANY], (v) => strval(v)),
    toStrings: fn([ANY], (v) => typedSlice('string', strslice(v))),
    atoi: str((s) => new GoInt(/^[+-]?\d+$/.test(s) ? Number(s) : 0)),
    int: fn([ANY], (v) => toInt(v, 'int')),
    int64: fn([ANY], (v) => toInt(v, 'int64')),
    float64: fn([ANY], (v) => castToNumber(v, false)),
    regexMatch: str((re, s) => safeTest(re, s), 2),
    mustRegexMatch: fn([S, S], (re, s) => goRegexp(re as string).test(s as string), undefined, true),
    regexFind: str((re, s) => goRegexp(re).exec(s)?.[0] ?? '', 2),
    regexFindAll: fn([S, S, INT], (re, s, n) => typedSlice('string', limit([...(s as string).matchAll(goRegexp(re as string, 'g'))].map((m) => m[0]), (n as GoInt).value))),
    regexReplaceAll: str((re, s, repl) => (s).replace(goRegexp(re, 'g'), (...m) => expand(repl, execArray(m))), 3),
    regexReplaceAllLiteral: str((re, s, repl) => s.replace(goRegexp(re, 'g'), () => repl), 3),
    regexSplit: fn([S, S, INT], (re, s, n) => typedSlice('string', regexSplit(goRegexp(re as string, 'g'), s as string, (n as GoInt).value))),
    regexQuoteMeta: str((s) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')),
    b64enc: str((s) => Buffer.from(s, 'utf8').toString('base64')),
    b64dec: str((s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? Buffer.from(s, 'base64').toString('utf8') : `illegal base64 data at input byte ${firstBad(s)}`)),
    sha256sum: str((s) => createHash('sha256').update(s, 'utf8').digest('hex')),
    sha1sum: str((s) => createHash('sha1').update(s, 'utf8').digest('hex')),
    abbrev: fn([INT, S], (w, s) => abbrev((w as GoInt).value, s as string)),
    plural: fn([S, S, INT], (one, many, n) => ((n as GoInt).value === 1 ? one : many)),
    snakecase: str((s) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[\s-]+/g, '_').toLowerCase()),
    kebabcase: str((s) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/[\s_]+/g, '-').toLowerCase()),
  };
}

function execArray(m: unknown[]): RegExpExecArray {
  const last = m[m.length - 1];
  const hasGroups = typeof last === 'object' && last !== null;
  const groups = m.slice(0, hasGroups ? -3 : -2) as string[];
  const arr = groups as unknown as RegExpExecArray;
  if (hasGroups) arr.groups = last as Record<string, string>;
  return arr;
}

function firstBad(s: string): number {
  const i = s.search(/[^A-Za-z0-9+/=]/);
  return i >= 0 ? i : Math.floor(s.length / 4) * 4;
}

function safeTest(re: string, s: string): boolean {
  try {
    return goRegexp(re).test(s);
  } catch {
    return false;
  }
}

function limit<T>(xs: T[], n: number): T[] {
  return n < 0 ? xs : xs.slice(0, n);
}

function regexSplit(re: RegExp, s: string, n: number): string[] {
  if (n === 0) return [];
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(re)) {
    if (n > 0 && out.length === n - 1) break;
    if (m[0] === '' && (m.index === 0 || m.index === s.length)) continue;
    out.push(s.slice(last, m.index));
    last = m.index + m[0].length;
  }
  out.push(s.slice(last));
  return out;
}

/** Go's strings.Split. */
function goSplit(s: string, sep: string): string[] {
  if (sep === '') return [...s];
  return s.split(sep);
}

function trimSet(s: string, cut: string, left: boolean, right: boolean): string {
  const set = new Set([...cut]);
  const rs = [...s];
  let a = 0;
  let b = rs.length;
  while (left && a < b && set.has(rs[a])) a++;
  while (right && b > a && set.has(rs[b - 1])) b--;
  return rs.slice(a, b).join('');
}

function indent(n: number, s: string): string {
  const pad = ' '.repeat(Math.max(n, 0));
  return pad + s.split('\n').join('\n' + pad);
}

function abbrev(width: number, s: string): string {
  if (width < 4) return s;
  const r = [...s];
  return r.length > width ? r.slice(0, width - 3).join('') + '...' : s;
}
