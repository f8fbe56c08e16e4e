/**
 * Loaded into each measured program with `--import` by the start-up benchmark: at exit, writes the process's
 * CPU time (user and system, all threads) to `$BENCH_CPU_FILE`. On a shared machine the wall time swings
 * with other load; the CPU time much less.
 */
import { writeFileSync } from 'node:fs';

const file = process.env['BENCH_CPU_FILE'];
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.cpuUsage())));
