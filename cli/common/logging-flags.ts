/**
 * The spec's logging flags (document 1), shared by operator, pilot-discovery and pilot-agent, and the
 * `--vklog` verbosity flag every program has.
 */
import { flag, type Flag, type FlagValues } from '../framework/index.js';
import type { LogOptions } from '../../core/index.js';

/** `--vklog`: numeric verbosity of the orchestrator client's log, like `-v`. */
export const VKLOG_FLAG: Flag = flag.level('vklog', 0, 'number for the log level verbosity. Like -v flag. ex: --vklog=9');

/** The logging flags, persistent on the daemons' root commands. */
export const LOGGING_FLAGS: readonly Flag[] = [
  flag.bool('log_as_json', false, 'Whether to format output as JSON or in plain console-friendly format'),
  flag.string('log_caller', '', 'Comma-separated list of scopes for which to include caller information'),
  flag.string(
    'log_output_level',
    'default:info',
    'Comma-separated minimum per-scope logging level of messages to output, in the form of <scope>:<level>,<scope>:<level>,... where level can be one of [debug, info, warn, error, fatal, none]',
  ),
  flag.string('log_rotate', '', 'The path for the optional rotating log file'),
  flag.int('log_rotate_max_age', 30, 'The maximum age in days of a log file beyond which the file is rotated (0 indicates no limit)'),
  flag.int('log_rotate_max_backups', 1000, 'The maximum number of log file backups to keep before older files are deleted (0 indicates no limit)'),
  flag.int('log_rotate_max_size', 104857600, 'The maximum size in megabytes of a log file beyond which the file is rotated'),
  flag.string(
    'log_stacktrace_level',
    'default:none',
    'Comma-separated minimum per-scope logging level at which stack traces are captured, in the form of <scope>:<level>,<scope:level>,... where level can be one of [debug, info, warn, error, fatal, none]',
  ),
  flag.stringArray('log_target', ['stdout'], 'The set of paths where to output the log. This can be any path as well as the special values stdout and stderr'),
];

/** The raw logging options from parsed flags (validated later by `createLogging`). */
export function logOptionsFrom(flags: FlagValues): LogOptions {
  return {
    outputLevels: flags.string('log_output_level'),
    stacktraceLevels: flags.string('log_stacktrace_level'),
    asJson: flags.bool('log_as_json'),
    callerScopes: flags.string('log_caller'),
    targets: [...flags.strings('log_target')],
    rotate: {
      path: flags.string('log_rotate'),
      maxAgeDays: flags.number('log_rotate_max_age'),
      maxBackups: flags.number('log_rotate_max_backups'),
      maxSizeMB: flags.number('log_rotate_max_size'),
    },
  };
}
