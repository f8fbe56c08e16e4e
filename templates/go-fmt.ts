/**
 * Go's fmt package as text/template uses it: `Sprint`, `Sprintln`, `Sprintf` with Go's verbs, flags,
 * width and precision, and Go's formatting of maps (`map[a:1 b:2]`), slices (`[a b]`), nil (`<nil>`),
 * structs (`{1 2}`, `{A:1 B:2}` under `%+v`) and floats (shortest `%g`, so 1e+06 and 3).
 */
import { GoComplex, GoFunction, GoInt, GoStruct, type GoValue, isMap, sortedKeys, typeName } from './go-value.js';

interface Spec {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  width?: number;
  prec?: number;
}

const plainSpec = (): Spec => ({ plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false });

/** Go's `fmt.Sprint`: operands formatted with `%v`, a space between two operands when neither is a string. */
export function sprint(args: GoValue[]): string {
  let out = '';
  let prevString = false;
  args.forEach((a, i) => {
    const isString = typeof a === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatArg(a, 'v', plainSpec());
    prevString = isString;
  });
  return out;
}

/** Go's `fmt.Sprintln`: operands formatted with `%v`, always space-separated, newline appended. */
export function sprintln(args: GoValue[]): string {
  return args.map((a) => formatArg(a, 'v', plainSpec())).join(' ') + '\n';
}

/** Go's limit on a width or precision (fmt's `tooLarge`). */
const MAX_WIDTH = 1e6;

/** A width or precision taken from an argument (`*`): Go's `intFromArg`. */
function intFromArg(args: GoValue[], argNum: number): { num: number; ok: boolean; next: number } {
  if (argNum >= args.length) return { num: 0, ok: false, next: argNum };
  const a = args[argNum];
  if (!(a instanceof GoInt) || Math.abs(a.value) > MAX_WIDTH) return { num: 0, ok: false, next: argNum + 1 };
  return { num: a.value, ok: true, next: argNum + 1 };
}

/** Digits at `i` (before `end`): Go's `parsenum`. */
function parseNum(format: string, i: number, end: number): { num: number; ok: boolean; next: number } {
  let j = i;
  while (j < end && format[j]! >= '0' && format[j]! <= '9') j++;
  if (j === i) return { num: 0, ok: false, next: i };
  const num = Number(format.slice(i, j));
  return num > MAX_WIDTH ? { num: 0, ok: false, next: end } : { num, ok: true, next: j };
}

/**
 * Go's `fmt.Sprintf`, explicit argument indexes included (`%[2]d`, `%[3]*.[2]*[1]f`): an index moves the
 * argument cursor, a bad one prints `%!d(BADINDEX)`, and reordered calls never report `%!(EXTRA ...)`.
 */
