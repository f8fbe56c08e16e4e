/**
 * The executor: walks parse trees with Go's text/template evaluation rules (pipelines, variables,
 * field chains, argument type checks, `missingkey`, range and its variables, `template`) and Go's
 * error messages (`template: NAME:LINE:COL: executing "NAME" at <NODE>: ...`).
 */
import { sprint } from './go-fmt.js';
import {
  GoComplex,
  GoFunction, GoInt, GoStruct, type GoParamType, type GoValue, isMap, isTrue, mapValueType, sliceElemType,
  sortedKeys, typeName, zeroOf,
} from './go-value.js';
import { errorContext, nodeString, type ArgNode, type ListNode, type Node, type NumberNode, type PipeNode } from './parse-tree.js';

/** What to do when a map is indexed with a key it lacks (Go's `missingkey` option). */
export type MissingKey = 'default' | 'zero' | 'error';

/** An execution failure, with Go's message. */
export class TemplateExecError extends Error {
  override name = 'TemplateExecError';
}

/** What the executor needs from a template set. */
export interface ExecEnv {
  lookupTree(name: string): ListNode | undefined;
  lookupFunc(name: string): GoFunction | undefined;
  missingKey: MissingKey;
}

/** A value read through an `interface {}` (map element, slice element): Go reports its type as `interface {}`. */
class Boxed {
  constructor(readonly v: GoValue) {}
}
type Val = GoValue | Boxed;
const MISSING = Symbol('missing');
type Final = Val | typeof MISSING;

class BreakSignal {}
class ContinueSignal {}
const MAX_DEPTH = 100000;

const unbox = (v: Val): GoValue => (v instanceof Boxed ? v.v : v);

function canBeNil(t: GoParamType): boolean {
  return t === 'interface {}' || t === 'reflect.Value' || t.startsWith('[]') || t.startsWith('map[');
}

/** Runs one template body. */
export function execute(env: ExecEnv, name: string, root: ListNode | undefined, data: GoValue): string {
  const st = new State(env, name, data);
  if (!root) throw new TemplateExecError(`template: ${name}: ${JSON.stringify(name)} is an incomplete or empty template`);
  try {
    st.walk(data, root);
  } catch (e) {
    if (e instanceof RangeError) st.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
    throw e;
  }
  return st.out.join('');
}

class State {
  out: string[] = [];
  vars: { name: string; value: Val }[];
  node: Node | undefined;
  depth = 0;
  constructor(
    readonly env: ExecEnv,
    public tmpl: string,
    dot: GoValue,
  ) {
    this.vars = [{ name: '$', value: dot }];
  }

  errorf(msg: string): never {
    if (!this.node) throw new TemplateExecError(`template: ${this.tmpl}: ${msg}`);
    const { location, context } = errorContext(this.node);
    throw new TemplateExecError(`template: ${location}: executing ${JSON.stringify(this.tmpl)} at <${context}>: ${msg}`);
  }

  at(n: Node): void {
    this.node = n;
  }

