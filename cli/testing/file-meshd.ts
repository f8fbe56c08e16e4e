/**
 * meshd (`pilot-discovery discovery`) serving a config dir through the Mock registry: the real process the tests
 * start when they need meshd without an API server. Every listener is on a free loopback port, the CA is off, the
 * mesh and networks config files are absent (defaults), and its output is collected.
 */
import { freePorts, programEnv, startProgram, waitForHttp, type ProgramProcess } from './program-process.js';

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
export interface FileMeshd extends ProgramProcess {
  readonly ports: FileMeshdPorts;
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
      await waitForHttp(`http://127.0.0.1:${meshd.ports.http}/ready`, meshd, o.readyTimeoutMs ?? 60_000);
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
  const proc = startProgram(
    'pilot-discovery',
    [
      'discovery',
      '--configDir', o.configDir,
      '--registries', 'Mock',
      '--namespace', o.namespace ?? 'qs',
      '--meshConfig', '/nonexistent/mesh',
      '--networksConfig', '/nonexistent/meshNetworks',
      '--grpcAddr', `127.0.0.1:${ports.grpc}`,
      '--httpAddr', `127.0.0.1:${ports.http}`,
      '--monitoringAddr', `127.0.0.1:${ports.monitoring}`,
      '--ctrlz_address', '127.0.0.1',
      '--ctrlz_port', String(ports.ctrlz),
      ...(o.args ?? []),
    ],
    programEnv({ ENABLE_CA_SERVER: 'false', ...o.env }),
  );
  return {
    ...proc,
    ports,
    output: () => proc.stdout() + proc.stderr(),
    stop: async (signal = 'SIGTERM') => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal);
      await proc.exited;
    },
  };
}