export function sprintf(format: string, args: GoValue[]): string {
  let out = '';
  let argNum = 0;
  let reordered = false;
  let i = 0;
  const n = format.length;
  /** An explicit `[n]` at `i`: Go's `argNumber`. */
  const argNumber = (at: number): { found: boolean; good: boolean } => {
    if (at >= n || format[at] !== '[') return { found: false, good: true };
    reordered = true;
    const close = format.indexOf(']', at + 1);
    if (n - at < 3 || close < 0) { i = at + 1; return { found: false, good: false }; }
    const num = parseNum(format, at + 1, close);
    i = close + 1;
    if (!num.ok || num.next !== close) return { found: false, good: false };
    const index = num.num - 1;
    if (index >= 0 && index < args.length) { argNum = index; return { found: true, good: true }; }
    return { found: true, good: false };
  };
  while (i < n) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    let goodArgNum = true;
    const spec = plainSpec();
    flags: for (; i < n; i++) {
      switch (format[i]) {
        case '#': spec.sharp = true; break;
        case '0': spec.zero = !spec.minus; break;
        case '+': spec.plus = true; break;
        case '-': spec.minus = true; spec.zero = false; break;
        case ' ': spec.space = true; break;
        default: break flags;
      }
    }
    let idx = argNumber(i);
    goodArgNum &&= idx.good;
    let afterIndex = idx.found;
    if (i < n && format[i] === '*') {
      i++;
      const w = intFromArg(args, argNum);
      argNum = w.next;
      if (!w.ok) out += '%!(BADWIDTH)';
      else {
        spec.width = Math.abs(w.num);
        if (w.num < 0) { spec.minus = true; spec.zero = false; }
      }
      afterIndex = false;
    } else {
      const w = parseNum(format, i, n);
      i = w.next;
      if (w.ok) {
        spec.width = w.num;
        if (afterIndex) goodArgNum = false;
      }
    }
    if (i + 1 < n && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      idx = argNumber(i);
      goodArgNum &&= idx.good;
      afterIndex = idx.found;
      if (i < n && format[i] === '*') {
        i++;
        const p = intFromArg(args, argNum);
        argNum = p.next;
        if (!p.ok || p.num < 0) out += '%!(BADPREC)';
        else spec.prec = p.num;
        afterIndex = false;
      } else {
        const p = parseNum(format, i, n);
        i = p.next;
        spec.prec = p.ok ? p.num : 0;
      }
    }
    if (!afterIndex) {
      idx = argNumber(i);
      goodArgNum &&= idx.good;
    }
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`;
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if (verb === 'v') {
      if (spec.plus) { spec.plus = false; spec.plusV = true; }
      if (spec.sharp && typeof args[argNum] === 'string') {
        out += pad(quoteString(args[argNum++] as string), spec);
        continue;
      }
    }
    out += formatArg(args[argNum++], verb, spec);
  }
  if (!reordered && argNum < args.length) {
    out += '%!(EXTRA ' + args.slice(argNum).map((a) => (a === null || a === undefined ? '<nil>' : `${typeName(a)}=${formatArg(a, 'v', plainSpec())}`)).join(', ') + ')';
  }
  return out;
}

/** Formats one top-level argument (nil with a verb other than %v/%T is a bad verb). */
export function formatArg(v: GoValue, verb: string, spec: Spec): string {
  if (v === null || v === undefined) {
    if (verb === 'v' || verb === 'T') return pad(verb === 'T' ? '<nil>' : '<nil>', spec);
    return `%!${verb}(<nil>)`;
  }
  if (verb === 'T') return pad(typeName(v), spec);
  return formatValue(v, verb, spec, 0);
}

/** Go's `badVerb`: the operand is printed with `%v` under the same flags, width and precision. */
function badVerb(v: GoValue, verb: string, spec: Spec = plainSpec()): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(v)}=${formatValue(v, 'v', spec, 0)})`;
}

function formatValue(v: GoValue, verb: string, spec: Spec, depth: number): string {
  if (v === null || v === undefined) return depth > 0 ? pad('<nil>', spec) : formatArg(v, verb, spec);
  if (typeof v === 'boolean') return verb === 't' || verb === 'v' ? pad(String(v), spec) : badVerb(v, verb, spec);
  if (typeof v === 'number') return fmtFloatVerb(v, verb, spec) ?? badVerb(v, verb, spec);
  if (v instanceof GoComplex) return fmtComplex(v, verb, spec) ?? badVerb(v, verb, spec);
  if (v instanceof GoInt) return fmtIntVerb(v, verb, spec) ?? badVerb(v, verb, spec);
  if (typeof v === 'string') return fmtStringVerb(v, verb, spec) ?? badVerb(v, verb, spec);
  if (v instanceof GoFunction) return pad('0xc000010000', spec);
  if (v instanceof GoStruct) {
    const parts = Object.entries(v.fields).map(([k, f]) => (spec.plusV ? `${k}:` : '') + formatValue(f, verb, spec, depth + 1));
    return `{${parts.join(' ')}}`;
  }
  if (Array.isArray(v)) {
    if ((verb === 's' || verb === 'q' || verb === 'x' || verb === 'X') && typeName(v) === '[]uint8') {
      return fmtStringVerb(Buffer.from(v.map((b) => (b instanceof GoInt ? b.value : 0))).toString('latin1'), verb, spec) ?? '';
    }
    return '[' + v.map((e) => formatValue(e, verb, spec, depth + 1)).join(' ') + ']';
  }
  if (isMap(v)) {
    return 'map[' + sortedKeys(v).map((k) => `${formatValue(k, verb, spec, depth + 1)}:${formatValue(v[k], verb, spec, depth + 1)}`).join(' ') + ']';
  }
  return badVerb(v, verb);
}

