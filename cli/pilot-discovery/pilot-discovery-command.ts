/** The command tree of `pilot-discovery` (meshd). */
import { command, completionCommand, lazyRun, type Command } from '../framework/index.js';
import { LOGGING_FLAGS, VKLOG_FLAG } from '../common/logging-flags.js';
import { versionCommand } from '../common/version-command.js';
import { DISCOVERY_FLAGS } from './discovery-options.js';

/** The local monitoring port `pilot-discovery request` talks to. */
export const MONITORING_PORT = 15014;

/** Builds the `pilot-discovery` command tree. */
export function pilotDiscoveryCommand(): Command {
  return command({
    name: 'pilot-discovery',
    short: 'Mesh Pilot.',
    long: 'Mesh Pilot provides mesh-wide traffic management, security and policy capabilities in the Mesh Service Mesh.',
    persistentFlags: [VKLOG_FLAG, ...LOGGING_FLAGS],
    commands: [
      completionCommand('pilot-discovery'),
      command({
        name: 'discovery',
        short: 'Start Mesh proxy discovery service.',
        flags: DISCOVERY_FLAGS,
        run: lazyRun(() => import('./run-discovery.js'), (m) => m.runDiscovery),
      }),
      command({
        name: 'request',
        short: 'Makes an HTTP request to meshd metrics/debug endpoint',
        args: { usage: '<method> <path> [<body>]', min: 2, max: 3 },
        run: lazyRun(() => import('../common/http-request.js'), (m) => (ctx) => m.runRequest(ctx, 'localhost', MONITORING_PORT)),
      }),
      versionCommand(),
    ],
  });
}
