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
  portForwardDialer,
  resolveTimeRange,
  summaryText,
  TimeRangeError,
  writeArchive,
  type LogSpec,
} from '../../inspect/index.js';
import { CliError, NotImplementedError, type RunContext } from '../framework/index.js';
import { meshctlOrchClient } from './meshctl-orch.js';

/** The archive's file name in `--output-dir`. */
export const ARCHIVE_NAME = 'bug-report.tar.gz';
/** `--rq-concurrency 0` means this many. */
const DEFAULT_CONCURRENCY = 32;

function specs(ctx: RunContext, name: 'include' | 'exclude'): LogSpec[] {
  return ctx.flags.strings(name).map((s) => {
    try {
      return parseLogSpec(s, name);
    } catch (e) {
      if (e instanceof LogSpecError) throw new CliError(e.message);
      throw e;
    }
  });
}

/** Runs `meshctl bug-report`. */
export async function runBugReport(ctx: RunContext): Promise<number> {
  const f = ctx.flags;
  if (f.string('filename') !== '') throw new NotImplementedError('meshctl bug-report --filename (a YAML configuration file over the flags)');
  for (const name of ['critical-errs', 'ignore-errs']) {
    if (f.strings(name).length > 0) throw new NotImplementedError(`meshctl bug-report --${name} (the log importance heuristic)`);
  }
  const concurrencyFlag = f.number('rq-concurrency');
  if (concurrencyFlag < 0) throw new CliError(`--rq-concurrency ${concurrencyFlag}: must be 0 (the default, ${DEFAULT_CONCURRENCY}) or more`);
  const timeoutMs = f.duration('timeout');
  if (timeoutMs <= 0) throw new CliError('--timeout must be positive');
  let range;
  try {
    range = resolveTimeRange({ startTime: f.string('start-time'), endTime: f.string('end-time'), durationMs: f.duration('duration') }, new Date());
  } catch (e) {
    if (e instanceof TimeRangeError) throw new CliError(e.message);
    throw e;
  }
  const include = specs(ctx, 'include');
  const exclude = specs(ctx, 'exclude');
  const meshNamespace = f.string('mesh-namespace');
  const fullSecrets = f.bool('full-secrets');
  const concurrency = concurrencyFlag === 0 ? DEFAULT_CONCURRENCY : concurrencyFlag;
  const client = meshctlOrchClient(ctx, 'bug-report');
  const { stdout, stderr } = ctx.io;
  const base = { meshNamespace, include, exclude, fullSecrets, range, concurrency };
  if (f.bool('dry-run')) {
    for (const p of await planBugReport(client, base)) stdout.write(`would collect ${p.path}: ${p.what}\n`);
    return 0;
  }
  // NOTE: config dumps and meshd's debug endpoints come through the API server's pods/portforward.
  const dialer = portForwardDialer(client.kubeConfig);
  const result = await collectBugReport(client, { ...base, timeoutMs, dialer, progress: (line) => stderr.write(`${line}\n`) });
  const cwd = process.cwd();
  const file = resolve(cwd, f.string('output-dir') || '.', ARCHIVE_NAME);
  const header = [
    `meshctl bug-report of ${client.server}`,
    `log range: ${range.start ? range.start.toISOString() : 'the beginning'} to ${range.end.toISOString()}`,
    `include: ${include.map((s) => s.text).join(' ') || '(everything)'}`,
    `exclude: ${exclude.map((s) => s.text).join(' ') || '(nothing)'}`,
    `secrets: ${fullSecrets ? 'full contents (--full-secrets)' : 'data redacted'}`,
  ];
  if (result.timedOut) stderr.write(`Timed out after ${timeoutMs} ms: keeping what was captured (${result.skipped.length} fetches not made)\n`);
  for (const e of result.errors) stderr.write(`Error: ${e}\n`);
  await writeArchive(result.entries, summaryText(result, header), resolve(cwd, f.string('dir') || tmpdir()), file);
  stdout.write(`Wrote the archive ${file}\n`);
  return 0;
}
