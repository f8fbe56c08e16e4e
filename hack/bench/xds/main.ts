// npm run bench:xds -- --services S --proxies N [--proxy-type grpc|sidecar] [--server-cmd "..."] [--quick] [--out FILE]
//                      [--source files|kube] [--reference istiod [--istiod-bin PATH]]
// The xDS control-plane benchmark: generates a config dir, runs the server under test as a child process,
// connects N ADS clients from worker threads, and measures startup, convergence of four kinds of edits,
// bytes per type, server CPU and peak RSS. Prints a table and writes JSON (default bench-results/).
// With --source kube the config goes through a real API server; with --reference istiod the same run is
// repeated against istiod and both tables are printed with the ratios meshd/istiod.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BenchUsageError, parseBenchArgs, type BenchOptions } from './bench-options.js';
import { istiodTarget, meshdTarget } from './bench-target.js';
import { formatComparison } from './compare-report.js';
import { formatReport } from './report.js';
import { BenchRunError, runBench, type BenchResult } from './run-bench.js';
import { startBenchCluster, type BenchCluster } from '../kube-cluster.js';
import { measureSteal } from '../ca/steal.js';

/** Namespaces the API server needs: the services' and clients', and each server's own. */
function clusterNamespaces(opts: BenchOptions): string[] {
  return [...Array.from({ length: opts.namespaces }, (_, i) => `ns-${i}`), 'mesh-system', 'istio-system'];
}

/** meshd alone (the default), meshd on the API server, or meshd then istiod. */
async function runAll(opts: BenchOptions, log: (line: string) => void): Promise<{ meshd: BenchResult; istiod?: BenchResult }> {
  if (opts.source === 'files' && opts.reference === undefined) return { meshd: await runBench(opts, log) };
  let cluster: BenchCluster | undefined;
  try {
    cluster = await startBenchCluster(clusterNamespaces(opts), log);
    const meshd = await runBench(opts, log, process.cwd(), meshdTarget(opts, cluster));
    if (opts.reference === undefined) return { meshd };
    log('reference: the same run against istiod');
    const istiod = await runBench(opts, log, process.cwd(), istiodTarget(opts, cluster));
    return { meshd, istiod };
  } finally {
    await cluster?.stop();
  }
}

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
  if (opts.reference === 'istiod' && !existsSync(opts.istiodBin)) {
    process.stderr.write(
      `bench:xds: --reference istiod: no istiod binary at ${opts.istiodBin} (build it as ../shared/notes/istiod-reference.md says, or pass --istiod-bin PATH)\n`,
    );
    return 2;
  }
  let results;
  const steal = measureSteal();
  try {
    results = await runAll(opts, log);
  } catch (e) {
    if (e instanceof BenchRunError) {
      process.stderr.write(`bench:xds: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const result = results.meshd;
  if (results.istiod) process.stdout.write('=== meshd ===\n');
  process.stdout.write(`${formatReport(result)}\n`);
  if (results.istiod) {
    process.stdout.write(`\n=== istiod (reference) ===\n${formatReport(results.istiod)}\n\n${formatComparison(result, results.istiod)}\n`);
  }
  const stolen = steal();
  if (stolen !== undefined) process.stdout.write(`machine: hypervisor steal ${(stolen * 100).toFixed(0)}% of the CPU time during the run${results.istiod ? ' (both servers)' : ''}\n`);
  const out = resolve(opts.out ?? `bench-results/xds-${result.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  // NOTE: the meshd-only JSON keeps its shape; with a reference both results sit side by side.
  writeFileSync(out, `${JSON.stringify(results.istiod ? results : result, null, 2)}\n`);
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
