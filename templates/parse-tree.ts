/**
 * Parse-tree nodes, shaped like Go's text/template/parse nodes, with Go's `String()` forms (used in
 * error messages: `executing "t" at <.foo>`).
 */
import { quoteString } from './go-fmt.js';

interface Base {
  /** Offset of the node in the template text. */
  pos: number;
  /** The tree (template body) the node was parsed in, for error locations. */
  tree: TreeInfo;
}

/** What errors need to know about the tree a node came from. */
export interface TreeInfo {
  /** Name of the template the text was parsed for (Go's ParseName). */
  parseName: string;
  text: string;
}

export interface TextNode extends Base { kind: 'text'; text: string }
export interface CommentNode extends Base { kind: 'comment'; text: string }
export interface ActionNode extends Base { kind: 'action'; line: number; pipe: PipeNode }
export interface ListNode extends Base { kind: 'list'; nodes: Node[] }
export interface PipeNode extends Base { kind: 'pipe'; line: number; isAssign: boolean; decl: VariableNode[]; cmds: CommandNode[] }
export interface CommandNode extends Base { kind: 'command'; args: ArgNode[] }
export interface FieldNode extends Base { kind: 'field'; ident: string[] }
export interface VariableNode extends Base { kind: 'variable'; ident: string[] }
export interface ChainNode extends Base { kind: 'chain'; node: ArgNode; field: string[] }
export interface IdentifierNode extends Base { kind: 'identifier'; ident: string }
export interface DotNode extends Base { kind: 'dot' }
export interface NilNode extends Base { kind: 'nil' }
export interface BoolNode extends Base { kind: 'bool'; value: boolean }
export interface StringNode extends Base { kind: 'string'; quoted: string; text: string }
/** A number constant with the interpretations Go's parser found (int, uint, float). */
export interface NumberNode extends Base {
  kind: 'number';
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int: number;
  float: number;
  /** The value of a complex constant (`1i`, `1+2i`). */
  complex: { re: number; im: number };
}
export interface IfNode extends Base { kind: 'if'; line: number; pipe: PipeNode; list: ListNode; elseList?: ListNode }
export interface WithNode extends Base { kind: 'with'; line: number; pipe: PipeNode; list: ListNode; elseList?: ListNode }
export interface RangeNode extends Base { kind: 'range'; line: number; pipe: PipeNode; list: ListNode; elseList?: ListNode }
export interface TemplateNode extends Base { kind: 'template'; line: number; name: string; pipe?: PipeNode }
export interface BreakNode extends Base { kind: 'break' }
export interface ContinueNode extends Base { kind: 'continue' }
export interface EndNode extends Base { kind: 'end' }
export interface ElseNode extends Base { kind: 'else' }

/** Nodes that can be command arguments (operands). */
export type ArgNode =
  | FieldNode | VariableNode | ChainNode | IdentifierNode | DotNode | NilNode | BoolNode | StringNode | NumberNode | PipeNode;

/** Any parse-tree node. */
export type Node =
  | TextNode | CommentNode | ActionNode | ListNode | PipeNode | CommandNode | ArgNode
  | IfNode | WithNode | RangeNode | TemplateNode | BreakNode | ContinueNode | EndNode | ElseNode;

function controlString(name: string, n: IfNode | WithNode | RangeNode): string {
  let s = `{{${name} ${nodeString(n.pipe)}}}${nodeString(n.list)}`;
  if (n.elseList) s += `{{else}}${nodeString(n.elseList)}`;
  return s + '{{end}}';
}

/** Go's `Node.String()`. */
export function nodeString(n: Node): string {
  switch (n.kind) {
    case 'text':
      return quoteString(n.text);
    case 'comment':
      return `{{${n.text}}}`;
    case 'action':
      return `{{${nodeString(n.pipe)}}}`;
    case 'list':
      return n.nodes.map(nodeString).join('');
    case 'pipe': {
      let s = '';
      if (n.decl.length > 0) s = n.decl.map(nodeString).join(', ') + (n.isAssign ? ' = ' : ' := ');
      return s + n.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.kind === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'field':
      return n.ident.map((i) => '.' + i).join('');
    case 'variable':
      return n.ident.join('.');
    case 'chain':
      return (n.node.kind === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.field.map((f) => '.' + f).join('');
    case 'identifier':
      return n.ident;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(n.value);
    case 'string':
      return n.quoted;
    case 'number':
      return n.text;
    case 'if':
      return controlString('if', n);
    case 'with':
      return controlString('with', n);
    case 'range':
      return controlString('range', n);
    case 'template':
      return n.pipe ? `{{template ${quoteString(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${quoteString(n.name)}}}`;
    case 'break':
      return '{{break}}';
    case 'continue':
      return '{{continue}}';
    case 'end':
      return '{{end}}';
    case 'else':
      return '{{else}}';
  }
}

/** Go's `Tree.ErrorContext`: `name:line:col` (col in bytes, 0-based as Go computes it) and the node text. */
export function errorContext(n: Node): { location: string; context: string } {
  const text = n.tree.text.slice(0, n.pos);
  const nl = text.lastIndexOf('\n');
  const col = Buffer.byteLength(nl < 0 ? text : text.slice(nl + 1), 'utf8');
  const line = 1 + (text.match(/\n/g)?.length ?? 0);
  return { location: `${n.tree.parseName}:${line}:${col}`, context: nodeString(n) };
}
