// npm run bench:xds -- --services S --proxies N [--proxy-type grpc|sidecar] [--server-cmd "..."] [--quick] [--out FILE]
// The xDS control-plane benchmark: generates a config dir, runs the server under test as a child process,
// connects N ADS clients from worker threads, and measures startup, convergence of four kinds of edits,
// bytes per type, server CPU and peak RSS. Prints a table and writes JSON (default bench-results/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BenchUsageError, parseBenchArgs } from './bench-options.js';
import { formatReport } from './report.js';
import { BenchRunError, runBench } from './run-bench.js';

async function main(argv: readonly string[]): Promise<number> {
  let opts;
  try {
    opts = parseBenchArgs(argv);
  } catch (e) {
    if (e instanceof BenchUsageError) {
      process.stderr.write(`bench:xds: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const log = (line: string): void => void process.stderr.write(`[bench:xds ${new Date().toISOString().slice(11, 23)}] ${line}\n`);
  let result;
  try {
    result = await runBench(opts, log);
  } catch (e) {
    if (e instanceof BenchRunError) {
      process.stderr.write(`bench:xds: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  process.stdout.write(`${formatReport(result)}\n`);
  const out = resolve(opts.out ?? `bench-results/xds-${result.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`results: ${out}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`bench:xds: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
