import pino from 'pino';
import { LogConfigError } from './log-levels.js';
import { RotatingFile, type RotationLimits } from './rotating-file.js';

/** Where formatted lines go. Writes are synchronous so nothing is lost at exit. */
export interface LogSink {
  write(text: string): void;
  flush(): void;
  close(): void;
}

/** Opens one `--log_target` value: `stdout`, `stderr` or a file path (appended, directories created). */
export function openTarget(target: string): LogSink {
  const fd = target === 'stdout' ? 1 : target === 'stderr' ? 2 : undefined;
  try {
    const stream = pino.destination(fd === undefined ? { dest: target, sync: true, mkdir: true, append: true } : { dest: fd, sync: true });
    return {
      write: (text) => stream.write(text),
      flush: () => stream.flushSync(),
      close: () => (fd === undefined ? stream.end() : stream.flushSync()),
    };
  } catch (err) {
    throw new LogConfigError(`cannot open log target "${target}": ${(err as Error).message}`);
  }
}

/** Opens the `--log_rotate` file. */
export function openRotating(path: string, limits: RotationLimits, now: () => number): LogSink {
  try {
    const file = new RotatingFile(path, limits, now);
    return { write: (text) => file.write(text), flush: () => undefined, close: () => file.close() };
  } catch (err) {
    throw new LogConfigError(`cannot open rotating log file "${path}": ${(err as Error).message}`);
  }
}