  walk(dot: Val, node: Node): void {
    this.at(node);
    switch (node.kind) {
      case 'action': {
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, v);
        return;
      }
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
      case 'comment':
        return;
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const v = this.evalPipeline(dot, node.pipe);
        if (isTrue(unbox(v))) this.walk(node.kind === 'with' ? v : dot, node.list);
        else if (node.elseList) this.walk(dot, node.elseList);
        this.vars.length = mark;
        return;
      }
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        return this.walkRange(dot, node);
      case 'template': {
        const tree = this.env.lookupTree(node.name);
        if (!tree) this.errorf(`template ${JSON.stringify(node.name)} not defined`);
        if (this.depth >= MAX_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
        const newDot = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined;
        const saved = { tmpl: this.tmpl, vars: this.vars };
        this.tmpl = node.name;
        this.vars = [{ name: '$', value: newDot }];
        this.depth++;
        try {
          this.walk(newDot, tree);
        } catch (e) {
          if (e instanceof RangeError) {
            this.at(node);
            this.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
          }
          throw e;
        } finally {
          this.depth--;
          this.tmpl = saved.tmpl;
          this.vars = saved.vars;
        }
        return;
      }
      case 'text':
        this.out.push(node.text);
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  walkRange(dot: Val, r: Extract<Node, { kind: 'range' }>): void {
    this.at(r);
    const outerMark = this.vars.length;
    const val = unbox(this.evalPipeline(dot, r.pipe));
    const mark = this.vars.length;
    const decl = r.pipe.decl;
    const setVar = (name: string, value: Val): void => {
      for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) { this.vars[i].value = value; return; }
      this.errorf(`undefined variable: ${name}`);
    };
    const one = (index: Val, elem: Val): boolean => {
      if (decl.length > 0) {
        if (r.pipe.isAssign) setVar(decl[0].ident[0], decl.length > 1 ? index : elem);
        else this.vars[this.vars.length - 1].value = elem;
      }
      if (decl.length > 1) {
        if (r.pipe.isAssign) setVar(decl[1].ident[0], elem);
        else this.vars[this.vars.length - 2].value = index;
      }
      try {
        this.walk(elem, r.list);
      } catch (e) {
        if (e instanceof BreakSignal) return false;
        if (!(e instanceof ContinueSignal)) throw e;
      } finally {
        this.vars.length = mark;
      }
      return true;
    };
    let ran = false;
    if (val instanceof GoInt) {
      if (decl.length > 1) this.errorf(`can't use ${sprint([val])} to iterate over more than one variable`);
      for (let i = 0; i < val.value; i++) {
        ran = true;
        if (!one(undefined, new GoInt(i, val.type))) break;
      }
    } else if (Array.isArray(val)) {
      const boxed = sliceElemType(val) === 'interface {}';
      for (let i = 0; i < val.length; i++) {
        ran = true;
        if (!one(new GoInt(i), boxed ? new Boxed(val[i]) : val[i])) break;
      }
    } else if (isMap(val)) {
      const boxed = mapValueType(val) === 'interface {}';
      for (const k of sortedKeys(val)) {
        ran = true;
        if (!one(k, boxed ? new Boxed(val[k]) : val[k])) break;
      }
    } else if (val !== undefined && val !== null) {
      this.errorf(`range can't iterate over ${sprint([val])}`);
    }
    if (!ran && r.elseList) this.walk(dot, r.elseList);
    this.vars.length = outerMark;
  }

  printValue(n: Node, v: Val): void {
    this.at(n);
    const u = unbox(v);
    if (u === undefined) {
      this.out.push('<no value>');
      return;
    }
    if (u instanceof GoFunction) this.errorf(`can't print ${nodeString(n)} of type ${typeName(u)}`);
    this.out.push(sprint([u]));
  }

