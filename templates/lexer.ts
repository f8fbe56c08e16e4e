/**
 * The template lexer: Go's text/template/parse lexer, token for token (spaces inside actions are
 * tokens, `{{- ` and ` -}}` trim the adjacent text, comments are dropped).
 */

/** Token kinds, named after Go's item types. */
export type TokenType =
  | 'error' | 'bool' | 'char' | 'charConstant' | 'comment' | 'assign' | 'declare' | 'eof' | 'field'
  | 'identifier' | 'leftDelim' | 'leftParen' | 'number' | 'pipe' | 'rawString' | 'rightDelim'
  | 'rightParen' | 'space' | 'string' | 'text' | 'variable'
  // keywords
  | 'block' | 'break' | 'continue' | 'dot' | 'define' | 'else' | 'end' | 'if' | 'nil' | 'range' | 'template' | 'with';

/** One lexical token: its kind, byte-independent offset into the text, text and line. */
export interface Token {
  type: TokenType;
  pos: number;
  val: string;
  line: number;
}

const KEYWORDS: Record<string, TokenType> = {
  block: 'block', break: 'break', continue: 'continue', define: 'define', else: 'else', end: 'end',
  if: 'if', nil: 'nil', range: 'range', template: 'template', with: 'with',
};

/** True for keyword tokens (printed as `<word>` in errors). */
export function isKeyword(t: TokenType): boolean {
  return Object.values(KEYWORDS).includes(t) || t === 'dot';
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlnum = (c: string | undefined): boolean => c !== undefined && (c === '_' || /^[\p{L}\p{Nd}]$/u.test(c));
const SPACE_CHARS = /[ \t\r\n]/;

function hasLeftTrim(s: string, i: number): boolean {
  return s[i] === '-' && isSpace(s[i + 1]);
}
function hasRightTrim(s: string, i: number): boolean {
  return isSpace(s[i]) && s[i + 1] === '-';
}

/** Go's `%#U` of a code point: `U+0023 '#'`. */
export function formatRuneU(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

/** Lexes a whole template into tokens; lexing stops at the first error token. */
export function lex(input: string, leftDelim = '{{', rightDelim = '}}'): Token[] {
  const out: Token[] = [];
  let pos = 0;
  let start = 0;
  const lineAt = (p: number): number => {
    let n = 1;
    for (let i = input.indexOf('\n'); i >= 0 && i < p; i = input.indexOf('\n', i + 1)) n++;
    return n;
  };
  const emit = (type: TokenType, s = start, e = pos): void => {
    out.push({ type, pos: s, val: input.slice(s, e), line: lineAt(s) });
    start = pos;
  };
  const fail = (msg: string): Token[] => {
    out.push({ type: 'error', pos: start, val: msg, line: lineAt(start) });
    return out;
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (hasRightTrim(input, pos) && input.startsWith(rightDelim, pos + 2)) return { delim: true, trim: true };
    return { delim: input.startsWith(rightDelim, pos), trim: false };
  };
  const atTerminator = (): boolean => {
    const c = input[pos];
    if (c === undefined || isSpace(c) || '.,|:()'.includes(c)) return true;
    return input.startsWith(rightDelim, pos);
  };
  const trimLeftLen = (): number => {
    let i = pos;
    while (i < input.length && SPACE_CHARS.test(input[i])) i++;
    return i - pos;
  };

  for (;;) {
    // Text.
    const x = input.indexOf(leftDelim, pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) emit('text');
      emit('eof');
      return out;
    }
    if (x > pos || x > start) {
      pos = x;
      let end = pos;
      if (hasLeftTrim(input, pos + leftDelim.length)) while (end > start && SPACE_CHARS.test(input[end - 1])) end--;
      if (end > start) out.push({ type: 'text', pos: start, val: input.slice(start, end), line: lineAt(start) });
      start = pos;
    }
    // Left delimiter.
    pos += leftDelim.length;
    const trimLeft = hasLeftTrim(input, pos);
    const after = trimLeft ? 2 : 0;
    if (input.startsWith('/*', pos + after)) {
      pos += after;
      start = pos;
      const end = input.indexOf('*/', pos + 2);
      if (end < 0) return fail('unclosed comment');
      pos = end + 2;
      const rd = atRightDelim();
      if (!rd.delim) return fail('comment ends before closing delimiter');
      if (rd.trim) pos += 2;
      pos += rightDelim.length;
      if (rd.trim) pos += trimLeftLen();
      start = pos;
      continue;
    }
    emit('leftDelim', start, pos);
    pos += after;
    start = pos;
    let parenDepth = 0;
    // Inside the action.
    for (;;) {
      const rd = atRightDelim();
      if (rd.delim) {
        if (parenDepth !== 0) return fail('unclosed left paren');
        if (rd.trim) pos += 2;
        start = pos;
        pos += rightDelim.length;
        emit('rightDelim');
        if (rd.trim) pos += trimLeftLen();
        start = pos;
        break;
      }
      const c = input[pos];
      if (c === undefined) return fail('unclosed action');
      if (isSpace(c)) {
        let n = 0;
        while (isSpace(input[pos])) { pos++; n++; }
        if (hasRightTrim(input, pos - 1) && input.startsWith(rightDelim, pos + 1)) {
          pos--;
          if (n === 1) continue;
        }
        emit('space');
        continue;
      }
      const cp = String.fromCodePoint(input.codePointAt(pos)!);
      pos += cp.length;
      if (c === '=') emit('assign');
      else if (c === ':') {
        if (input[pos] !== '=') { pos++; return fail('expected :='); }
        pos++;
        emit('declare');
      } else if (c === '|') emit('pipe');
      else if (c === '"' || c === "'") {
        for (;;) {
          const d = input[pos++];
          if (d === '\\') {
            const e = input[pos++];
            if (e !== undefined && e !== '\n') continue;
          }
          if (d === undefined || d === '\n' || (d === '\\')) {
            return fail(c === '"' ? 'unterminated quoted string' : 'unterminated character constant');
          }
          if (d === c) break;
        }
        emit(c === '"' ? 'string' : 'charConstant');
      } else if (c === '`') {
        const end = input.indexOf('`', pos);
        if (end < 0) return fail('unterminated raw quoted string');
        pos = end + 1;
        emit('rawString');
      } else if (c === '$' || (c === '.' && !(input[pos] >= '0' && input[pos] <= '9'))) {
        const type: TokenType = c === '$' ? 'variable' : 'field';
        if (atTerminator()) { emit(c === '$' ? 'variable' : 'dot'); continue; }
        while (isAlnum(input[pos])) pos++;
        if (!atTerminator()) return badChar();
        emit(type);
      } else if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
        pos = start;
        if (!scanNumber()) return fail(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        // NOTE: Go's complex constants: 1+2i, no spaces, ending in i.
        if (input[pos] === '+' || input[pos] === '-') {
          if (!scanNumber() || input[pos - 1] !== 'i') return fail(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        }
        emit('number');
      } else if (isAlnum(cp)) {
        while (isAlnum(input[pos])) pos++;
        if (!atTerminator()) return badChar();
        const word = input.slice(start, pos);
        emit((Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word] : undefined) ?? (word === 'true' || word === 'false' ? 'bool' : 'identifier'));
      } else if (c === '(') {
        parenDepth++;
        emit('leftParen');
      } else if (c === ')') {
        if (--parenDepth < 0) return fail('unexpected right paren');
        emit('rightParen');
      } else if (cp.length === 1 && c >= ' ' && c <= '~') emit('char');
      else return fail(`unrecognized character in action: ${formatRuneU(cp)}`);
    }
  }

  function badChar(): Token[] {
    const r = input[pos] === undefined ? '' : String.fromCodePoint(input.codePointAt(pos)!);
    return fail(r === '' ? 'bad character U+FFFFFFFF' : `bad character ${formatRuneU(r)}`);
  }

  function scanNumber(): boolean {
    const accept = (set: string): boolean => {
      if (input[pos] !== undefined && set.includes(input[pos])) { pos++; return true; }
      return false;
    };
    const acceptRun = (set: string): void => { while (accept(set)) { /* run */ } };
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) { accept('+-'); acceptRun('0123456789_'); }
    if (digits.length === 23 && accept('pP')) { accept('+-'); acceptRun('0123456789_'); }
    accept('i');
    if (isAlnum(input[pos])) { pos++; return false; }
    return true;
  }
}
