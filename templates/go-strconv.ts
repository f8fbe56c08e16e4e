/** Go's `strconv.Unquote` and `ParseInt`/`ParseFloat` (base 0), as the template parser uses them. */

/** Error thrown for malformed literals; its message is Go's `invalid syntax`. */
export class SyntaxError extends Error {
  constructor() {
    super('invalid syntax');
  }
}

/** Unquotes one escape or character at `i` in `s` (Go's `strconv.UnquoteChar`); returns code point and next index. */
function unquoteChar(s: string, i: number, quote: string): [number, number] {
  const c = s[i];
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError();
  if (c !== '\\') {
    const cp = s.codePointAt(i)!;
    return [cp, i + String.fromCodePoint(cp).length];
  }
  const e = s[i + 1];
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
  if (e in simple) return [simple[e], i + 2];
  if (e === "'" || e === '"') {
    if (e !== quote) throw new SyntaxError();
    return [e.charCodeAt(0), i + 2];
  }
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (hexLen > 0) {
    const h = s.slice(i + 2, i + 2 + hexLen);
    if (h.length !== hexLen || !/^[0-9a-fA-F]+$/.test(h)) throw new SyntaxError();
    const v = parseInt(h, 16);
    if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) throw new SyntaxError();
    return [v, i + 2 + hexLen];
  }
  if (e >= '0' && e <= '7') {
    const o = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(o)) throw new SyntaxError();
    const v = parseInt(o, 8);
    if (v > 255) throw new SyntaxError();
    return [v, i + 4];
  }
  throw new SyntaxError();
}

/** Go's `strconv.Unquote` for "..." , `...` and '...' literals. `\x` escapes give bytes (kept as Latin-1 code points). */
export function unquote(lit: string): string {
  const q = lit[0];
  if (lit.length < 2 || lit[lit.length - 1] !== q) throw new SyntaxError();
  const body = lit.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw new SyntaxError();
    return body.replace(/\r/g, '');
  }
  if (q !== '"' && q !== "'") throw new SyntaxError();
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length) out += Buffer.from(bytes).toString('utf8');
    bytes = [];
  };
  for (let i = 0; i < body.length; ) {
    if (body[i] === '\n') throw new SyntaxError();
    const isByteEscape = body[i] === '\\' && (body[i + 1] === 'x' || (body[i + 1] >= '0' && body[i + 1] <= '7'));
    const [cp, next] = unquoteChar(body, i, q);
    if (isByteEscape) bytes.push(cp);
    else {
      flush();
      out += String.fromCodePoint(cp);
    }
    i = next;
  }
  flush();
  if (q === "'" && [...out].length !== 1) throw new SyntaxError();
  return out;
}

/** Parses a Go integer literal with base prefix and underscores (Go's ParseInt(s, 0, 64)); undefined if invalid. */
export function parseGoInt(text: string): number | undefined {
  let s = text;
  let neg = false;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  let base = 10;
  let digits = s;
  if (/^0[xX]/.test(s)) { base = 16; digits = s.slice(2); }
  else if (/^0[bB]/.test(s)) { base = 2; digits = s.slice(2); }
  else if (/^0[oO]/.test(s)) { base = 8; digits = s.slice(2); }
  else if (/^0\d/.test(s) || s.startsWith('0_')) { base = 8; digits = s.slice(1); }
  const underscored = digits.includes('_');
  if (underscored) {
    // Underscores only between digits (or after a base prefix).
    if (/__|_$/.test(digits) || (digits.startsWith('_') && base === 10)) return undefined;
    digits = digits.replace(/_/g, '');
  }
  if (digits === '') return base === 8 && s.length === 1 ? 0 : s === '0' ? 0 : undefined;
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^\d+$/, 16: /^[0-9a-fA-F]+$/ }[base as 2 | 8 | 10 | 16];
  if (!valid.test(digits)) return undefined;
  const big = BigInt((base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '') + digits);
  const v = neg ? -big : big;
  if (v > 9223372036854775807n || v < -9223372036854775808n) return undefined;
  return Number(v);
}

/** Parses a Go float literal (decimal or hex, with underscores); undefined if invalid. */
export function parseGoFloat(text: string): number | undefined {
  const s = text.replace(/_/g, '');
  if (/^[+-]?0[xX]/.test(s)) {
    const m = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(s);
    if (!m) return undefined;
    const mant = parseInt((m[2] || '0') + (m[3] || ''), 16) / Math.pow(16, m[3].length);
    const v = mant * Math.pow(2, Number(m[4]));
    return m[1] === '-' ? -v : v;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}
