import { fileURLToPath } from 'node:url';

/** Frames from these files are the logging machinery, not the caller. */
const SKIP = [fileURLToPath(import.meta.url), fileURLToPath(new URL('./create-logging.js', import.meta.url)), '/node_modules/pino/'];

/**
 * The stack frames of the code that called a logger method, innermost first (frames of pino and of
 * the logging code left out).
 */
export function callerFrames(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack.split('\n').slice(1).map((l) => l.trim());
  const first = frames.findIndex((f) => !SKIP.some((s) => f.includes(s)));
  return first < 0 ? [] : frames.slice(first);
}

/** `dir/file.js:line` of a stack frame (`at fn (/abs/dir/file.js:12:5)`), as Istio prints callers. */
export function shortCaller(frame: string): string {
  const m = /(?:\(|at )(?:file:\/\/)?([^()\s]+):(\d+):\d+\)?$/.exec(frame);
  if (!m) return 'unknown';
  return `${m[1]!.split('/').slice(-2).join('/')}:${m[2]}`;
}
