/** The command tree of `operator`. */
import { command, completionCommand, flag, lazyRun, type Command, type Flag } from '../framework/index.js';
import { LOGGING_FLAGS, VKLOG_FLAG } from '../common/logging-flags.js';
import { versionCommand } from '../common/version-command.js';

/** The flags of `operator server`. */
export const SERVER_FLAGS: readonly Flag[] = [
  flag.string('ctrlz_address', 'localhost', "The IP Address to listen on for the ControlZ introspection facility. Use '*' to indicate all addresses."),
  flag.uint16('ctrlz_port', 9876, 'The IP port to use for the ControlZ introspection facility'),
  flag.bool('force', false, 'Proceed even when validation fails'),
  flag.int('max-concurrent-reconciles', 1, 'Defines the concurrency limit for operator to reconcile MeshOperatorSpec in parallel'),
  flag.string('monitoring-host', '0.0.0.0', 'HTTP host to use for operator self-monitoring information'),
  flag.uint32('monitoring-port', 8383, 'HTTP port to use for operator self-monitoring information'),
];

/** Builds the `operator` command tree. */
export function operatorCommand(): Command {
  return command({
    name: 'operator',
    short: 'Mesh Operator.',
    long: 'The Mesh operator reconciles MeshOperator custom resources into installed mesh components.',
    persistentFlags: [
      flag.string('orchconfig', '', 'Path(s) to an orchestrator config file, only required if out-of-cluster'),
      VKLOG_FLAG,
      ...LOGGING_FLAGS,
    ],
    commands: [
      completionCommand('operator'),
      command({
        name: 'server',
        short: 'Starts the Mesh operator server',
        flags: SERVER_FLAGS,
        run: lazyRun(() => import('./run-operator-server.js'), (m) => m.runOperatorServer),
      }),
      versionCommand(),
    ],
  });
}
