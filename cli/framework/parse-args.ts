/**
 * Command-line parsing with pflag's rules: `--flag=value`, `--flag value`, `-o json`, `-ojson`,
 * `-o=json`, grouped bool shorthands (`-yv`), `--bool`, `--bool=false`, and `--` ending the flags.
 */
import { findSubcommand, flagSetOf, FlagValues, type Command, type FlagSet } from './command.js';
import { FlagValueError, isBoolFlag, parseFlagValue, type Flag, type FlagValue } from './flag.js';
import type { FlagDefaultSource } from './cli-io.js';

/** A mistake on the command line. The runner prints it with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose usage to print (root first). */
  readonly chain: readonly Command[];
  constructor(message: string, chain: readonly Command[]) {
    super(message);
    this.chain = chain;
  }
}

/** The command an argv selects, and the words left for flag parsing. */
export interface Resolved {
  readonly chain: readonly Command[];
  readonly rest: readonly string[];
}

function lookup(set: FlagSet, name: string): Flag | undefined {
  return set.local.find((f) => f.name === name) ?? set.inherited.find((f) => f.name === name);
}

function lookupShort(set: FlagSet, short: string): Flag | undefined {
  return set.local.find((f) => f.short === short) ?? set.inherited.find((f) => f.short === short);
}

/**
 * Walks the leading command words (skipping flags and their values, as cobra's `Find` does) to the
 * command they name. Words after the first positional argument are not taken as subcommands.
 */
export function resolveCommand(root: Command, argv: readonly string[]): Resolved {
  const chain: Command[] = [root];
  const rest: string[] = [];
  let sawPositional = false;
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('-') && a.length > 1) {
      rest.push(a);
      const set = flagSetOf(chain);
      if (a.startsWith('--') && !a.includes('=')) {
        const f = lookup(set, a.slice(2));
        if (f && !isBoolFlag(f) && i + 1 < argv.length) rest.push(argv[++i]!);
      } else if (!a.startsWith('--') && a.length === 2) {
        const f = lookupShort(set, a.slice(1));
        if (f && !isBoolFlag(f) && i + 1 < argv.length) rest.push(argv[++i]!);
      }
      i++;
      continue;
    }
    const sub = findSubcommand(chain[chain.length - 1]!, a);
    if (sub && !sawPositional) {
      chain.push(sub);
    } else {
      sawPositional = true;
      rest.push(a);
    }
    i++;
  }
  return { chain, rest };
}

/** The outcome of parsing flags for one command. */
export interface Parsed {
  readonly flags: FlagValues;
  readonly args: readonly string[];
  readonly help: boolean;
}

/**
 * Parses `rest` against the flags of the chain's last command. Flags not given take their value from
 * `defaults` (first source that answers) or their declared default.
 */
export function parseFlags(chain: readonly Command[], rest: readonly string[], defaults: readonly FlagDefaultSource[] = []): Parsed {
  const set = flagSetOf(chain);
  const all = [...set.local, ...set.inherited];
  const values = new Map<string, FlagValue>(all.map((f) => [f.name, f.default]));
  const changed = new Set<string>();
  const args: string[] = [];
  const fail = (msg: string): never => {
    throw new UsageError(msg, chain);
  };
  const assign = (f: Flag, text: string): void => {
    try {
      values.set(f.name, parseFlagValue(f, text, values.get(f.name)!, !changed.has(f.name)));
    } catch (e) {
      if (e instanceof FlagValueError) fail(e.message);
      throw e;
    }
    changed.add(f.name);
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      args.push(...rest.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const f = lookup(set, name) ?? fail(`unknown flag: --${name}`);
      if (eq >= 0) assign(f, a.slice(eq + 1));
      else if (isBoolFlag(f)) assign(f, 'true');
      else if (i + 1 < rest.length) assign(f, rest[++i]!);
      else fail(`flag needs an argument: --${name}`);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      // Shorthands: bools may be grouped; a value may follow directly, after '=', or as the next word.
      for (let j = 1; j < a.length; j++) {
        const s = a[j]!;
        const f = lookupShort(set, s) ?? fail(`unknown shorthand flag: '${s}' in ${a}`);
        const tail = a.slice(j + 1);
        if (tail.startsWith('=')) {
          assign(f, tail.slice(1));
          break;
        }
        if (isBoolFlag(f)) {
          assign(f, 'true');
          continue;
        }
        if (tail !== '') assign(f, tail);
        else if (i + 1 < rest.length) assign(f, rest[++i]!);
        else fail(`flag needs an argument: '${s}' in -${s}`);
        break;
      }
      continue;
    }
    args.push(a);
  }
  for (const f of all) {
    if (changed.has(f.name)) continue;
    for (const source of defaults) {
      const d = source(f.name);
      if (!d) continue;
      try {
        values.set(f.name, parseFlagValue(f, d.value, f.default, true));
      } catch (e) {
        if (e instanceof FlagValueError) fail(`${d.origin}: ${e.message}`);
        throw e;
      }
      break;
    }
  }
  return { flags: new FlagValues(all, values, changed), args, help: values.get('help') === true };
}