/** Go's fmtComplex: `(re+imi)`, each part formatted as a float with the verb; the imaginary part always signed. */
function fmtComplex(v: GoComplex, verb: string, spec: Spec): string | undefined {
  if (!'vbgGxXfFeE'.includes(verb)) return undefined;
  const re = fmtFloatVerb(v.re, verb, spec);
  const im = fmtFloatVerb(v.im, verb, { ...spec, plus: true });
  return re === undefined || im === undefined ? undefined : `(${re}${im}i)`;
}

/** Pads to the spec's width with spaces (or zeros when allowed). */
function pad(s: string, spec: Spec, zeroOk = false): string {
  const w = spec.width ?? 0;
  const len = [...s].length;
  if (len >= w) return s;
  const fill = w - len;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && zeroOk) {
    const sign = /^[+\- ]/.test(s) ? s[0] : '';
    return sign + '0'.repeat(fill) + s.slice(sign.length);
  }
  return ' '.repeat(fill) + s;
}

function fmtIntVerb(g: GoInt, verb: string, spec: Spec): string | undefined {
  const v = g.value;
  switch (verb) {
    case 'v':
    case 'd':
      return fmtInteger(v, 10, spec, '');
    case 'b':
      return fmtInteger(v, 2, spec, spec.sharp ? '0b' : '');
    case 'o':
      return fmtInteger(v, 8, spec, spec.sharp ? '0' : '');
    case 'O':
      return fmtInteger(v, 8, spec, '0o');
    case 'x':
      return fmtInteger(v, 16, spec, spec.sharp ? '0x' : '');
    case 'X':
      return fmtInteger(v, 16, spec, spec.sharp ? '0X' : '').toUpperCase();
    case 'c':
      return pad(String.fromCodePoint(validRune(v)), spec);
    case 'q':
      return pad(quoteRune(validRune(v)), spec);
    case 'U': {
      let h = Math.abs(v).toString(16).toUpperCase();
      if (h.length < 4) h = h.padStart(4, '0');
      return pad('U+' + h, spec);
    }
    default:
      return undefined;
  }
}

function validRune(v: number): number {
  return v < 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ? 0xfffd : v;
}

function fmtInteger(v: number, base: number, spec: Spec, prefix: string): string {
  let digits = Math.abs(v).toString(base);
  if (spec.prec !== undefined) {
    if (spec.prec === 0 && v === 0) digits = '';
    digits = digits.padStart(spec.prec, '0');
  } else if (spec.zero && !spec.minus && spec.width !== undefined) {
    const sign = v < 0 || spec.plus || spec.space ? 1 : 0;
    digits = digits.padStart(spec.width - sign - prefix.length, '0');
  }
  const sign = v < 0 ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  return pad(sign + prefix + digits, { ...spec, zero: false });
}

