/**
 * Shell completion the cobra way: the shell scripts call the hidden `__complete` command (or
 * `__completeNoDesc`) with the words typed so far and the word being completed; it prints one candidate
 * per line (`name<TAB>description`) and a last line `:<directive>`.
 */
import { findSubcommand, flagSetOf, isAvailable, type Command } from './command.js';
import { isBoolFlag, type Flag } from './flag.js';
import { resolveCommand } from './parse-args.js';

/** Cobra's directive bits, printed as the last line of `__complete`. */
export const DIRECTIVE = { error: 1, noSpace: 2, noFileComp: 4, filterFileExt: 8, filterDirs: 16, keepOrder: 32 } as const;

/** The hidden command names the scripts call. */
export const COMPLETE_COMMAND = '__complete';
export const COMPLETE_NO_DESC_COMMAND = '__completeNoDesc';

/** Candidates for the word being completed, and how the shell should treat them. */
export interface Completions {
  readonly candidates: readonly { readonly value: string; readonly description: string }[];
  readonly directive: number;
}

function flagCandidates(flags: readonly Flag[], toComplete: string, given: ReadonlySet<string>): Completions['candidates'] {
  const out: { value: string; description: string }[] = [];
  for (const f of [...flags].sort((a, b) => a.name.localeCompare(b.name))) {
    if (f.hidden) continue;
    const repeatable = f.kind === 'stringSlice' || f.kind === 'stringArray' || f.kind === 'stringToString';
    if (given.has(f.name) && !repeatable) continue;
    if (`--${f.name}`.startsWith(toComplete)) out.push({ value: `--${f.name}`, description: f.usage });
    if (f.short && toComplete === '-') out.push({ value: `-${f.short}`, description: f.usage });
  }
  return out;
}

/** The flag a word names (`--output`, `-o`), if it is one of the command's flags. */
function flagNamed(flags: readonly Flag[], word: string): Flag | undefined {
  if (word.startsWith('--')) return flags.find((f) => f.name === word.slice(2));
  if (word.startsWith('-') && word.length === 2) return flags.find((f) => f.short === word[1]);
  return undefined;
}

/**
 * Computes completions for `toComplete`, given the words before it (program name excluded).
 * Completes subcommand names (and aliases that match when no name does), flags (`-` or `--` prefix),
 * and the named values of `level` flags; anything else falls back to file names.
 */
export function complete(root: Command, words: readonly string[], toComplete: string): Completions {
  if (words[0] === 'help') {
    // `help <command>...`: offer only the command words.
    const { chain, rest } = resolveCommand(root, words.slice(1));
    const subs = rest.length === 0 ? chain[chain.length - 1]!.commands.filter(isAvailable) : [];
    return { candidates: subs.filter((c) => c.name.startsWith(toComplete)).map((c) => ({ value: c.name, description: c.short })), directive: DIRECTIVE.noFileComp };
  }
  const { chain, rest } = resolveCommand(root, words);
  const cmd = chain[chain.length - 1]!;
  const set = flagSetOf(chain);
  const all = [...set.local, ...set.inherited];
  const given = new Set(rest.map((w) => flagNamed(all, w.split('=')[0]!)?.name).filter((n): n is string => n !== undefined));

  // A value for the flag just typed (`-o <TAB>`) or written inline (`--level=<TAB>`).
  const last = words[words.length - 1];
  const valueFor = toComplete.startsWith('--') && toComplete.includes('=')
    ? flagNamed(all, toComplete.slice(0, toComplete.indexOf('=')))
    : last !== undefined && !last.includes('=') ? flagNamed(all, last) : undefined;
  if (valueFor && !isBoolFlag(valueFor)) {
    const typed = toComplete.includes('=') && toComplete.startsWith('--') ? toComplete.slice(toComplete.indexOf('=') + 1) : toComplete;
    const levels = valueFor.levels ?? [];
    const candidates = levels.filter((l) => l.startsWith(typed)).map((l) => ({ value: l, description: '' }));
    return { candidates, directive: levels.length > 0 ? DIRECTIVE.noFileComp : 0 };
  }

  if (toComplete.startsWith('-')) return { candidates: flagCandidates(all, toComplete, given), directive: DIRECTIVE.noFileComp };

  const positional = rest.filter((w, i) => !w.startsWith('-') && !(i > 0 && isValueOf(all, rest[i - 1]!)));
  const subs = cmd.commands.filter(isAvailable);
  if (subs.length > 0 && positional.length === 0) {
    // The root also answers to cobra's `help` command.
    const named = [...subs, ...(chain.length === 1 ? [{ name: 'help', short: 'Help about any command' }] : [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const byName = named.filter((c) => c.name.startsWith(toComplete)).map((c) => ({ value: c.name, description: c.short }));
    const byAlias = toComplete === '' ? [] : subs.flatMap((c) =>
      c.name.startsWith(toComplete) ? [] : c.aliases.filter((a) => a.startsWith(toComplete)).map((a) => ({ value: a, description: c.short })),
    );
    return { candidates: [...byName, ...byAlias], directive: DIRECTIVE.noFileComp };
  }
  if (findSubcommand(cmd, toComplete)) return { candidates: [{ value: toComplete, description: '' }], directive: DIRECTIVE.noFileComp };
  const takesMore = cmd.args !== undefined && (cmd.args.max === undefined || positional.length < cmd.args.max);
  return { candidates: [], directive: takesMore ? 0 : DIRECTIVE.noFileComp };
}

function isValueOf(flags: readonly Flag[], previous: string): boolean {
  const f = flagNamed(flags, previous);
  return f !== undefined && !isBoolFlag(f) && !previous.includes('=');
}

/** The text `__complete` prints: candidates (with or without descriptions) then `:<directive>`. */
export function formatCompletions(c: Completions, withDescriptions: boolean): string {
  const lines = c.candidates.map((x) => (withDescriptions && x.description ? `${x.value}\t${x.description.split('\n')[0]}` : x.value));
  return `${[...lines, `:${c.directive}`].join('\n')}\n`;
}
