/**
 * The template parser: Go's text/template/parse semantics (declarations, pipelines, control
 * structures, `define`/`block`, `break`/`continue` only inside `range`) and its error messages.
 */
import { isKeyword, lex, type Token, type TokenType } from './lexer.js';
import { parseGoFloat, parseGoInt, unquote } from './go-strconv.js';
import { quoteString } from './go-fmt.js';
import type {
  ArgNode, CommandNode, ElseNode, EndNode, ListNode, Node, NumberNode, PipeNode, TemplateNode, TreeInfo,
} from './parse-tree.js';

/** A parsed template body: its name and root list. */
export interface ParsedTree {
  name: string;
  root: ListNode;
}

/** A parse failure, with Go's message (`template: NAME:LINE: ...`). */
export class TemplateParseError extends Error {
  override name = 'TemplateParseError';
}

function tokenString(t: Token): string {
  if (t.type === 'eof') return 'EOF';
  if (t.type === 'error') return t.val;
  if (isKeyword(t.type)) return `<${t.val}>`;
  const runes = [...t.val];
  if (runes.length > 10) return quoteString(runes.slice(0, 10).join('')) + '...';
  return quoteString(t.val);
}

/** True if a tree is empty in Go's sense (only whitespace text and comments). */
export function isEmptyTree(n: Node | undefined): boolean {
  if (!n) return true;
  if (n.kind === 'comment') return true;
  if (n.kind === 'list') return n.nodes.every(isEmptyTree);
  if (n.kind === 'text') return n.text.trim() === '' && !/[^\s]/.test(n.text);
  return false;
}

/**
 * Parses `text` as template `name`; returns every tree it defines (the main one under `name`).
 * `hasFunction` says whether an identifier names a function (checked at parse time, as Go does).
 */