function fmtStringVerb(s: string, verb: string, spec: Spec): string | undefined {
  switch (verb) {
    case 'v':
    case 's': {
      const t = spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s;
      return pad(t, spec, true);
    }
    case 'q':
      return pad(spec.sharp && canBackquote(s) ? '`' + s + '`' : quoteString(s), spec);
    case 'x':
    case 'X': {
      const bytes = [...Buffer.from(s, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
      let out = bytes.join(spec.space ? ' ' : '');
      if (spec.sharp) out = spec.space ? bytes.map((b) => '0x' + b).join(' ') : '0x' + out;
      return pad(verb === 'X' ? out.toUpperCase() : out, spec);
    }
    default:
      return undefined;
  }
}

function canBackquote(s: string): boolean {
  return !/[`\u0000-\u0008\u000a-\u001f\u007f\ufeff]/.test(s);
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function escapeRune(r: string, quote: string): string {
  const cp = r.codePointAt(0)!;
  if (r === quote || r === '\\') return '\\' + r;
  if (printable.test(r)) return r;
  switch (r) {
    case '\x07': return '\\a';
    case '\b': return '\\b';
    case '\f': return '\\f';
    case '\n': return '\\n';
    case '\r': return '\\r';
    case '\t': return '\\t';
    case '\v': return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** Go's `strconv.Quote`. */
export function quoteString(s: string): string {
  let out = '"';
  for (const r of s) out += escapeRune(r, '"');
  return out + '"';
}

function quoteRune(cp: number): string {
  return "'" + escapeRune(String.fromCodePoint(cp), "'") + "'";
}

/** Decimal digits and point position of |v|: |v| = 0.DIGITS x 10^dp. `sig` undefined means shortest. */
function decimalDigits(v: number, sig?: number): { digits: string; dp: number } {
  if (v === 0) return { digits: '0', dp: 1 };
  const e = sig === undefined ? Math.abs(v).toExponential() : Math.abs(v).toExponential(Math.max(sig - 1, 0));
  const [mant, exp] = e.split('e');
  let digits = mant.replace('.', '');
  if (sig === undefined) digits = digits.replace(/0+$/, '') || '0';
  return { digits, dp: Number(exp) + 1 };
}

function expString(exp: number, upper: boolean): string {
  const sign = exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  return (upper ? 'E' : 'e') + sign + (a < 10 ? '0' + a : String(a));
}

function fmtE(v: number, prec: number | undefined, upper: boolean): string {
  const { digits, dp } = decimalDigits(v, prec === undefined ? undefined : prec + 1);
  const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
  return mant + expString(v === 0 ? 0 : dp - 1, upper);
}

function fmtF(v: number, prec: number): string {
  const a = Math.abs(v);
  if (a >= 1e21) return BigInt(a).toString() + (prec > 0 ? '.' + '0'.repeat(prec) : '');
  return a.toFixed(prec);
}

function fmtG(v: number, prec: number | undefined, upper: boolean): string {
  const shortest = prec === undefined;
  let p = prec ?? -1;
  if (p === 0) p = 1;
  const { digits, dp } = decimalDigits(v, shortest ? undefined : p);
  const d = shortest ? digits : digits.replace(/0+$/, '') || '0';
  let eprec = shortest ? 6 : p;
  if (!shortest && eprec > d.length && d.length >= dp) eprec = d.length;
  const exp = v === 0 ? 0 : dp - 1;
  if (exp < -4 || exp >= eprec) {
    const mant = d.length > 1 ? d[0] + '.' + d.slice(1) : d;
    return mant + expString(exp, upper);
  }
  return fmtF(v, Math.max(d.length - dp, 0));
}

function fmtFloatVerb(v: number, verb: string, spec: Spec): string | undefined {
  let body: string;
  if (!'vgGeEfFbxX'.includes(verb)) return undefined;
  if (Number.isNaN(v)) body = 'NaN';
  else if (!Number.isFinite(v)) body = 'Inf';
  else {
    const a = Math.abs(v);
    switch (verb) {
      case 'v': case 'g': body = fmtG(a, spec.prec, false); break;
      case 'G': body = fmtG(a, spec.prec, true); break;
      case 'e': body = fmtE(a, spec.prec ?? 6, false); break;
      case 'E': body = fmtE(a, spec.prec ?? 6, true); break;
      case 'f': case 'F': body = fmtF(a, spec.prec ?? 6); break;
      default: return undefined;
    }
    if (spec.sharp && !body.includes('.') && verb !== 'e' && verb !== 'E') body = body.replace(/^(\d+)/, '$1.');
  }
  const neg = v < 0 || Object.is(v, -0);
  const sign = neg ? '-' : spec.plus || (!Number.isFinite(v) && !Number.isNaN(v)) ? '+' : spec.space ? ' ' : '';
  const s = (Number.isNaN(v) ? (spec.plus ? '+' : spec.space ? ' ' : '') : sign) + body;
  return pad(s, spec, Number.isFinite(v));
}
