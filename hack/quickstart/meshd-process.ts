/**
 * Runs meshd (`bin/pilot-discovery discovery`) as a child process for the quick start and waits until its
 * debug interface says it is ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { configDirDiscoveryArgs, type ConfigDirListeners } from '../../xds/testing/file-meshd.js';

export interface MeshdOptions extends ConfigDirListeners {
  readonly configDir: string;
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
    configDirDiscoveryArgs(o.configDir, 'quickstart', o),
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
