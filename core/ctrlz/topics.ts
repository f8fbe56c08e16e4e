import { hostname } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { Env } from '../env/index.js';
import type { Logging, ScopeState } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ProgramName } from '../program.js';
import { buildInfo, type BuildInfo } from '../version.js';

/** A scope as the introspection API shows it (Istio's ControlZ field names). */
export interface ScopeInfo {
  name: string;
  output_level: string;
  stack_trace_level: string;
  log_callers: boolean;
}

/** One scope in API form. */
export function scopeInfo(s: ScopeState): ScopeInfo {
  return { name: s.name, output_level: s.outputLevel, stack_trace_level: s.stacktraceLevel, log_callers: s.logCallers };
}

/** Every scope in API form. */
export function scopesInfo(logging: Logging): ScopeInfo[] {
  return logging.levels().map(scopeInfo);
}

/** Process facts: ids, host, working directory, command line, runtime. */
export function procInfo(program: ProgramName): Record<string, unknown> {
  return {
    program,
    pid: process.pid,
    ppid: process.ppid,
    hostname: hostname(),
    wd: process.cwd(),
    uid: process.getuid?.(),
    gid: process.getgid?.(),
    argv: process.argv,
    execPath: process.execPath,
    platform: process.platform,
    arch: process.arch,
    uptimeSeconds: process.uptime(),
  };
}

/** Memory use of the process and of the V8 heap, in bytes. */
export function memInfo(): Record<string, number> {
  const heap = getHeapStatistics();
  return {
    ...process.memoryUsage(),
    heapSizeLimit: heap.heap_size_limit,
    totalAvailableSize: heap.total_available_size,
    mallocedMemory: heap.malloced_memory,
    peakMallocedMemory: heap.peak_malloced_memory,
  };
}

/** Names of variables whose values introspection never shows (tokens, keys, secrets, passwords, credentials). */
export const SECRET_ENV_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** What introspection shows instead of a secret's value. */
export const REDACTED = '<redacted>';

/** The environment variables the program reads, with their effective values; secrets' values redacted (see SECRET_ENV_NAME). */
export function envInfo(env: Env): Record<string, unknown>[] {
  return env.entries().map((e) => {
    const value = e.value ?? null;
    return { name: e.name, type: e.type, value: value !== null && SECRET_ENV_NAME.test(e.name) ? REDACTED : value, set: e.raw !== undefined, description: e.description };
  });
}

/** The command line the process started with (Istio's argz): the program's path, then its arguments. */
export function argInfo(): string[] {
  return process.argv.slice(1);
}

/** Every metric of the registry with its current values. */
export function metricInfo(metrics: Metrics): Promise<unknown[]> {
  return metrics.registry.getMetricsAsJSON();
}

/** The build information. */
export function versionInfo(): BuildInfo {
  return buildInfo();
}