  evalPipeline(dot: Val, pipe: PipeNode): Val {
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd.args, value, cmd);
      value = unbox(value);
      if (value === null) value = undefined;
    }
    const v = value === MISSING ? undefined : value;
    for (const variable of pipe.decl) {
      if (pipe.isAssign) {
        const name = variable.ident[0];
        const slot = [...this.vars].reverse().find((x) => x.name === name);
        if (!slot) this.errorf(`undefined variable: ${name}`);
        slot.value = v;
      } else this.vars.push({ name: variable.ident[0], value: v });
    }
    return v;
  }

  notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0])}`);
  }

  evalCommand(dot: Val, args: ArgNode[], final: Final, cmd?: Node): Val {
    const first = args[0];
    switch (first.kind) {
      case 'field':
        this.at(first);
        return this.evalFieldChain(dot, dot, first, first.ident, args, final);
      case 'chain': {
        this.at(first);
        if (first.node.kind === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(first)}`);
        const recv = this.evalArg(dot, 'interface {}', first.node, true);
        return this.evalFieldChain(dot, recv, first, first.field, args, final);
      }
      case 'identifier':
        return this.evalFunction(dot, first.ident, cmd ?? first, args, final, first);
      case 'pipe':
        this.notAFunction(args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariable(dot, first, args, final);
    }
    this.at(first);
    this.notAFunction(args, final);
    switch (first.kind) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        return this.errorf('nil is not a command');
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
  }

  idealConstant(c: NumberNode): GoValue {
    this.at(c);
    if (c.isComplex) return new GoComplex(c.complex.re, c.complex.im);
    const isHex = /^[+-]?0[xX]/.test(c.text) && !/[pP]/.test(c.text);
    if (c.isFloat && !isHex && !c.text.startsWith("'") && /[.eEpP]/.test(c.text)) return c.float;
    if (c.isInt) return new GoInt(c.int);
    return this.errorf(`${c.text} overflows int`);
  }

  varValue(name: string): Val {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return this.errorf(`undefined variable: ${name}`);
  }

  evalVariable(dot: Val, v: Extract<Node, { kind: 'variable' }>, args: ArgNode[] | undefined, final: Final): Val {
    this.at(v);
    const value = this.varValue(v.ident[0]);
    if (v.ident.length === 1) {
      if (args) this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  evalFieldChain(dot: Val, receiver: Val, node: Node, ident: string[], args: ArgNode[] | undefined, final: Final): Val {
    for (let i = 0; i < ident.length - 1; i++) receiver = this.evalField(ident[i], undefined, MISSING, receiver, dot, node);
    return this.evalField(ident[ident.length - 1], args, final, receiver, dot, node);
  }

  evalFunction(dot: Val, name: string, node: Node, args: ArgNode[] | undefined, final: Final, ident: Node = node): Val {
    this.at(ident);
    const fn = this.env.lookupFunc(name);
    if (!fn) this.errorf(`${JSON.stringify(name)} is not a defined function`);
    return this.evalCall(dot, fn, node, name, args, final);
  }

  evalField(fieldName: string, args: ArgNode[] | undefined, final: Final, receiver: Val, dot: Val = receiver, node?: Node): Val {
    if (receiver === undefined) {
      if (this.env.missingKey === 'error') this.errorf(`nil data; no entry for key ${JSON.stringify(fieldName)}`);
      return undefined;
    }
    const typ = receiver instanceof Boxed || receiver === null ? 'interface {}' : typeName(receiver);
    const r = unbox(receiver);
    if (r === null || r === undefined) this.errorf(`nil pointer evaluating ${typ}.${fieldName}`);
    const hasArgs = (args !== undefined && args.length > 1) || final !== MISSING;
    if (r instanceof GoStruct && Object.hasOwn(r.fields, fieldName)) {
      if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
      return r.fields[fieldName];
    }
    if (r instanceof GoStruct && Object.hasOwn(r.methods, fieldName)) {
      // NOTE: a method's arguments are evaluated against dot, as Go's evalCall does for methods.
      return this.evalCall(dot, r.methods[fieldName], node ?? (this.node as Node), fieldName, args, final);
    }
    if (isMap(r)) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.hasOwn(r, fieldName)) {
        const v = r[fieldName];
        return mapValueType(r) === 'interface {}' ? new Boxed(v) : v;
      }
      switch (this.env.missingKey) {
        case 'zero':
          return zeroOf(mapValueType(r));
        case 'error':
          return this.errorf(`map has no entry for key ${JSON.stringify(fieldName)}`);
        default:
          return undefined;
      }
    }
    return this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  evalCall(dot: Val, fn: GoFunction, node: Node, name: string, allArgs: ArgNode[] | undefined, final: Final): Val {
    const args = allArgs ? allArgs.slice(1) : [];
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const numFixed = fn.variadic !== undefined ? fn.params.length : args.length;
    if (fn.variadic !== undefined) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${fn.params.length} got ${args.length}`);
    } else if (numIn !== fn.params.length) this.errorf(`wrong number of args for ${name}: want ${fn.params.length} got ${numIn}`);

    if (fn === AND_OR.and || fn === AND_OR.or) {
      let v: Val = undefined;
      for (const a of args) {
        v = this.evalArg(dot, 'reflect.Value', a);
        if (isTrue(unbox(v)) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: GoValue[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(unbox(this.evalArg(dot, fn.params[i], args[i])));
    if (fn.variadic !== undefined) for (; i < args.length; i++) argv.push(unbox(this.evalArg(dot, fn.variadic, args[i])));
    if (final !== MISSING) {
      let t: GoParamType = fn.params[fn.params.length - 1];
      if (fn.variadic !== undefined) t = numIn - 1 < numFixed ? fn.params[numIn - 1] : fn.variadic;
      argv.push(unbox(this.validateType(final, t)));
    }
    if (fn === CALL) argv.unshift(args.length === 0 ? sprint([unbox(final as Val)]) : nodeString(args[0]));
    try {
      return fn.fn(...argv);
    } catch (e) {
      if (e instanceof BreakSignal || e instanceof ContinueSignal) throw e;
      this.at(node);
      return this.errorf(`error calling ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  validateType(value: Val, typ: GoParamType): Val {
    if (value === undefined) {
      if (canBeNil(typ)) return typ === 'reflect.Value' ? undefined : null;
      return this.errorf(`invalid value; expected ${typ}`);
    }
    if (typ === 'reflect.Value' || typ === 'interface {}') return value;
    const v = unbox(value);
    if (assignable(v, typ)) return v;
    const got = v === null ? 'interface {}' : typeName(v);
    return this.errorf(`wrong type for value; expected ${typ}; got ${got}`);
  }

  evalArg(dot: Val, typ: GoParamType, n: ArgNode, keepBox = false): Val {
    this.at(n);
    switch (n.kind) {
      case 'dot':
        return this.validateType(dot, typ);
      case 'nil':
        if (canBeNil(typ)) return typ === 'reflect.Value' ? undefined : null;
        return this.errorf(`cannot assign nil to ${typ}`);
      case 'field': {
        const v = this.evalFieldChain(dot, dot, n, n.ident, [n], MISSING);
        return keepBox ? v : this.validateType(v, typ);
      }
      case 'variable': {
        const v = this.evalVariable(dot, n, undefined, MISSING);
        return keepBox ? v : this.validateType(v, typ);
      }
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), typ);
      case 'identifier':
        return this.validateType(this.evalFunction(dot, n.ident, n, undefined, MISSING), typ);
      case 'chain': {
        const v = this.evalCommand(dot, [n], MISSING);
        return keepBox ? v : this.validateType(v, typ);
      }
    }
    switch (typ) {
      case 'bool':
        if (n.kind === 'bool') return n.value;
        return this.errorf(`expected bool; found ${nodeString(n)}`);
      case 'float64':
        if (n.kind === 'number' && n.isFloat) return n.float;
        return this.errorf(`expected float; found ${nodeString(n)}`);
      case 'int':
      case 'int64':
        if (n.kind === 'number' && n.isInt) return new GoInt(n.int, typ);
        return this.errorf(`expected integer; found ${nodeString(n)}`);
      case 'string':
        if (n.kind === 'string') return n.text;
        return this.errorf(`expected string; found ${nodeString(n)}`);
      case 'interface {}':
      case 'reflect.Value':
        if (n.kind === 'bool') return n.value;
        if (n.kind === 'string') return n.text;
        return this.idealConstant(n);
    }
    return this.errorf(`can't handle ${nodeString(n)} for arg of type ${typ}`);
  }
}

