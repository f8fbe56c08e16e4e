import { homedir } from 'node:os';
import { DurationError, parseDuration } from '../duration.js';
import type { ProgramName } from '../program.js';
import type { EnvType, EnvVarDeclaration } from './env-var-declaration.js';
import { defaultFor, envVarDeclaration, envVarsOf, type EnvVarName, type EnvVarNameOf } from './env-vars.js';

/** Thrown by `loadEnv` for values that do not parse, and by `Env` reads of variables the program does not read. */
export class EnvError extends Error {
  override readonly name = 'EnvError';
  /** One line per bad variable, e.g. `ENABLE_CA_SERVER="flase": not a Bool (use true or false)`. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/** A parsed value: boolean for Bool, number for Integer, Float and Duration (ms), string for String. */
export type EnvValue = boolean | number | string;

/** One variable as the program sees it (for introspection pages). */
export interface EnvEntry {
  readonly name: string;
  readonly type: EnvType;
  readonly description: string;
  /** The text from the environment, undefined when unset (or empty, for non-String variables). */
  readonly raw: string | undefined;
  /** The effective value (the environment's, else the default), undefined when unset without default. */
  readonly value: EnvValue | undefined;
}

/** Typed, already-validated reads of the variables one program reads. Made once by `loadEnv`. */
export interface Env {
  readonly program: ProgramName;
  bool(name: EnvVarNameOf<'Bool'>): boolean;
  /** undefined when the variable is unset and has no default. */
  string(name: EnvVarNameOf<'String'>): string | undefined;
  int(name: EnvVarNameOf<'Integer'>): number;
  float(name: EnvVarNameOf<'Float'>): number;
  /** Milliseconds. */
  duration(name: EnvVarNameOf<'Duration'>): number;
  /** True when the environment gave the variable a value (rather than the default). */
  isSet(name: EnvVarName): boolean;
  /** Every variable the program reads, in declaration order. */
  entries(): readonly EnvEntry[];
}

const ACCEPTED: Readonly<Record<EnvType, string>> = {
  Bool: 'use true or false',
  String: 'any text',
  Integer: 'use a whole number like 2048',
  Float: 'use a decimal number like 0.5',
  Duration: 'use a number with a unit, like 30s, 5m0s or 100ms',
};

const TRUE_FORMS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_FORMS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses `text` as a value of `type` (Go's strconv / time forms); undefined when it does not parse. */
export function parseEnvValue(type: EnvType, text: string): EnvValue | undefined {
  switch (type) {
    case 'String':
      return text;
    case 'Bool':
      return TRUE_FORMS.has(text) ? true : FALSE_FORMS.has(text) ? false : undefined;
    case 'Integer': {
      const n = Number(text);
      return /^[+-]?\d+$/.test(text) && Number.isSafeInteger(n) ? n : undefined;
    }
    case 'Float':
      return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined;
    case 'Duration':
      try {
        return parseDuration(text);
      } catch (err) {
        if (err instanceof DurationError) return undefined;
        throw err;
      }
  }
}

/**
 * Reads and validates, once, every variable `program` reads from `source`. An empty value counts as
 * unset except for String variables. `$HOME` at the start of a default is expanded (MESHCONFIG).
 * Throws `EnvError` listing every bad value.
 */
export function loadEnv(program: ProgramName, source: Readonly<Record<string, string | undefined>> = process.env): Env {
  const home = source['HOME'] ?? homedir();
  const problems: string[] = [];
  const entries = envVarsOf(program).map((d): EnvEntry => {
    const text = source[d.name];
    const raw = text === undefined || (text === '' && d.type !== 'String') ? undefined : text;
    let value: EnvValue | undefined;
    if (raw !== undefined) {
      value = parseEnvValue(d.type, raw);
      if (value === undefined) problems.push(`${d.name}=${JSON.stringify(raw)}: not ${article(d.type)} ${d.type} (${ACCEPTED[d.type]})`);
    } else {
      const fallback = defaultFor(d, program)?.replace(/^\$HOME(?=\/|$)/, home);
      value = fallback === undefined ? undefined : parseEnvValue(d.type, fallback);
    }
    return { name: d.name, type: d.type, description: d.description, raw, value };
  });
  if (problems.length > 0) throw new EnvError(problems);
  return new LoadedEnv(program, entries);
}

class LoadedEnv implements Env {
  readonly #byName: ReadonlyMap<string, EnvEntry>;
  readonly #entries: readonly EnvEntry[];
  constructor(
    readonly program: ProgramName,
    entries: readonly EnvEntry[],
  ) {
    this.#entries = entries;
    this.#byName = new Map(entries.map((e) => [e.name, e]));
  }

  bool(name: EnvVarNameOf<'Bool'>): boolean {
    return this.#read(name, 'Bool') as boolean;
  }
  string(name: EnvVarNameOf<'String'>): string | undefined {
    return this.#read(name, 'String') as string | undefined;
  }
  int(name: EnvVarNameOf<'Integer'>): number {
    return this.#read(name, 'Integer') as number;
  }
  float(name: EnvVarNameOf<'Float'>): number {
    return this.#read(name, 'Float') as number;
  }
  duration(name: EnvVarNameOf<'Duration'>): number {
    return this.#read(name, 'Duration') as number;
  }
  isSet(name: EnvVarName): boolean {
    return this.#entry(name).raw !== undefined;
  }
  entries(): readonly EnvEntry[] {
    return this.#entries;
  }

  #entry(name: string): EnvEntry {
    const entry = this.#byName.get(name);
    if (entry) return entry;
    const known = envVarDeclaration(name) as EnvVarDeclaration | undefined;
    throw new EnvError([known ? `${name}: not read by ${this.program}` : `${name}: not a declared environment variable`]);
  }

  #read(name: string, type: EnvType): EnvValue | undefined {
    const entry = this.#entry(name);
    if (entry.type !== type) throw new EnvError([`${name}: is ${article(entry.type)} ${entry.type}, not ${article(type)} ${type}`]);
    return entry.value;
  }
}

function article(type: EnvType): string {
  return type === 'Integer' ? 'an' : 'a';
}
