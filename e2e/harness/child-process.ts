import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';

/** A started binary in its own process group, with its output in a log file. */
export class ManagedProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  #running = true;

  /** The binary's name, for error messages. */
  readonly name: string;
  /** The file that receives the process's stdout and stderr. */
  readonly logFile: string;

  private constructor(name: string, logFile: string, child: ChildProcess) {
    this.name = name;
    this.logFile = logFile;
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#running = false;
        resolve(code ?? (signal ? null : 0));
      });
      child.once('error', () => {
        this.#running = false;
        resolve(null);
      });
    });
  }

  /** Starts `binary args` detached (its own process group) with stdout and stderr appended to `logFile`. */
  static start(name: string, binary: string, args: readonly string[], logFile: string): ManagedProcess {
    const fd = openSync(logFile, 'a');
    try {
      const child = spawn(binary, args, { detached: true, stdio: ['ignore', fd, fd] });
      return new ManagedProcess(name, logFile, child);
    } finally {
      closeSync(fd);
    }
  }

  /** Whether the process has not exited yet. */
  get running(): boolean {
    return this.#running;
  }

  /** The process id (also the process group id). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** The last `maxChars` characters of the log, for error messages. */
  tailLog(maxChars = 4000): string {
    try {
      const text = readFileSync(this.logFile, 'utf8');
      return text.slice(-maxChars);
    } catch {
      return '';
    }
  }

  /**
   * Stops the whole process group: SIGTERM, then SIGKILL when it has not exited within `graceMs`.
   * Resolves once the process has exited. Safe to call twice.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.#running || this.#child.pid === undefined) return;
    this.#signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const result = await Promise.race([this.#exited, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.#signalGroup('SIGKILL');
      await this.#exited;
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }
}

// One free-port probe for tests, e2e and benchmarks.
export { freePort, freePorts } from '../../xds/testing/free-port.js';
