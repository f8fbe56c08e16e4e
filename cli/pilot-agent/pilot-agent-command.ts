/** The command tree of `pilot-agent`. */
import { command, completionCommand, flag, lazyRun, type Command } from '../framework/index.js';
import { LOGGING_FLAGS, VKLOG_FLAG } from '../common/logging-flags.js';
import { versionCommand } from '../common/version-command.js';
import { MESH_IPTABLES_FLAGS, sharedIptablesFlags } from './iptables-flags.js';
import { PROXY_FLAGS } from './proxy-flags.js';
import { waitCommand } from './wait-command.js';

/** Builds the `pilot-agent` command tree. */
export function pilotAgentCommand(): Command {
  return command({
    name: 'pilot-agent',
    short: 'Mesh Pilot agent.',
    long: 'Mesh Pilot agent runs in the sidecar or gateway container and bootstraps the data-plane proxy.',
    persistentFlags: [VKLOG_FLAG, ...LOGGING_FLAGS],
    commands: [
      completionCommand('pilot-agent'),
      command({
        name: 'mesh-clean-iptables',
        short: 'Clean up iptables rules for mesh sidecar',
        long: 'Script responsible for cleaning up iptables rules',
        flags: sharedIptablesFlags(''),
        run: lazyRun(() => import('./iptables-command.js'), (m) => m.runMeshCleanIptables),
      }),
      command({
        name: 'mesh-iptables',
        short: 'Set up iptables rules for mesh sidecar',
        long: 'Script responsible for setting up port forwarding for mesh sidecar.',
        flags: [...sharedIptablesFlags('1337'), ...MESH_IPTABLES_FLAGS],
        run: lazyRun(() => import('./iptables-command.js'), (m) => m.runMeshIptables),
      }),
      command({ name: 'proxy', short: 'XDS proxy agent', args: { usage: '[sidecar|router]', min: 0, max: 1 }, flags: PROXY_FLAGS, run: lazyRun(() => import('./run-proxy.js'), (m) => m.runProxy) }),
      command({
        name: 'request',
        short: 'Makes an HTTP request to the proxy admin API',
        args: { usage: '<method> <path> [<body>]', min: 2, max: 3 },
        flags: [flag.int32('debug-port', 15000, 'Set the port to make a local request to. The default points to the proxy admin API.')],
        run: lazyRun(() => import('../common/http-request.js'), (m) => (ctx) => m.runRequest(ctx, 'localhost', ctx.flags.number('debug-port'))),
      }),
      versionCommand(),
      waitCommand(),
    ],
  });
}