export function parse(name: string, text: string, hasFunction: (fn: string) => boolean, delims?: [string, string]): Map<string, ParsedTree> {
  const tokens = lex(text, delims?.[0], delims?.[1]);
  const info: TreeInfo = { parseName: name, text };
  const treeSet = new Map<string, ParsedTree>();
  let idx = 0;
  let furthest = 0;
  let vars: string[] = ['$'];
  let rangeDepth = 0;
  let actionLine = 0;

  const fail = (msg: string): never => {
    const line = tokens[Math.min(Math.max(furthest - 1, 0), tokens.length - 1)].line;
    throw new TemplateParseError(`template: ${name}:${line}: ${msg}`);
  };
  const next = (): Token => {
    const t = tokens[Math.min(idx, tokens.length - 1)];
    idx++;
    furthest = Math.max(furthest, idx);
    return t;
  };
  const backup = (n = 1): void => { idx -= n; };
  const peek = (): Token => { const t = next(); backup(); return t; };
  const nextNonSpace = (): Token => {
    let t = next();
    while (t.type === 'space') t = next();
    return t;
  };
  const peekNonSpace = (): Token => {
    const t = nextNonSpace();
    backup();
    return t;
  };
  const unexpected = (t: Token, context: string): never => {
    if (t.type === 'error') {
      let extra = '';
      if (actionLine !== 0 && actionLine !== t.line) {
        extra = ` in action started at ${name}:${actionLine}`;
        if (t.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      return fail(`${t.val}${extra}`);
    }
    return fail(`unexpected ${tokenString(t)} in ${context}`);
  };
  const expect = (type: TokenType, context: string): Token => {
    const t = nextNonSpace();
    if (t.type !== type) unexpected(t, context);
    return t;
  };
  const unq = (t: Token): string => {
    try {
      return unquote(t.val);
    } catch (e) {
      return fail((e as Error).message);
    }
  };
  const addTree = (tree: ParsedTree): void => {
    const existing = treeSet.get(tree.name);
    if (!existing || isEmptyTree(existing.root)) {
      treeSet.set(tree.name, tree);
      return;
    }
    if (!isEmptyTree(tree.root)) fail(`template: multiple definition of template ${quoteString(tree.name)}`);
  };
  const newList = (pos: number): ListNode => ({ kind: 'list', pos, tree: info, nodes: [] });

  function itemList(): [ListNode, Node] {
    const list = newList(peekNonSpace().pos);
    while (peekNonSpace().type !== 'eof') {
      const n = textOrAction();
      if (n.kind === 'end' || n.kind === 'else') return [list, n];
      list.nodes.push(n);
    }
    return fail('unexpected EOF');
  }

  function textOrAction(): Node {
    const t = nextNonSpace();
    switch (t.type) {
      case 'text':
        return { kind: 'text', pos: t.pos, tree: info, text: t.val };
      case 'leftDelim': {
        actionLine = t.line;
        try {
          return action();
        } finally {
          actionLine = 0;
        }
      }
      default:
        return unexpected(t, 'input');
    }
  }

  function action(): Node {
    const t = nextNonSpace();
    switch (t.type) {
      case 'block': return blockControl();
      case 'break':
      case 'continue': {
        const r = nextNonSpace();
        if (r.type !== 'rightDelim') unexpected(r, `{{${t.type}}}`);
        if (rangeDepth === 0) fail(`{{${t.type}}} outside {{range}}`);
        return { kind: t.type, pos: t.pos, tree: info };
      }
      case 'else': {
        const p = peekNonSpace();
        if (p.type === 'if' || p.type === 'with') return { kind: 'else', pos: p.pos, tree: info } satisfies ElseNode;
        const r = expect('rightDelim', 'else');
        return { kind: 'else', pos: r.pos, tree: info };
      }
      case 'end':
        return { kind: 'end', pos: expect('rightDelim', 'end').pos, tree: info } satisfies EndNode;
      case 'if':
      case 'range':
      case 'with':
        return control(t.type);
      case 'template': {
        const nameTok = nextNonSpace();
        const tname = templateName(nameTok, 'template clause');
        let pipe: PipeNode | undefined;
        if (nextNonSpace().type !== 'rightDelim') {
          backup();
          pipe = pipeline('template clause', 'rightDelim');
        }
        return { kind: 'template', pos: nameTok.pos, line: nameTok.line, tree: info, name: tname, pipe } satisfies TemplateNode;
      }
    }
    backup();
    const p = peek();
    return { kind: 'action', pos: p.pos, line: p.line, tree: info, pipe: pipeline('command', 'rightDelim') };
  }

  function templateName(t: Token, context: string): string {
    if (t.type === 'string' || t.type === 'rawString') return unq(t);
    return unexpected(t, context);
  }

  function blockControl(): Node {
    const context = 'block clause';
    const nameTok = nextNonSpace();
    const bname = templateName(nameTok, context);
    const pipe = pipeline(context, 'rightDelim');
    const saved = { vars, rangeDepth };
    vars = ['$'];
    rangeDepth = 0;
    const [root, end] = itemList();
    if (end.kind !== 'end') fail(`unexpected {{${end.kind}}} in ${context}`);
    vars = saved.vars;
    rangeDepth = saved.rangeDepth;
    addTree({ name: bname, root });
    return { kind: 'template', pos: nameTok.pos, line: nameTok.line, tree: info, name: bname, pipe } satisfies TemplateNode;
  }

  function control(context: 'if' | 'range' | 'with'): Node {
    const mark = vars.length;
    try {
      const pipe = pipeline(context, 'rightDelim');
      if (context === 'range') rangeDepth++;
      let [list, nextNode] = itemList();
      if (context === 'range') rangeDepth--;
      let elseList: ListNode | undefined;
      if (nextNode.kind === 'else') {
        if ((context === 'if' && peek().type === 'if') || (context === 'with' && peek().type === 'with')) {
          next();
          elseList = newList(nextNode.pos);
          elseList.nodes.push(control(context));
        } else {
          [elseList, nextNode] = itemList();
          if (nextNode.kind !== 'end') fail(`expected end; found {{${nextNode.kind}}}`);
        }
      }
      list = list as ListNode;
      return { kind: context, pos: pipe.pos, line: pipe.line, tree: info, pipe, list, elseList };
    } finally {
      vars = vars.slice(0, mark);
    }
  }

  function pipeline(context: string, end: TokenType): PipeNode {
    const first = peekNonSpace();
    const pipe: PipeNode = { kind: 'pipe', pos: first.pos, line: first.line, tree: info, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = peekNonSpace();
      if (v.type !== 'variable') break;
      const before = idx;
      nextNonSpace();
      const after = peek();
      const nx = peekNonSpace();
      if (nx.type === 'assign' || nx.type === 'declare') {
        pipe.isAssign = nx.type === 'assign';
        nextNonSpace();
        pipe.decl.push({ kind: 'variable', pos: v.pos, tree: info, ident: [v.val] });
        vars.push(v.val);
      } else if (nx.type === 'char' && nx.val === ',') {
        nextNonSpace();
        pipe.decl.push({ kind: 'variable', pos: v.pos, tree: info, ident: [v.val] });
        vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = peekNonSpace().type;
          if (p === 'variable' || p === 'rightDelim' || p === 'rightParen') continue decls;
          fail('range can only initialize variables');
        }
        fail(`too many declarations in ${context}`);
      } else {
        idx = before;
        void after;
      }
      break;
    }
    for (;;) {
      const t = nextNonSpace();
      if (t.type === end) {
        if (pipe.cmds.length === 0) fail(`missing value for ${context}`);
        pipe.cmds.slice(1).forEach((c, i) => {
          if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0].kind)) fail(`non executable command in pipeline stage ${i + 2}`);
        });
        return pipe;
      }
      switch (t.type) {
        case 'bool': case 'charConstant': case 'dot': case 'field': case 'identifier': case 'number':
        case 'nil': case 'rawString': case 'string': case 'variable': case 'leftParen':
          backup();
          pipe.cmds.push(command());
          break;
        default:
          unexpected(t, context);
      }
    }
  }

  function command(): CommandNode {
    const cmd: CommandNode = { kind: 'command', pos: peekNonSpace().pos, tree: info, args: [] };
    for (;;) {
      peekNonSpace();
      const op = operand();
      if (op) cmd.args.push(op);
      const t = next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') backup();
      else if (t.type !== 'pipe') unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) fail('empty command');
    return cmd;
  }

  function operand(): ArgNode | undefined {
    const node = term();
    if (!node) return undefined;
    if (peek().type !== 'field') return node;
    const chainPos = peek().pos;
    const fields: string[] = [];
    while (peek().type === 'field') fields.push(next().val.slice(1));
    switch (node.kind) {
      case 'field':
        return { kind: 'field', pos: chainPos, tree: info, ident: [...node.ident, ...fields] };
      case 'variable':
        return { kind: 'variable', pos: chainPos, tree: info, ident: [...node.ident, ...fields] };
      case 'bool': case 'string': case 'number': case 'nil': case 'dot': {
        const s = node.kind === 'string' ? node.quoted : node.kind === 'number' ? node.text : node.kind === 'bool' ? String(node.value) : node.kind === 'nil' ? 'nil' : '.';
        return fail(`unexpected . after term ${quoteString(s)}`);
      }
      default:
        return { kind: 'chain', pos: chainPos, tree: info, node, field: fields };
    }
  }

  function term(): ArgNode | undefined {
    const t = nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!hasFunction(t.val)) fail(`function ${quoteString(t.val)} not defined`);
        return { kind: 'identifier', pos: t.pos, tree: info, ident: t.val };
      case 'dot':
        return { kind: 'dot', pos: t.pos, tree: info };
      case 'nil':
        return { kind: 'nil', pos: t.pos, tree: info };
      case 'variable': {
        const ident = t.val.split('.');
        if (!vars.includes(ident[0])) fail(`undefined variable ${quoteString(ident[0])}`);
        return { kind: 'variable', pos: t.pos, tree: info, ident };
      }
      case 'field':
        return { kind: 'field', pos: t.pos, tree: info, ident: t.val.slice(1).split('.') };
      case 'bool':
        return { kind: 'bool', pos: t.pos, tree: info, value: t.val === 'true' };
      case 'charConstant':
      case 'number':
        return numberNode(t);
      case 'leftParen':
        return pipeline('parenthesized pipeline', 'rightParen');
      case 'string':
      case 'rawString':
        return { kind: 'string', pos: t.pos, tree: info, quoted: t.val, text: unq(t) };
    }
    backup();
    return undefined;
  }

  function numberNode(t: Token): NumberNode {
    const n: NumberNode = { kind: 'number', pos: t.pos, tree: info, text: t.val, isInt: false, isUint: false, isFloat: false, isComplex: false, int: 0, float: 0, complex: { re: 0, im: 0 } };
    if (t.type === 'charConstant') {
      const s = unq(t);
      const cp = s.codePointAt(0)!;
      Object.assign(n, { isInt: true, isUint: true, isFloat: true, int: cp, float: cp });
      return n;
    }
    if (/i$/.test(t.val)) {
      const m = /^([+-]?[^+-]*?(?:[eEpP][+-]?[0-9_]+)?)([+-][^+-]*?(?:[eEpP][+-]?[0-9_]+)?)i$/.exec(t.val);
      const re = m ? parseGoFloat(m[1]!) : 0;
      const im = m ? parseGoFloat(m[2]!) : parseGoFloat(t.val.slice(0, -1));
      if (re === undefined || im === undefined) fail(`illegal number syntax: ${quoteString(t.val)}`);
      Object.assign(n, { isComplex: true, complex: { re, im } });
      // NOTE: Go's simplifyComplex: a complex with no imaginary part is also a float (and an int when integral).
      if (im === 0) {
        Object.assign(n, { isFloat: true, float: re });
        if (Number.isInteger(re!) && Math.abs(re!) < 2 ** 63) Object.assign(n, { isInt: true, isUint: re! >= 0, int: re });
      }
      return n;
    }
    const i = parseGoInt(t.val);
    if (i !== undefined) {
      Object.assign(n, { isInt: true, isUint: i >= 0, isFloat: true, int: i, float: i });
      return n;
    }
    const f = parseGoFloat(t.val);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(t.val)) fail(`integer overflow: ${quoteString(t.val)}`);
      Object.assign(n, { isFloat: true, float: f });
      if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) Object.assign(n, { isInt: true, isUint: f >= 0, int: f });
      return n;
    }
    if (/^[+-]?0[xX]/.test(t.val) || /^\d/.test(t.val.replace(/^[+-]/, ''))) {
      const u = t.val.replace(/^\+/, '');
      if (!u.startsWith('-') && /^[0-9a-fA-FxXoObB_]+$/.test(u)) {
        try {
          if (BigInt(u.replace(/_/g, '')) <= 18446744073709551615n) {
            Object.assign(n, { isUint: true, isFloat: true, float: Number(BigInt(u.replace(/_/g, ''))) });
            return n;
          }
        } catch { /* not an unsigned literal */ }
      }
    }
    return fail(`illegal number syntax: ${quoteString(t.val)}`);
  }

  // Top level.
  const root = newList(peek().pos);
  while (peek().type !== 'eof') {
    if (peek().type === 'leftDelim') {
      const before = idx;
      next();
      if (nextNonSpace().type === 'define') {
        const context = 'define clause';
        const savedVars = vars;
        vars = ['$'];
        const nameTok = nextNonSpace();
        if (nameTok.type !== 'string' && nameTok.type !== 'rawString') unexpected(nameTok, context);
        const dname = unq(nameTok);
        expect('rightDelim', context);
        const [body, end] = itemList();
        if (end.kind !== 'end') fail(`unexpected {{${end.kind}}} in ${context}`);
        addTree({ name: dname, root: body });
        vars = savedVars;
        continue;
      }
      idx = before;
    }
    const n = textOrAction();
    if (n.kind === 'end' || n.kind === 'else') fail(`unexpected {{${n.kind}}}`);
    root.nodes.push(n);
  }
  addTree({ name, root });
  return treeSet;
}
