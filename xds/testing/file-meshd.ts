/**
 * meshd (`pilot-discovery discovery`) serving a config dir through the Mock registry: the real process the tests
 * start when they need meshd without an API server. Every listener is on a free loopback port, the CA is off, the
 * mesh and networks config files are absent (defaults), and its output is collected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePorts } from './free-port.js';

const LAUNCHER = fileURLToPath(new URL('../../../bin/pilot-discovery', import.meta.url));

/** Where a meshd on a config dir listens (its ctrlz interface on loopback). */
export interface ConfigDirListeners {
  readonly grpcAddr: string;
  readonly httpAddr: string;
  readonly monitoringAddr: string;
  readonly ctrlzPort: number;
}

/**
 * The launcher and arguments of `pilot-discovery discovery` on `configDir` with no cluster (`--registries Mock`), as
 * `namespace`, listening on `l`: what the tests and the quick start run (each adds its own flags after them).
 */
export function configDirDiscoveryArgs(configDir: string, namespace: string, l: ConfigDirListeners): string[] {
  return [
    LAUNCHER,
    'discovery',
    '--configDir', configDir,
    '--registries', 'Mock',
    '--namespace', namespace,
    '--grpcAddr', l.grpcAddr,
    '--httpAddr', l.httpAddr,
    '--monitoringAddr', l.monitoringAddr,
    '--ctrlz_address', '127.0.0.1',
    '--ctrlz_port', String(l.ctrlzPort),
  ];
}

/** The loopback ports of a started meshd. */
export interface FileMeshdPorts {
  readonly grpc: number;
  readonly http: number;
  readonly monitoring: number;
  readonly ctrlz: number;
}

/** Options of {@link startFileMeshd}. */
export interface FileMeshdOptions {
  readonly configDir: string;
  /** `--namespace`, meshd's own (default `qs`). */
  readonly namespace?: string;
  /** Added to the environment after `ENABLE_CA_SERVER=false`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Flags after the defaults, e.g. `['--record', file]`. */
  readonly args?: readonly string[];
  /** Whether to wait for `/ready` (default true); without it the caller watches the start itself. */
  readonly waitReady?: boolean;
  /** How long `/ready` may take (default 60 s). */
  readonly readyTimeoutMs?: number;
}

/** A started meshd. */
export interface FileMeshd {
  readonly child: ChildProcess;
  readonly ports: FileMeshdPorts;
  /** Resolves once the process has ended. */
  readonly exited: Promise<void>;
  /** Its stdout, then its stderr, so far. */
  output(): string;
  /** Sends `signal` (default SIGTERM) unless it has exited, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts meshd on `o.configDir` and (by default) waits until `/ready` answers; throws with its output when it
 * exits first. NOTE: the ports are free when chosen, not when meshd binds them; meshd then exits naming the
 * address, and it is started again on new ports (three tries).
 */
export async function startFileMeshd(o: FileMeshdOptions): Promise<FileMeshd> {
  for (let attempt = 1; ; attempt++) {
    const meshd = await spawnOnFreePorts(o);
    if (o.waitReady === false) return meshd;
    try {
      await waitReady(meshd, o.readyTimeoutMs ?? 60_000);
      return meshd;
    } catch (e) {
      await meshd.stop('SIGKILL');
      if (attempt >= 3 || !meshd.output().includes('address already in use')) throw e;
    }
  }
}

async function spawnOnFreePorts(o: FileMeshdOptions): Promise<FileMeshd> {
  const [grpc, http, monitoring, ctrlz] = await freePorts(4);
  const ports: FileMeshdPorts = { grpc: grpc!, http: http!, monitoring: monitoring!, ctrlz: ctrlz! };
  const child = spawn(
    process.execPath,
    [
      ...configDirDiscoveryArgs(o.configDir, o.namespace ?? 'qs', {
        grpcAddr: `127.0.0.1:${ports.grpc}`, httpAddr: `127.0.0.1:${ports.http}`, monitoringAddr: `127.0.0.1:${ports.monitoring}`, ctrlzPort: ports.ctrlz,
      }),
      '--meshConfig', '/nonexistent/mesh',
      '--networksConfig', '/nonexistent/meshNetworks',
      ...(o.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ENABLE_CA_SERVER: 'false', ...o.env } },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    child,
    ports,
    exited,
    output: () => out + err,
    stop: async (signal = 'SIGTERM') => {
      if (running()) child.kill(signal);
      await exited;
    },
  };
}

/** Polls `/ready` until it answers 200; throws with meshd's output when it exits first or the time runs out. */
async function waitReady(meshd: FileMeshd, timeoutMs: number): Promise<void> {
  const url = `http://127.0.0.1:${meshd.ports.http}/ready`;
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (meshd.child.exitCode !== null || meshd.child.signalCode !== null) throw new Error(`meshd exited before ${url} answered:\n${meshd.output()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(50);
  }
  throw new Error(`${url} did not answer 200 in ${timeoutMs} ms (last: ${last}):\n${meshd.output()}`);
}
