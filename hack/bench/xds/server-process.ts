/**
 * The server under test as a child process: command line from a template with `{placeholders}`, free
 * loopback ports, readiness by TCP connect to the gRPC port (then meshd's `/ready`), CPU seconds of the process tree from
 * /proc/<pid>/stat and peak RSS from /proc/<pid>/status (VmHWM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';

/** The default command: meshd's discovery with the config dir as its only source. */
export const DEFAULT_SERVER_CMD =
  'bin/pilot-discovery discovery --configDir {configDir} --registries Mock --grpcAddr {grpcAddr} --httpAddr {httpAddr} ' +
  '--monitoringAddr {monitoringAddr} --ctrlz_port {ctrlzPort}';

/** Values for the placeholders of a server command. */
export interface Placeholders {
  readonly configDir: string;
  readonly grpcAddr: string;
  readonly grpcPort: string;
  readonly httpAddr: string;
  readonly monitoringAddr: string;
  readonly ctrlzPort: string;
  /** The API server's kubeconfig ('' without one). */
  readonly kubeconfig: string;
  /** istiod's mesh config file ('' for meshd). */
  readonly meshConfig: string;
  /** `--istiod-bin`. */
  readonly istiodBin: string;
}

/** Fills `{name}` placeholders; an unknown name is an error naming it. */
export function fillCommand(template: string, values: Placeholders): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    if (!Object.hasOwn(values, name)) {
      throw new Error(`--server-cmd: unknown placeholder {${name}} (known: ${Object.keys(values).map((k) => `{${k}}`).join(', ')})`);
    }
    return values[name as keyof Placeholders];
  });
}

const CLK_TCK = 100; // NOTE: Linux USER_HZ is 100 on every supported architecture.

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/)) if (c) out.push(Number(c));
    } catch {
      // the task ended
    }
  }
  return out;
}

/** CPU seconds (user + system) of one process, or 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // NOTE: the command name (field 2) may contain spaces; fields after it start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime, stime (fields 14, 15)
  } catch {
    return 0;
  }
}

/** A `kB` field of /proc/<pid>/status in bytes, or 0. */
export function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A running server under test. */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly command: string;
  #output = '';
  readonly #lineWatchers: ((line: string) => void)[] = [];
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<void>;
  /** Peak RSS seen by sampling (for processes whose kernel lacks VmHWM, and for the whole tree). */
  #peakTreeRss = 0;

  private constructor(command: string, env: NodeJS.ProcessEnv, cwd: string) {
    this.command = command;
    // NOTE: `exec` makes the shell become the server, so the child's pid is the server's.
    this.child = spawn('/bin/sh', ['-c', `exec ${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keeper = (): ((b: Buffer) => void) => {
      let partial = '';
      return (b: Buffer): void => {
        const text = b.toString('utf8');
        this.#output = (this.#output + text).slice(-64_000);
        if (this.#lineWatchers.length === 0) return;
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) for (const w of this.#lineWatchers) w(line);
      };
    };
    this.child.stdout!.on('data', keeper());
    this.child.stderr!.on('data', keeper());
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve();
      });
    });
  }

  /** Spawns the command (a shell command line) with `env` added to this process's environment. */
  static spawn(command: string, env: Readonly<Record<string, string>>, cwd: string): ServerProcess {
    return new ServerProcess(command, { ...process.env, ...env }, cwd);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }
  /** The last 64 kB of stdout and stderr. */
  get output(): string {
    return this.#output;
  }
  /** Calls `watch` with every complete line of stdout and stderr from now on. */
  onLine(watch: (line: string) => void): void {
    this.#lineWatchers.push(watch);
  }

  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.#exit;
  }

  /** Every pid of the process tree. */
  tree(): number[] {
    const all: number[] = [];
    const walk = (p: number): void => {
      all.push(p);
      for (const c of childrenOf(p)) walk(c);
    };
    if (this.pid > 0) walk(this.pid);
    return all;
  }

  /** CPU seconds of the process tree so far. */
  cpuSeconds(): number {
    return this.tree().reduce((s, p) => s + processCpuSeconds(p), 0);
  }

  /** Samples the tree's RSS (call now and then); returns the current RSS in bytes. */
  sampleRss(): number {
    const rss = this.tree().reduce((s, p) => s + statusBytes(p, 'VmRSS'), 0);
    this.#peakTreeRss = Math.max(this.#peakTreeRss, rss);
    return rss;
  }

  /** Peak RSS: VmHWM of the server process (the kernel's high-water mark), and the sampled tree peak. */
  peakRss(): { vmHwm: number; sampledTree: number } {
    return { vmHwm: statusBytes(this.pid, 'VmHWM'), sampledTree: this.#peakTreeRss };
  }

  /** Resolves once `port` on 127.0.0.1 accepts connections; rejects if the process exits or the deadline passes. */
  async waitForPort(port: number, deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      if (this.#exit) throw new Error(`server exited (code ${this.#exit.code}, signal ${this.#exit.signal}) before listening; output:\n${this.#output.slice(-4000)}`);
      const ok = await new Promise<boolean>((resolve) => {
        const s = connect({ host: '127.0.0.1', port }, () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > end) throw new Error(`server did not listen on 127.0.0.1:${port} within ${deadlineMs} ms; output:\n${this.#output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Resolves true once `GET http://<httpAddr>/ready` answers 200 (meshd: every config source has
   * delivered its first full read), false at once when it answers neither 200 nor 503 (a server
   * without that route), or when it never answered in 5 s. Rejects if the process exits or the
   * deadline passes.
   */
  async waitForReady(httpAddr: string, deadlineMs: number): Promise<boolean> {
    const end = Date.now() + deadlineMs;
    const refusedUntil = Date.now() + 5000;
    let answered = false;
    for (;;) {
      if (this.#exit) throw new Error(`server exited (code ${this.#exit.code}, signal ${this.#exit.signal}) before ready; output:\n${this.#output.slice(-4000)}`);
      const status = await fetch(`http://${httpAddr}/ready`).then(
        async (r) => {
          await r.body?.cancel();
          return r.status;
        },
        () => undefined,
      );
      if (status === 200) return true;
      if (status !== undefined && status !== 503) return false;
      // NOTE: once it answered 503, a failed request (a keep-alive connection closed while meshd's event
      // loop was busy with the initial load) is retried; only a server that never answered is given up.
      if (status === 503) answered = true;
      else if (!answered && Date.now() > refusedUntil) return false;
      if (Date.now() > end) throw new Error(`server not ready on http://${httpAddr}/ready within ${deadlineMs} ms; output:\n${this.#output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.#exit) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
