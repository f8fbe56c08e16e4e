/**
 * The public API: a set of named templates sharing functions and options, as Go's
 * `*template.Template` with its associated templates.
 */
import { builtinFunctions } from './builtins.js';
import { execute, type MissingKey } from './exec.js';
import { quoteString } from './go-fmt.js';
import type { GoFunction, GoValue } from './go-value.js';
import type { ListNode } from './parse-tree.js';
import { isEmptyTree, parse } from './parser.js';

/** Options of a template set. */
export interface TemplateSetOptions {
  /** Functions beyond the built-ins (e.g. {@link sprigFunctions}); later registrations win. */
  funcs?: Record<string, GoFunction>;
  /** Go's `missingkey` option: `default` (print `<no value>`), `zero`, or `error`. Default `default`. */
  missingKey?: MissingKey;
  /** Action delimiters, `{{` and `}}` by default. */
  delims?: [string, string];
}

/**
 * A set of templates that can invoke each other (`template`, `include`). Parse adds templates
 * (`define`d ones too); a later definition of a name replaces an earlier one unless it is empty.
 */
export class TemplateSet {
  readonly #trees = new Map<string, ListNode>();
  readonly #funcs: Record<string, GoFunction>;
  missingKey: MissingKey;
  readonly delims: [string, string] | undefined;
  /** Name of the outermost template being executed (Helm's `tpl` parses under it). */
  executing: string | undefined;

  constructor(options: TemplateSetOptions = {}) {
    this.#funcs = { ...builtinFunctions(), ...options.funcs };
    this.missingKey = options.missingKey ?? 'default';
    this.delims = options.delims;
  }

  /** Adds or replaces functions (must happen before parsing templates that use them). */
  addFuncs(funcs: Record<string, GoFunction>): this {
    Object.assign(this.#funcs, funcs);
    return this;
  }

  /** The function registered under `name`. */
  func(name: string): GoFunction | undefined {
    return Object.hasOwn(this.#funcs, name) ? this.#funcs[name] : undefined;
  }

  /**
   * Parses `text` as template `name` and adds it and its `define`s to the set.
   * @throws TemplateParseError with Go's message (`template: NAME:LINE: ...`)
   */
  parse(name: string, text: string): Template {
    const trees = parse(name, text, (fn) => Object.hasOwn(this.#funcs, fn), this.delims);
    for (const [n, tree] of trees) {
      const existing = this.#trees.get(n);
      if (existing && isEmptyTree(tree.root) && !isEmptyTree(existing)) continue;
      this.#trees.set(n, tree.root);
    }
    return new Template(this, name);
  }

  /** The template named `name`, if the set has it. */
  lookup(name: string): Template | undefined {
    return this.#trees.has(name) ? new Template(this, name) : undefined;
  }

  /** Names of all templates in the set, sorted. */
  names(): string[] {
    return [...this.#trees.keys()].sort();
  }

  /**
   * Executes template `name` with `data` as dot.
   * @throws TemplateExecError with Go's message (`template: NAME:LINE:COL: executing "NAME" at <...>: ...`)
   */
  execute(name: string, data: GoValue): string {
    if (!this.#trees.has(name)) throw new Error(`template: no template ${quoteString(name)} associated with template ${quoteString(this.executing ?? name)}`);
    const outer = this.executing;
    this.executing ??= name;
    try {
      return execute(
        { lookupTree: (n) => this.#trees.get(n), lookupFunc: (n) => (Object.hasOwn(this.#funcs, n) ? this.#funcs[n] : undefined), missingKey: this.missingKey },
        name,
        this.#trees.get(name),
        data,
      );
    } finally {
      this.executing = outer;
    }
  }

  /** A copy of this set (templates, functions, options) that can be changed independently. */
  clone(): TemplateSet {
    const c = new TemplateSet({ funcs: this.#funcs, missingKey: this.missingKey, delims: this.delims });
    for (const [n, t] of this.#trees) c.#trees.set(n, t);
    return c;
  }
}

/** One named template of a set. */
export class Template {
  constructor(
    readonly set: TemplateSet,
    readonly name: string,
  ) {}

  /** Executes this template with `data` as dot; see {@link TemplateSet.execute}. */
  execute(data: GoValue): string {
    return this.set.execute(this.name, data);
  }

  /** Another template of the same set. */
  lookup(name: string): Template | undefined {
    return this.set.lookup(name);
  }
}

/** Parses one template (with its `define`s) into a new set with the given options. */
export function parseTemplate(name: string, text: string, options: TemplateSetOptions = {}): Template {
  return new TemplateSet(options).parse(name, text);
}
