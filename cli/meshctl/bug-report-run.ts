/**
 * `meshctl bug-report`: reads the flags once, collects through the API server (inspect/bug-report) and writes
 * `bug-report.tar.gz` into `--output-dir` (config dumps and meshd's debug output through `pods/portforward`); `--dry-run` lists what it would collect and writes nothing.
 */
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import {
  collectBugReport,
  LogSpecError,
  parseLogSpec,
  planBugReport,
  rankLogs,
  rankedLine,
  portForwardDialer,
  resolveTimeRange,
  summaryText,
  TimeRangeError,
  writeArchive,
  type LogSpec,
} from '../../inspect/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { DEFAULT_ORCH_CLIENT_OPTIONS, loadOrchKubeConfig, OrchClient, type OrchKubeConfig } from '../../controllers/index.js';
import { bugReportSettings } from './bug-report-settings.js';
import { meshctlOrchSource } from './meshctl-orch.js';

/** The archive's file name in `--output-dir`. */
export const ARCHIVE_NAME = 'bug-report.tar.gz';
/** How many of the most important logs the command names on stderr (the summary lists them all). */
const MOST_IMPORTANT_SHOWN = 5;
/** `--rq-concurrency 0` means this many. */
const DEFAULT_CONCURRENCY = 32;

function specs(texts: readonly string[], name: 'include' | 'exclude'): LogSpec[] {
  return texts.map((s) => {
    try {
      return parseLogSpec(s, name);
    } catch (e) {
      if (e instanceof LogSpecError) throw new CliError(e.message);
      throw e;
    }
  });
}

/** The API server client, with the settings' context (the flag's, or the file's over it). */
function client(ctx: RunContext, context: string): OrchClient<OrchKubeConfig> {
  const source = meshctlOrchSource(ctx);
  if (!source) throw new CliError('bug-report: no cluster configured (give --orchconfig, set KUBECONFIG, or create ~/.kube/config)');
  try {
    const kc = loadOrchKubeConfig(source);
    if (context !== '') kc.setCurrentContext(context);
    return new OrchClient(kc, { ...DEFAULT_ORCH_CLIENT_OPTIONS, userAgent: 'meshctl' });
  } catch (e) {
    throw new CliError(`bug-report: ${(e as Error).message}`);
  }
}

/** Runs `meshctl bug-report`. */
export async function runBugReport(ctx: RunContext): Promise<number> {
  const s = bugReportSettings(ctx);
  if (s.rqConcurrency < 0) throw new CliError(`--rq-concurrency ${s.rqConcurrency}: must be 0 (the default, ${DEFAULT_CONCURRENCY}) or more`);
  const timeoutMs = s.timeoutMs;
  if (timeoutMs <= 0) throw new CliError('--timeout must be positive');
  let range;
  try {
    range = resolveTimeRange({ startTime: s.startTime, endTime: s.endTime, durationMs: s.durationMs }, new Date());
  } catch (e) {
    if (e instanceof TimeRangeError) throw new CliError(e.message);
    throw e;
  }
  const include = specs(s.include, 'include');
  const exclude = specs(s.exclude, 'exclude');
  const { meshNamespace, fullSecrets } = s;
  const concurrency = s.rqConcurrency === 0 ? DEFAULT_CONCURRENCY : s.rqConcurrency;
  const api = client(ctx, s.context);
  const { stdout, stderr } = ctx.io;
  const base = { meshNamespace, include, exclude, fullSecrets, range, concurrency };
  if (s.dryRun) {
    for (const p of await planBugReport(api, base)) stdout.write(`would collect ${p.path}: ${p.what}\n`);
    return 0;
  }
  // NOTE: config dumps and meshd's debug endpoints come through the API server's pods/portforward.
  const dialer = portForwardDialer(api.kubeConfig);
  const result = await collectBugReport(api, { ...base, timeoutMs, dialer, progress: (line) => stderr.write(`${line}\n`) });
  const cwd = process.cwd();
  const file = resolve(cwd, s.outputDir || '.', ARCHIVE_NAME);
  const header = [
    `meshctl bug-report of ${api.server}`,
    `log range: ${range.start ? range.start.toISOString() : 'the beginning'} to ${range.end.toISOString()}`,
    `include: ${include.map((s) => s.text).join(' ') || '(everything)'}`,
    `exclude: ${exclude.map((s) => s.text).join(' ') || '(nothing)'}`,
    `secrets: ${fullSecrets ? 'full contents (--full-secrets)' : 'data redacted'}`,
    `critical errors: ${s.criticalErrs.join(' ') || '(none given)'}; ignored errors: ${s.ignoreErrs.join(' ') || '(none given)'}`,
  ];
  if (result.timedOut) stderr.write(`Timed out after ${timeoutMs} ms: keeping what was captured (${result.skipped.length} fetches not made)\n`);
  for (const e of result.errors) stderr.write(`Error: ${e}\n`);
  const ranking = rankLogs(result.entries.filter((e) => e.path.startsWith('logs/')), { criticalErrs: s.criticalErrs, ignoreErrs: s.ignoreErrs });
  const first = ranking.filter((r) => r.stats.criticalMatches.length > 0 || r.stats.importance > 0).slice(0, MOST_IMPORTANT_SHOWN);
  if (first.length > 0) stderr.write(`Most important logs:\n${first.map((r) => `  ${rankedLine(r)}\n`).join('')}`);
  await writeArchive(result.entries, summaryText(result, header, ranking), resolve(cwd, s.dir || tmpdir()), file);
  stdout.write(`Wrote the archive ${file}\n`);
  return 0;
}
