/** `meshctl version` (and `meshctl bug-report version`): client version, and the control plane's. */
import { command, flag, type Command, type RunContext } from '../framework/index.js';
import { clientVersion, longVersion, renderStructured, VERSION_OUTPUT_FLAG, versionOutput } from '../common/version-command.js';
import type { MeshctlDeps } from './meshctl-reach.js';

async function run(ctx: RunContext, remoteFlag: boolean, deps: MeshctlDeps): Promise<void> {
  if (remoteFlag && ctx.flags.bool('remote')) {
    // NOTE: the remote part loads the API server client and the pod dialer: only when asked.
    const { runRemoteVersion } = await import('./version-remote-run.js');
    return runRemoteVersion(ctx, deps);
  }
  const output = versionOutput(ctx.flags);
  const v = clientVersion();
  if (output !== '') ctx.io.stdout.write(await renderStructured({ clientVersion: v }, output));
  else ctx.io.stdout.write(`client version: ${ctx.flags.bool('short') ? v.version : longVersion(v)}\n`);
}

/**
 * The version command. With `remote`, it also has `--remote` (default true: the control plane's and the data
 * plane's versions too, see version-remote-run.ts) and `--revision`; `deps` carries a test's pod dialer.
 */
export function meshctlVersionCommand(o: { remote: boolean; deps?: MeshctlDeps }): Command {
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
    run: (ctx) => run(ctx, o.remote, o.deps ?? {}),
  });
}
