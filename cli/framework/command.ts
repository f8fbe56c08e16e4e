/**
 * Declarative command trees in the manner of cobra: commands with aliases, positional-argument specs,
 * local and persistent flags (persistent flags apply to every descendant), hidden commands.
 */
import type { Flag, FlagKind, FlagValue, FlagValueOf } from './flag.js';
import type { CliIo } from './cli-io.js';

/** Positional arguments: how help shows them and how many are accepted. */
export interface ArgsSpec {
  /** Shown after the command path in the usage line, e.g. `<method> <path> [<body>]`. */
  readonly usage: string;
  readonly min?: number;
  /** Absent means any number. */
  readonly max?: number;
}

/** What a command's `run` receives. */
export interface RunContext {
  readonly command: Command;
  /** Program name and command words, e.g. `['meshctl', 'proxy-config', 'cluster']`. */
  readonly path: readonly string[];
  readonly args: readonly string[];
  readonly flags: FlagValues;
  readonly io: CliIo;
  readonly root: Command;
}

/** A command's body. Returns (or resolves to) an exit code; nothing means 0. */
export type RunFn = (ctx: RunContext) => number | void | Promise<number | void>;

/** The declaration passed to `command()`. */
export interface CommandSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** One line for the parent's command list. */
  readonly short: string;
  /** The help text's opening paragraph; `short` when absent. */
  readonly long?: string;
  readonly example?: string;
  readonly args?: ArgsSpec;
  readonly flags?: readonly Flag[];
  readonly persistentFlags?: readonly Flag[];
  readonly hidden?: boolean;
  /** Cobra's deprecation note: the command still runs, warns, and is left out of command lists. */
  readonly deprecated?: string;
  readonly commands?: readonly Command[];
  readonly run?: RunFn;
}

/** A node of a command tree. */
export interface Command extends CommandSpec {
  readonly aliases: readonly string[];
  readonly flags: readonly Flag[];
  readonly persistentFlags: readonly Flag[];
  readonly commands: readonly Command[];
}

/** Thrown while declaring a tree that cobra/pflag would also reject (duplicate names or shorthands). */
export class CommandDefinitionError extends Error {
  override readonly name = 'CommandDefinitionError';
}

/** Declares a command. Checks that its own flags and subcommand names do not collide. */
export function command(spec: CommandSpec): Command {
  const c: Command = {
    ...spec,
    aliases: spec.aliases ?? [],
    flags: spec.flags ?? [],
    persistentFlags: spec.persistentFlags ?? [],
    commands: spec.commands ?? [],
  };
  const names = new Set<string>();
  for (const sub of c.commands) {
    for (const n of [sub.name, ...sub.aliases]) {
      if (names.has(n)) throw new CommandDefinitionError(`command "${c.name}": two subcommands answer to "${n}"`);
      names.add(n);
    }
  }
  checkFlags(c.name, [...c.flags, ...c.persistentFlags]);
  return c;
}

function checkFlags(where: string, flags: readonly Flag[]): void {
  const names = new Set<string>();
  const shorts = new Map<string, string>();
  for (const f of flags) {
    if (names.has(f.name) || f.name === 'help') throw new CommandDefinitionError(`command "${where}": flag --${f.name} declared twice`);
    names.add(f.name);
    if (f.short) {
      const other = shorts.get(f.short) ?? (f.short === 'h' ? 'help' : undefined);
      if (other) throw new CommandDefinitionError(`command "${where}": -${f.short} used by --${other} and --${f.name}`);
      shorts.set(f.short, f.name);
    }
  }
}

/** The built-in `-h, --help` flag every command has. */
export const HELP_FLAG: Flag<'bool'> = { kind: 'bool', name: 'help', short: 'h', usage: 'help for', default: false };

/**
 * The flags one command accepts, split the way cobra's help shows them: `local` (its own flags and
 * persistent flags) and `inherited` (ancestors' persistent flags it does not shadow).
 */
export interface FlagSet {
  readonly local: readonly Flag[];
  readonly inherited: readonly Flag[];
}

/** The flag set of the last command of `chain` (root first). Also checks shorthand collisions. */
export function flagSetOf(chain: readonly Command[]): FlagSet {
  const cmd = chain[chain.length - 1]!;
  const local = [...cmd.flags, ...cmd.persistentFlags, { ...HELP_FLAG, usage: `help for ${cmd.name}` }];
  const seen = new Set(local.map((f) => f.name));
  const inherited: Flag[] = [];
  for (let i = chain.length - 2; i >= 0; i--) {
    for (const f of chain[i]!.persistentFlags) {
      if (seen.has(f.name)) continue;
      seen.add(f.name);
      inherited.push(f);
    }
  }
  const shorts = new Map<string, string>();
  for (const f of [...local, ...inherited]) {
    if (!f.short) continue;
    const other = shorts.get(f.short);
    if (other) throw new CommandDefinitionError(`command "${cmd.name}": -${f.short} used by --${other} and --${f.name}`);
    shorts.set(f.short, f.name);
  }
  return { local, inherited };
}

/** Finds the direct subcommand answering to `word` (name or alias). */
export function findSubcommand(cmd: Command, word: string): Command | undefined {
  return cmd.commands.find((c) => c.name === word || c.aliases.includes(word));
}

/** Cobra's "available" test: shown in command lists and completion. */
export function isAvailable(cmd: Command): boolean {
  return !cmd.hidden && cmd.deprecated === undefined;
}

/** Parsed flag values of one invocation, with typed getters. */
export class FlagValues {
  readonly #flags: ReadonlyMap<string, Flag>;
  readonly #values: Map<string, FlagValue>;
  readonly #changed: Set<string>;

  constructor(flags: readonly Flag[], values: Map<string, FlagValue>, changed: Set<string>) {
    this.#flags = new Map(flags.map((f) => [f.name, f]));
    this.#values = values;
    this.#changed = changed;
  }

  /** True when the flag was given on the command line (not from a default source). */
  changed(name: string): boolean {
    return this.#changed.has(name);
  }

  /** True when the command accepts this flag. */
  has(name: string): boolean {
    return this.#flags.has(name);
  }

  #get<K extends FlagKind>(name: string, kinds: readonly K[]): FlagValueOf[K] {
    const f = this.#flags.get(name);
    if (!f) throw new Error(`no flag --${name} on this command`);
    if (!(kinds as readonly FlagKind[]).includes(f.kind)) throw new Error(`flag --${name} is a ${f.kind}, not ${kinds.join('/')}`);
    return this.#values.get(name) as FlagValueOf[K];
  }

  string(name: string): string {
    return this.#get(name, ['string']);
  }
  bool(name: string): boolean {
    return this.#get(name, ['bool']);
  }
  /** int, int32, uint16, uint32 and float32 flags. */
  number(name: string): number {
    return this.#get(name, ['int', 'int32', 'uint16', 'uint32', 'float32']);
  }
  /** Milliseconds. */
  duration(name: string): number {
    return this.#get(name, ['duration']);
  }
  /** stringSlice and stringArray flags. */
  strings(name: string): readonly string[] {
    return this.#get(name, ['stringSlice', 'stringArray']);
  }
  map(name: string): Readonly<Record<string, string>> {
    return this.#get(name, ['stringToString']);
  }
  level(name: string): string | number {
    return this.#get(name, ['level']);
  }
}