/** True if a Go value of `v`'s type is assignable to a parameter of type `typ`. */
function assignable(v: GoValue, typ: GoParamType): boolean {
  switch (typ) {
    case 'string': return typeof v === 'string';
    case 'bool': return typeof v === 'boolean';
    case 'float64': return typeof v === 'number';
    case 'int':
    case 'int64': return v instanceof GoInt && v.type === typ;
    case '[]interface {}':
    case '[]string': return Array.isArray(v) && typeName(v) === typ;
    case 'map[string]interface {}': return isMap(v) && typeName(v) === typ;
    default: return true;
  }
}

/** The `call` built-in; the executor passes the callee's expression text as a first argument. */
export const CALL = new GoFunction(['reflect.Value'], (name, fn, ...args) => callFunction(String(name), fn, args), 'reflect.Value', true);

function callFunction(name: string, fn: GoValue, args: GoValue[]): GoValue {
  if (fn === undefined || fn === null) throw new Error('call of nil');
  if (!(fn instanceof GoFunction)) throw new Error(`non-function ${name} of type ${typeName(fn)}`);
  const numIn = fn.params.length;
  if (fn.variadic !== undefined) {
    if (args.length < numIn) throw new Error(`wrong number of args for ${name}: got ${args.length} want at least ${numIn}`);
  } else if (args.length !== numIn) throw new Error(`wrong number of args for ${name}: got ${args.length} want ${numIn}`);
  args.forEach((a, i) => {
    const t = i < numIn ? fn.params[i] : fn.variadic!;
    if (a === undefined || a === null) {
      if (!canBeNil(t)) throw new Error(`arg ${i}: value is nil; should be of type ${t}`);
    } else if (t !== 'interface {}' && t !== 'reflect.Value' && !assignable(a, t)) throw new Error(`arg ${i}: value has type ${typeName(a)}; should be ${t}`);
  });
  return fn.fn(...args.map((a) => (a === undefined ? null : a)));
}

/** The `and` and `or` built-ins: evaluated lazily by the executor, never called directly. */
export const AND_OR = {
  and: new GoFunction(['reflect.Value'], () => undefined, 'reflect.Value'),
  or: new GoFunction(['reflect.Value'], () => undefined, 'reflect.Value'),
};
