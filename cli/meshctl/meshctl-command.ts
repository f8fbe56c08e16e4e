/** The command tree of `meshctl`. */
import { command, completionCommand, flag, flagUsages, lazyRun, type Command } from '../framework/index.js';
import { VKLOG_FLAG } from '../common/logging-flags.js';
import { analyzeCommand } from './analyze-command.js';
import { adminCommand, authzCommand, bugReportCommand, verifyInstallCommand } from './diagnostic-commands.js';
import { validateCommand } from './validate-command.js';
import { dashboardCommand } from './dashboard-commands.js';
import { experimentalCommand } from './experimental-commands.js';
import { createRemoteSecretCommand, orchInjectCommand, tagCommand } from './inject-commands.js';
import { installCommand, manifestCommand, operatorCommand, profileCommand, uninstallCommand, upgradeCommand } from './install-commands.js';
import { proxyConfigCommand } from './proxy-config-commands.js';
import { meshctlVersionCommand } from './meshctl-version-command.js';
import type { MeshctlDeps } from './meshctl-reach.js';

/** meshctl's global flags, accepted by every command. */
export const GLOBAL_FLAGS = [
  flag.string('context', '', 'The name of the orchestrator configuration context to use'),
  flag.string('meshNamespace', 'mesh-system', 'Mesh system namespace', { short: 'i' }),
  flag.string('orchconfig', '', 'orchestrator configuration file', { short: 'c' }),
  flag.string('namespace', '', 'Config namespace', { short: 'n' }),
  VKLOG_FLAG,
];

function optionsCommand(): Command {
  return command({
    name: 'options',
    short: 'Displays meshctl global options',
    run: (ctx) => {
      ctx.io.stdout.write(`The following options can be passed to any command:\n\n${flagUsages(ctx.root.persistentFlags)}\n`);
    },
  });
}

/** Builds the `meshctl` command tree; `deps` replaces parts for tests (a pod dialer to a local stand-in). */
export function meshctlCommand(deps: MeshctlDeps = {}): Command {
  return command({
    name: 'meshctl',
    short: 'Mesh control interface.',
    long: 'Mesh configuration command line utility for service operators to debug and diagnose their mesh.',
    persistentFlags: GLOBAL_FLAGS,
    commands: [
      adminCommand(deps),
      analyzeCommand(),
      authzCommand(),
      bugReportCommand(),
      completionCommand('meshctl'),
      createRemoteSecretCommand(),
      dashboardCommand(deps),
      experimentalCommand(deps),
      installCommand(),
      manifestCommand(),
      operatorCommand(),
      optionsCommand(),
      orchInjectCommand(deps),
      profileCommand(),
      proxyConfigCommand(deps),
      command({
        name: 'proxy-status',
        aliases: ['ps'],
        short: 'Retrieves the synchronization status of each proxy in the mesh',
        long: 'Retrieves last sent and last acknowledged xDS sync from meshd to each proxy in the mesh; with a proxy pod, compares what it holds with what meshd would send it now.',
        args: { usage: '[<type>/]<name>[.<namespace>]', max: 1 },
        flags: [
          flag.string('file', '', 'Proxy config dump JSON file (with a pod target) instead of the proxy\'s admin API', { short: 'f' }),
          flag.string('revision', '', 'Control plane revision', { short: 'r' }),
        ],
        run: lazyRun(() => import('./proxy-status-run.js'), (m) => (ctx) => m.runProxyStatus(ctx, deps)),
      }),
      tagCommand(),
      uninstallCommand(),
      upgradeCommand(),
      validateCommand(),
      verifyInstallCommand(),
      meshctlVersionCommand({ remote: true, deps }),
    ],
  });
}
