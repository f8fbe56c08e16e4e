/** `meshctl version` (and `meshctl bug-report version`): client version, and the control plane's. */
import { command, flag, notImplemented, type Command, type RunContext } from '../framework/index.js';
import { clientVersion, longVersion, renderStructured, VERSION_OUTPUT_FLAG, versionOutput } from '../common/version-command.js';

async function run(ctx: RunContext, remoteFlag: boolean): Promise<void> {
  const output = versionOutput(ctx.flags);
  const v = clientVersion();
  if (output !== '') ctx.io.stdout.write(await renderStructured({ clientVersion: v }, output));
  else ctx.io.stdout.write(`client version: ${ctx.flags.bool('short') ? v.version : longVersion(v)}\n`);
  if (remoteFlag && ctx.flags.bool('remote')) notImplemented(`${ctx.path.join(' ')} --remote (control plane version; use --remote=false)`);
}

/**
 * The version command. With `remote`, it also has `--remote` (default true) and `--revision`; the
 * control-plane part is not built yet, so it fails loudly unless `--remote=false`.
 */
export function meshctlVersionCommand(o: { remote: boolean }): Command {
  return command({
    name: 'version',
    short: 'Prints out build version information',
    flags: [
      VERSION_OUTPUT_FLAG,
      ...(o.remote
        ? [
            flag.bool('remote', true, 'Use --remote=false to suppress control plane check'),
            flag.string('revision', '', 'Control plane revision', { short: 'r' }),
          ]
        : []),
      flag.bool('short', false, 'Use --short=false to generate full version information', { short: 's' }),
    ],
    run: (ctx) => run(ctx, o.remote),
  });
}
