/**
 * Runs meshd (`bin/pilot-discovery discovery`) as a child process for the quick start and waits until its
 * debug interface says it is ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LAUNCHER = fileURLToPath(new URL('../../../bin/pilot-discovery', import.meta.url));

export interface MeshdOptions {
  readonly configDir: string;
  readonly grpcAddr: string;
  readonly httpAddr: string;
  readonly monitoringAddr: string;
  readonly ctrlzPort: number;
  /** Where meshd's log lines go. */
  readonly logFile: NodeJS.WritableStream;
}

export interface MeshdProcess {
  readonly child: ChildProcess;
  /** Sends SIGTERM and resolves when meshd has exited. */
  stop(): Promise<void>;
}

/** Starts meshd with no cluster (`--registries Mock`) on the given config dir. */
export async function startMeshd(o: MeshdOptions, deadlineMs = 30_000): Promise<MeshdProcess> {
  const child = spawn(
    process.execPath,
    [
      LAUNCHER,
      'discovery',
      '--configDir', o.configDir,
      '--registries', 'Mock',
      '--grpcAddr', o.grpcAddr,
      '--httpAddr', o.httpAddr,
      '--monitoringAddr', o.monitoringAddr,
      '--ctrlz_address', '127.0.0.1',
      '--ctrlz_port', String(o.ctrlzPort),
      '--namespace', 'quickstart',
    ],
    // NOTE: the quick start runs no CA and no leader election: it is one meshd with files as its config.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: '100ms' } },
  );
  child.stdout?.pipe(o.logFile, { end: false });
  child.stderr?.pipe(o.logFile, { end: false });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`meshd exited with code ${child.exitCode} before it was ready (see its log)`);
    try {
      const res = await fetch(`http://${o.httpAddr}/ready`);
      if (res.ok) return { child, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`meshd was not ready on http://${o.httpAddr}/ready within ${deadlineMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
