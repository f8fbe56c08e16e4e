/**
 * Runs a command line against a command tree: resolves the command, parses flags, prints help or
 * errors the way cobra does, and turns the outcome into an exit code.
 */
import { isAvailable, type Command } from './command.js';
import { complete, formatCompletions, COMPLETE_COMMAND, COMPLETE_NO_DESC_COMMAND } from './completion.js';
import { helpText, usageText, commandPath } from './help.js';
import { parseFlags, resolveCommand, UsageError } from './parse-args.js';
import { CliError, NotImplementedError } from './errors.js';
import type { CliIo } from './cli-io.js';
import { paint } from './color.js';

/** Exit code for every failure (usage errors, command errors, not implemented). */
export const EXIT_FAILURE = 1;

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

/** Cobra's "Did you mean this?" list for an unknown command word. */
function suggestions(cmd: Command, word: string): string {
  const near = cmd.commands
    .filter(isAvailable)
    .filter((c) => distance(c.name, word) <= 2 || c.name.startsWith(word))
    .map((c) => c.name);
  return near.length > 0 ? `\n\nDid you mean this?\n${near.map((n) => `\t${n}`).join('\n')}\n` : '';
}

/**
 * Parses `argv` (the words after the program name) against `root`, runs the selected command and
 * returns its exit code. Never throws for user mistakes: they print `Error: ...` and the usage.
 */
export async function runCli(root: Command, argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === COMPLETE_COMMAND || argv[0] === COMPLETE_NO_DESC_COMMAND) {
    const words = argv.slice(1);
    const toComplete = words.length > 0 ? words[words.length - 1]! : '';
    io.stdout.write(formatCompletions(complete(root, words.slice(0, -1), toComplete), argv[0] === COMPLETE_COMMAND));
    return 0;
  }
  let chain: readonly Command[] = [root];
  try {
    let words = argv;
    if (argv[0] === 'help' && !root.commands.some((c) => c.name === 'help')) words = [...argv.slice(1), '--help'];
    const resolved = resolveCommand(root, words);
    chain = resolved.chain;
    const cmd = chain[chain.length - 1]!;
    const parsed = parseFlags(chain, resolved.rest, io.defaults);
    if (parsed.help) {
      io.stdout.write(helpText(chain));
      return 0;
    }
    if (!cmd.run) {
      if (parsed.args.length > 0) {
        throw new UsageError(`unknown command "${parsed.args[0]}" for "${commandPath(chain)}"${suggestions(cmd, parsed.args[0]!)}`, chain);
      }
      io.stdout.write(helpText(chain));
      return 0;
    }
    const spec = cmd.args ?? { usage: '', max: 0 };
    const n = parsed.args.length;
    if (spec.max === 0 && n > 0) throw new UsageError(`unknown command "${parsed.args[0]}" for "${commandPath(chain)}"`, chain);
    if (spec.min !== undefined && n < spec.min) {
      throw new UsageError(`requires at least ${spec.min} arg(s), only received ${n}`, chain);
    }
    if (spec.max !== undefined && n > spec.max) throw new UsageError(`accepts at most ${spec.max} arg(s), received ${n}`, chain);
    if (cmd.deprecated !== undefined) io.stderr.write(`Command "${cmd.name}" is deprecated, ${cmd.deprecated}\n`);
    const code = await cmd.run({ command: cmd, path: chain.map((c) => c.name), args: parsed.args, flags: parsed.flags, io, root });
    return code ?? 0;
  } catch (e) {
    const prefix = paint('Error:', 'red', io.color === true);
    if (e instanceof UsageError) {
      io.stderr.write(`${prefix} ${e.message}\n${usageText(e.chain)}`);
      return EXIT_FAILURE;
    }
    if (e instanceof NotImplementedError) {
      io.stderr.write(`${e.message}\n`);
      return EXIT_FAILURE;
    }
    if (e instanceof CliError) {
      io.stderr.write(`${prefix} ${e.message}\n`);
      return e.exitCode;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    io.stderr.write(`${prefix} ${err.message}\n`);
    return EXIT_FAILURE;
  }
}
