/** The `version` command of every program: build version, git commit and Node version. */
import { buildInfo, type BuildInfo } from '../../core/startup.js';
import { CliError, command, flag, type Command, type FlagValues, type RunContext } from '../framework/index.js';

/** The `-o` formats `version` accepts. */
export const VERSION_OUTPUTS = ['', 'yaml', 'json'] as const;

/** Istio's client version document, field for field (`node_version` instead of `golang_version`). */
export interface ClientVersion {
  readonly version: string;
  readonly revision: string;
  readonly node_version: string;
  readonly status: string;
  readonly tag: string;
}

/** The build information as Istio's `clientVersion` document. */
export function clientVersion(info: BuildInfo = buildInfo()): ClientVersion {
  return { version: info.version, revision: info.gitCommit, node_version: info.nodeVersion, status: info.buildStatus, tag: info.gitTag };
}

/** Go-style one-line rendering: `version.BuildInfo{Version:"0.1.0", GitRevision:"…", …}`. */
export function longVersion(v: ClientVersion): string {
  return `version.BuildInfo{Version:"${v.version}", GitRevision:"${v.revision}", NodeVersion:"${v.node_version}", BuildStatus:"${v.status}", GitTag:"${v.tag}"}`;
}

/** Checks `-o` and returns it; a CliError names the flag and the accepted values otherwise. */
export function versionOutput(flags: FlagValues): (typeof VERSION_OUTPUTS)[number] {
  const o = flags.string('output');
  if (!(VERSION_OUTPUTS as readonly string[]).includes(o)) throw new CliError(`--output must be 'yaml' or 'json', not "${o}"`);
  return o as (typeof VERSION_OUTPUTS)[number];
}

/** Renders a version document as `-o` asks (`yaml` or `json`). */
export async function renderStructured(doc: unknown, output: 'yaml' | 'json'): Promise<string> {
  if (output === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  // NOTE: the YAML library loads only when asked for YAML: `version` is on the start-up path.
  const { stringify } = await import('yaml');
  return stringify(doc);
}

/** Prints this program's version: short by default, `--short=false` for full info, `-o` for documents. */
async function printVersion(ctx: RunContext): Promise<void> {
  const output = versionOutput(ctx.flags);
  const v = clientVersion();
  if (output !== '') ctx.io.stdout.write(await renderStructured({ clientVersion: v }, output));
  else ctx.io.stdout.write(`${ctx.flags.bool('short') ? v.version : longVersion(v)}\n`);
}

/** The `-o, --output` flag of version commands. */
export const VERSION_OUTPUT_FLAG = flag.string('output', '', "One of 'yaml' or 'json'.", { short: 'o' });

/**
 * `version` of operator, pilot-discovery and pilot-agent. Short output is the default; the spec's
 * `--short=false` gives the full build information.
 */
export function versionCommand(): Command {
  return command({
    name: 'version',
    short: 'Prints out build version information',
    flags: [VERSION_OUTPUT_FLAG, flag.bool('short', true, 'Use --short=false to generate full version information', { short: 's' })],
    run: printVersion,
  });
}
