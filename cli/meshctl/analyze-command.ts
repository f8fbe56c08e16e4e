/**
 * `meshctl analyze [<file>...]`: runs Istio's analyzers (renamed, with Istio's IST codes) over files,
 * directories and standard input (`-`), laid over the live cluster's state unless `--use-orch=false`
 * (files win). Prints findings as `log`, `json` or `yaml`; exits 79 when a finding reaches
 * `--failure-threshold` (as istioctl does), 1 when an input could not be read.
 */
import { command, flag, lazyRun, type Command } from '../framework/index.js';
import { EXIT_ANALYZE_FOUND_ISSUES } from './exit-codes.js';

/** The message levels `--failure-threshold` and `--output-threshold` accept (analysis/'s LEVELS, which the tree does not load). */
export const ANALYZE_LEVELS = ['Info', 'Warning', 'Error'] as const;

/** analyze <file>... */
export function analyzeCommand(): Command {
  return command({
    name: 'analyze',
    short: 'Analyze Mesh configuration and print validation messages',
    long:
      'Runs the analyzers over files (directories, or - for standard input) and, unless use-orch is false, the live cluster\n' +
      "(files win over the cluster's objects of the same kind, namespace and name). Findings carry Istio's message codes\n" +
      '(IST0101 ReferencedResourceNotFound, ...) unchanged, so suppressions and searches written for istioctl carry over.\n' +
      `Exit status ${EXIT_ANALYZE_FOUND_ISSUES} when a finding reaches the failure threshold; 1 when an input could not be read.`,
    example: '  meshctl analyze -k=false samples/*.yaml\n  meshctl analyze -A -S "IST0102=Namespace *" -o json',
    args: { usage: '<file>...' },
    flags: [
      flag.bool('all-namespaces', false, 'Analyze all namespaces', { short: 'A' }),
      flag.bool('color', true, 'Default true.  Disable with \'=false\' or set TERM to dumb'),
      flag.level('failure-threshold', 'Error', 'The severity level of analysis at which to set a non-zero exit code. Valid values: [Info Warning Error]', { levels: ANALYZE_LEVELS }),
      flag.bool('ignore-unknown', false, "Don't complain about un-parseable input documents, for cases where analyze should run only on mesh resources."),
      flag.bool('list-analyzers', false, 'List the analyzers available to run. Suppresses normal execution.', { short: 'L' }),
      flag.string('meshConfigFile', '', 'Overrides the mesh config values to use for analysis.'),
      flag.string('output', 'log', 'Output format: one of [log json yaml]', { short: 'o' }),
      flag.level('output-threshold', 'Info', 'The severity level of analysis at which to display messages. Valid values: [Info Warning Error]', { levels: ANALYZE_LEVELS }),
      flag.bool('recursive', false, 'If the provided file argument is a directory, recursively process all files in it', { short: 'R' }),
      flag.string('revision', 'default', 'analyze a specific revision deployed.'),
      flag.stringArray('suppress', [], 'Suppress reporting a message code on a specific resource. Values are supplied in the form <code>=<resource> (e.g. \'--suppress "IST0102=DestinationRule primary-dr.default"\'). Can be repeated. You can include the wildcard character \'*\' to support a partial match (e.g. \'--suppress "IST0102=DestinationRule *.default" ).', { short: 'S' }),
      flag.duration('timeout', 30_000, 'The duration to wait before failing'),
      flag.bool('use-orch', true, 'Use live orchestrator cluster for analysis. Set use-orch=false to analyze files only.', { short: 'k' }),
      flag.bool('verbose', false, 'Enable verbose output', { short: 'v' }),
    ],
    run: lazyRun(() => import('./analyze-run.js'), (m) => m.runAnalyze),
  });
}
