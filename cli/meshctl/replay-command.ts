/**
 * `meshctl experimental replay FILE` (an extra command, not in the spec): replays an event log that
 * `pilot-discovery discovery --record FILE` wrote, on a virtual clock, and prints per push which proxies
 * got which resources and why.
 */
import { CliError, command, flag, type Command, type RunContext } from '../framework/index.js';

/** The `replay` command. */
export function replayCommand(): Command {
  return command({
    name: 'replay',
    short: 'Replay a meshd event log (pilot-discovery discovery --record FILE) and print every push',
    long:
      'Replays the inputs recorded by `pilot-discovery discovery --record FILE` (config, registry and mesh config ' +
      'changes, proxy connects and requests, with their times) through the same pipeline on a virtual clock, with the ' +
      'same debounce decisions, and prints per push which proxies got which resources and why (push reasons and the ' +
      'configs that triggered it). No network: the recorded proxies are served in-process.',
    args: { usage: '<file>', min: 1, max: 1 },
    flags: [flag.string('output', 'short', 'Output format: short (one line per response) or json (every response, bytes in base64)', { short: 'o' })],
    run: runReplay,
  });
}

async function runReplay(ctx: RunContext): Promise<void> {
  const output = ctx.flags.string('output');
  if (output !== 'short' && output !== 'json') throw new CliError(`--output: unknown format "${output}" (use short or json)`);
  const path = ctx.args[0]!;
  const { readEventLog, EventLogError } = await import('../../core/index.js');
  const { formatReplay, replayEvents, ReplayError } = await import('../../xds/index.js');
  let result;
  try {
    result = await replayEvents(readEventLog(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`cannot read ${path}: no such file or directory`);
    if (e instanceof EventLogError || e instanceof ReplayError) throw new CliError(`${path}: ${e.message}`);
    throw e;
  }
  if (output === 'short') {
    ctx.io.stdout.write(formatReplay(result));
    return;
  }
  const json = result.pushes.map((p) => ({ ...p, responses: p.responses.map((r) => ({ ...r, message: r.message.toString('base64') })) }));
  ctx.io.stdout.write(JSON.stringify({ pushes: json, warnings: result.warnings }, null, 2) + '\n');
}
