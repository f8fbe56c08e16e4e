/**
 * Help and usage text laid out exactly like cobra's default templates and pflag's `FlagUsages`.
 */
import { flagSetOf, isAvailable, type Command } from './command.js';
import { defaultSuffix, typeName, type Flag } from './flag.js';

/** The program name and command words of a chain, e.g. `meshctl proxy-config cluster`. */
export function commandPath(chain: readonly Command[]): string {
  return chain.map((c) => c.name).join(' ');
}

/** pflag's flag table: `  -o, --output string   usage (default "x")`, sorted by name, aligned. */
export function flagUsages(flags: readonly Flag[]): string {
  const rows = [...flags]
    .filter((f) => !f.hidden)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => {
      const head = `${f.short ? `  -${f.short}, ` : '      '}--${f.name}${typeName(f) ? ` ${typeName(f)}` : ''}`;
      return { head, usage: `${f.usage}${defaultSuffix(f)}` };
    });
  const width = Math.max(0, ...rows.map((r) => r.head.length));
  return rows.map((r) => `${r.head.padEnd(width)}   ${r.usage.replace(/\n/g, `\n${' '.repeat(width + 3)}`)}`).join('\n');
}

/** Cobra's root `help` command, listed with the others (the runner answers `help <command>`). */
const HELP_ENTRY = { name: 'help', short: 'Help about any command' } as const;

/** The subcommands help lists, sorted by name as cobra does; the root also lists `help`. */
function listedSubcommands(chain: readonly Command[]): { name: string; short: string }[] {
  const subs: { name: string; short: string }[] = chain[chain.length - 1]!.commands.filter(isAvailable);
  if (chain.length === 1 && subs.length > 0) subs.push(HELP_ENTRY);
  return subs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function hasSubcommands(cmd: Command): boolean {
  return cmd.commands.some(isAvailable);
}

/** Cobra's usage line: `meshctl request <method> <path> [<body>] [flags]`. */
function useLine(chain: readonly Command[]): string {
  const cmd = chain[chain.length - 1]!;
  return `${commandPath(chain)}${cmd.args ? ` ${cmd.args.usage}` : ''} [flags]`;
}

/** Cobra's usage template (what an error prints after `Error: ...`). */
export function usageText(chain: readonly Command[]): string {
  const cmd = chain[chain.length - 1]!;
  const path = commandPath(chain);
  const out: string[] = ['Usage:'];
  if (cmd.run) out.push(`  ${useLine(chain)}`);
  if (hasSubcommands(cmd)) out.push(`  ${path} [command]`);
  if (cmd.aliases.length > 0) out.push('', 'Aliases:', `  ${[cmd.name, ...cmd.aliases].join(', ')}`);
  if (cmd.example) out.push('', 'Examples:', cmd.example);
  const subs = listedSubcommands(chain);
  if (subs.length > 0) {
    const pad = Math.max(11, ...subs.map((c) => c.name.length));
    out.push('', 'Available Commands:', ...subs.map((c) => `  ${c.name.padEnd(pad)} ${c.short}`));
  }
  const set = flagSetOf(chain);
  if (set.local.some((f) => !f.hidden)) out.push('', 'Flags:', flagUsages(set.local));
  if (set.inherited.some((f) => !f.hidden)) out.push('', 'Global Flags:', flagUsages(set.inherited));
  if (subs.length > 0) out.push('', `Use "${path} [command] --help" for more information about a command.`);
  return `${out.join('\n')}\n`;
}

/** Cobra's help template: the long (or short) description, then the usage. */
export function helpText(chain: readonly Command[]): string {
  const cmd = chain[chain.length - 1]!;
  const about = (cmd.long ?? cmd.short).trimEnd();
  return `${about ? `${about}\n\n` : ''}${usageText(chain)}`;
}
