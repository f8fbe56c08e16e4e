/**
 * `npm run bench:startup [-- --runs N] [--cache on|off|both]`: wall time (p50, p90) and CPU time (p50) from
 * spawning to exit of each program's cheap commands, through the real launchers in bin/, with and without
 * Node's module compile cache (a fresh cache directory, filled by one unmeasured run; `NODE_DISABLE_COMPILE_CACHE=1`
 * for without). Prints the load average and the hypervisor's steal: on a shared machine the numbers rise with them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { measureSteal } from '../ca/steal.js';
import { fmtMs, percentile, table } from '../stats.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const REPORTER = pathToFileURL(fileURLToPath(new URL('./cpu-reporter.js', import.meta.url))).href;

/** The commands measured: each program's cheap ones. */
export const STARTUP_CASES: readonly { readonly program: string; readonly args: readonly string[] }[] = [
  { program: 'meshctl', args: ['version', '--remote=false'] },
  { program: 'meshctl', args: ['validate', '-f', 'examples/quickstart'] },
  { program: 'meshctl', args: ['--help'] },
  { program: 'pilot-discovery', args: ['--help'] },
  { program: 'pilot-agent', args: ['--help'] },
  { program: 'operator', args: ['--help'] },
];

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function runOnce(program: string, args: readonly string[], env: NodeJS.ProcessEnv, cpuFile: string): Run {
  const start = performance.now();
  const r = spawnSync(process.execPath, [join(REPO, 'bin', program), ...args], { cwd: REPO, env: { ...env, BENCH_CPU_FILE: cpuFile }, encoding: 'utf8' });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, cache: { type: 'string', default: 'both' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not "${values.runs}"`);
  const modes = values.cache === 'both' ? ['on', 'off'] : [values.cache];
  if (!modes.every((m) => m === 'on' || m === 'off')) throw new Error(`--cache must be on, off or both, not "${values.cache}"`);
  const work = mkdtempSync(join(tmpdir(), 'mesh-bench-startup-'));
  const cpuFile = join(work, 'cpu.json');
  const steal = measureSteal();
  const rows: string[][] = [['command', 'compile cache', 'wall p50', 'wall p90', 'cpu p50']];
  try {
    for (const mode of modes) {
      const { NODE_COMPILE_CACHE: _c, NODE_DISABLE_COMPILE_CACHE: _d, ...base } = process.env;
      const env: NodeJS.ProcessEnv = { ...base, NODE_OPTIONS: `--import=${REPORTER}` };
      if (mode === 'on') env['NODE_COMPILE_CACHE'] = join(work, 'compile-cache');
      else env['NODE_DISABLE_COMPILE_CACHE'] = '1';
      for (const c of STARTUP_CASES) {
        runOnce(c.program, c.args, env, cpuFile); // NOTE: unmeasured: fills the cache (and the OS page cache)
        const measured = Array.from({ length: runs }, () => runOnce(c.program, c.args, env, cpuFile));
        const wall = measured.map((m) => m.wallMs);
        rows.push([`${c.program} ${c.args.join(' ')}`, mode, fmtMs(percentile(wall, 50)), fmtMs(percentile(wall, 90)), fmtMs(percentile(measured.map((m) => m.cpuMs), 50))]);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const s = steal();
  console.log(`${runs} runs per command; Node ${process.version}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; steal ${s === undefined ? '-' : `${(s * 100).toFixed(0)}%`}\n`);
  console.log(table(rows));
}

main();
