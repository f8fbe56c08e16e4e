/** meshctl's diagnostic commands: admin, authz, verify-install, bug-report (analyze and validate have their own files). */
import { CliError, command, flag, lazyRun, type Command, type Flag } from '../framework/index.js';
import type { MeshctlDeps } from './meshctl-reach.js';
import { meshctlVersionCommand } from './meshctl-version-command.js';

const selector = (): Flag => flag.string('selector', 'app=meshd', 'label selector', { short: 'l' });

/** admin (alias meshd) and admin log (alias l); `deps` carries a test's pod dialer to the body. */
export function adminCommand(deps: MeshctlDeps = {}): Command {
  return command({
    name: 'admin',
    aliases: ['meshd'],
    short: 'Manage control plane (meshd) configuration',
    long: 'A group of commands used to manage meshd configuration',
    persistentFlags: [selector()],
    commands: [
      command({
        name: 'log',
        aliases: ['l'],
        short: 'Manage meshd logging.',
        long: 'Retrieve or update logging levels of meshd components.',
        args: { usage: '[<pod-name>]', max: 1 },
        flags: [
          flag.int('ctrlz_port', 9876, 'ControlZ port'),
          flag.string('level', '', 'Comma-separated list of output logging level for scopes in the format of <scope>:<level>[,<scope>:<level>,...]. Possible values for <level>: none, error, warn, info, debug'),
          flag.string('output', 'short', 'Output format: one of json|yaml|short', { short: 'o' }),
          flag.bool('reset', false, 'Reset levels to default value. (info)'),
          flag.string('revision', '', 'The revision of the control plane', { short: 'r' }),
          flag.string('stack-trace-level', '', 'Comma-separated list of stack trace level for scopes in the format of <scope>:<stack-trace-level>[,<scope>:<stack-trace-level>,...]. Possible values for <stack-trace-level>: none, error, warn, info, debug'),
        ],
        run: lazyRun(() => import('./admin-log-run.js'), (m) => (ctx) => m.runAdminLog(ctx, deps)),
      }),
    ],
  });
}

/** authz: the experimental alias that points at `experimental authz`. */
export function authzCommand(): Command {
  return command({
    name: 'authz',
    short: '(authz is experimental. Use `meshctl experimental authz`)',
    run: () => {
      throw new CliError('this command is experimental. Use `meshctl experimental authz`');
    },
  });
}

/** verify-install. */
export function verifyInstallCommand(): Command {
  return command({
    name: 'verify-install',
    short: 'Verifies Mesh Installation Status',
    flags: [
      flag.stringSlice('filename', [], 'Mesh YAML installation file.', { short: 'f' }),
      flag.string('manifests', '', 'Specify a path to a directory of charts and profiles', { short: 'd' }),
      flag.string('revision', '', 'Control plane revision', { short: 'r' }),
    ],
    run: lazyRun(() => import('./verify-install-run.js'), (m) => m.runVerifyInstall),
  });
}

/** The flags of bug-report, persistent so that `bug-report version` takes them too. */
function bugReportFlags(): Flag[] {
  return [
    flag.string('context', '', 'Name of the orchestrator config context to use.'),
    flag.stringSlice('critical-errs', [], 'List of comma separated glob patterns to match against log error strings. If any pattern matches an error in the log, the logs is given the highest priority for archive inclusion.'),
    flag.string('dir', '', 'Set a specific directory for temporary artifact storage.'),
    flag.bool('dry-run', false, 'Only log commands that would be run, don\'t fetch or write.'),
    flag.duration('duration', 0, 'How far to go back in time from end-time for log entries to include in the archive. Default is infinity. If set, start-time must be unset.'),
    flag.string('end-time', '', 'End time for the range of log entries to include in the archive. Default is now.'),
    flag.stringSlice('exclude', ['orch-system', 'orch-public', 'orch-node-lease', 'local-path-storage'], 'Spec for which pod\'s proxy logs to exclude from the archive, after the include spec is processed. Same format and semantics as include.'),
    flag.string('filename', '', 'Path to a file containing configuration in YAML format. The file contents are applied over the default values and flag settings, with lists being replaced per JSON merge semantics.', { short: 'f' }),
    flag.bool('full-secrets', false, 'If set, secret contents are included in output.'),
    flag.stringSlice('ignore-errs', [], 'List of comma separated glob patterns to match against log error strings. Any error matching these patterns is ignored when calculating the log importance heuristic.'),
    flag.stringSlice('include', [], 'Spec for which pod\'s proxy logs to include in the archive. See above for format and examples.'),
    flag.string('mesh-namespace', 'mesh-system', 'Namespace where Mesh control plane is installed.'),
    flag.string('output-dir', '', 'Set a specific directory for output archive file.'),
    flag.int('rq-concurrency', 0, 'Set the concurrency limit of requests to the orchestrator API server, defaults to 32.'),
    flag.string('start-time', '', 'Start time for the range of log entries to include in the archive. Default is the infinite past. If set, duration must be unset.'),
    flag.duration('timeout', 30 * 60_000, 'Maximum amount of time to spend fetching logs. When timeout is reached only the logs captured so far are saved to the archive.'),
  ];
}

/** bug-report and bug-report version. */
export function bugReportCommand(): Command {
  return command({
    name: 'bug-report',
    short: 'Cluster information and log capture support tool.',
    long:
      'bug-report selectively captures cluster information and logs into an archive to help diagnose problems.\n' +
      'Proxy logs can be filtered using include and exclude specs of the form ns/dep/pod/labels/annotations/container:\n' +
      'each part is optional, comma-separated values within a part are OR-ed, and a log is kept when its container\n' +
      'matches at least one include spec and no exclude spec.',
    persistentFlags: bugReportFlags(),
    commands: [meshctlVersionCommand({ remote: false })],
    run: lazyRun(() => import('./bug-report-run.js'), (m) => m.runBugReport),
  });
}
