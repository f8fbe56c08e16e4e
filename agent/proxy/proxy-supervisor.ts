/**
 * Starts the data-plane proxy and keeps it running: a crash (non-zero exit or a signal) restarts it
 * after an exponential backoff, until `maxRestarts` crashes in a row; then the supervisor ends with the
 * proxy's exit code. A clean exit (0) ends it with 0. `stop()` drains first, as Istio's agent does on
 * SIGTERM: it asks the proxy's admin API to drain inbound listeners gracefully, waits the mesh config's
 * `terminationDrainDuration`, then sends the proxy SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../core/index.js';

/** Backoff between restarts. */
export interface RestartBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Crashes in a row after which the supervisor gives up. */
  readonly maxRestarts: number;
}

/** Istio-like defaults: 200 ms doubling to 10 s, 10 crashes in a row. */
export const DEFAULT_RESTART_BACKOFF: RestartBackoff = { initialMs: 200, maxMs: 10_000, maxRestarts: 10 };

/** Options of a `ProxySupervisor`. */
export interface ProxySupervisorOptions {
  readonly binaryPath: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** The proxy's admin port on 127.0.0.1 (the drain request goes there). */
  readonly adminPort: number;
  readonly terminationDrainMs: number;
  readonly backoff?: RestartBackoff;
  /** A run that lasted this long resets the crash count (default 60 s). */
  readonly healthyRunMs?: number;
  readonly clock?: Clock;
  readonly logger: Logger;
}

/** How the proxy's last run ended: its exit code, or 128 + signal number as a shell reports it. */
export interface ProxyExit {
  readonly code: number;
  readonly signal?: NodeJS.Signals;
  readonly restarts: number;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGTERM: 15 };

/** Runs and restarts one proxy process. */
export class ProxySupervisor {
  readonly #o: ProxySupervisorOptions;
  readonly #clock: Clock;
  readonly #backoff: RestartBackoff;
  #child: ChildProcess | undefined;
  #stopping = false;
  #restarts = 0;
  #crashesInRow = 0;
  #wake: (() => void) | undefined;
  readonly #done: Promise<ProxyExit>;
  #resolveDone!: (e: ProxyExit) => void;
  /** Starts so far (1 after the first start). */
  starts = 0;

  constructor(options: ProxySupervisorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#backoff = options.backoff ?? DEFAULT_RESTART_BACKOFF;
    this.#done = new Promise((res) => (this.#resolveDone = res));
  }

  /** Resolves once the supervisor has ended (proxy exited cleanly, gave up, or stopped). */
  get exited(): Promise<ProxyExit> {
    return this.#done;
  }

  /** The running proxy's pid, if one runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the proxy and the restart loop; returns at once. */
  start(): void {
    void this.#loop();
  }

  async #loop(): Promise<void> {
    for (;;) {
      const startedAt = this.#clock.now();
      const exit = await this.#runOnce();
      if (this.#stopping) return this.#resolveDone({ ...exit, restarts: this.#restarts });
      if (exit.code === 0) {
        this.#o.logger.info({ restarts: this.#restarts }, 'proxy exited cleanly');
        return this.#resolveDone({ ...exit, restarts: this.#restarts });
      }
      if (this.#clock.now() - startedAt >= (this.#o.healthyRunMs ?? 60_000)) this.#crashesInRow = 0;
      this.#crashesInRow++;
      if (this.#crashesInRow > this.#backoff.maxRestarts) {
        this.#o.logger.error({ code: exit.code, signal: exit.signal, crashes: this.#crashesInRow }, 'proxy keeps crashing; giving up');
        return this.#resolveDone({ ...exit, restarts: this.#restarts });
      }
      const delay = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (this.#crashesInRow - 1));
      this.#o.logger.warn({ code: exit.code, signal: exit.signal, delayMs: delay, crashes: this.#crashesInRow }, 'proxy crashed; restarting after backoff');
      await new Promise<void>((res) => {
        const cancel = this.#clock.setTimer(res, delay, { keepAlive: true });
        this.#wake = () => {
          cancel();
          res();
        };
      });
      this.#wake = undefined;
      if (this.#stopping) return this.#resolveDone({ ...exit, restarts: this.#restarts });
      this.#restarts++;
    }
  }

  #runOnce(): Promise<{ code: number; signal?: NodeJS.Signals }> {
    return new Promise((resolve) => {
      this.starts++;
      const child = spawn(this.#o.binaryPath, [...this.#o.args], { env: this.#o.env ?? process.env, cwd: this.#o.cwd, stdio: ['ignore', 'inherit', 'inherit'] });
      this.#child = child;
      this.#o.logger.info({ pid: child.pid, binary: this.#o.binaryPath, start: this.starts }, 'proxy started');
      child.once('error', (e) => {
        this.#o.logger.error({ err: e.message, binary: this.#o.binaryPath }, 'proxy could not be started');
        // NOTE: 127 is what a shell answers for a command it cannot run.
        this.#child = undefined;
        resolve({ code: 127 });
      });
      child.once('exit', (code, signal) => {
        this.#child = undefined;
        resolve(signal ? { code: 128 + (SIGNAL_NUMBERS[signal] ?? 0), signal } : { code: code ?? 1 });
      });
    });
  }

  /**
   * Drains and stops the proxy: POST /drain_listeners?inboundonly&graceful to its admin API, waits
   * `terminationDrainMs`, then SIGTERM (SIGKILL if it is still running `killAfterMs` later). Resolves
   * with how the proxy ended.
   */
  async stop(killAfterMs = 5_000): Promise<ProxyExit> {
    if (this.#stopping) return this.#done;
    this.#stopping = true;
    this.#wake?.();
    if (this.#child) {
      try {
        await adminPost(this.#o.adminPort, '/drain_listeners?inboundonly&graceful');
        this.#o.logger.info({ drainMs: this.#o.terminationDrainMs }, 'proxy draining');
      } catch (e) {
        this.#o.logger.warn({ err: (e as Error).message }, 'proxy drain request failed; stopping it anyway');
      }
      await this.#clock.sleep(this.#o.terminationDrainMs, undefined, { keepAlive: true });
      const child = this.#child;
      if (child) {
        child.kill('SIGTERM');
        const cancel = this.#clock.setTimer(() => child.kill('SIGKILL'), killAfterMs, { keepAlive: true });
        void this.#done.then(cancel);
      }
    }
    return this.#done;
  }
}

function adminPost(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 2s')));
    req.on('error', reject);
    req.end();
  });
}
