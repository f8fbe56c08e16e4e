/**
 * meshd as a child process of an e2e test: the Orchestrator sources against a test cluster, every listener on
 * a free loopback port, its output collected, started once `/ready` answers (and, with `secure`, once the
 * secure gRPC and HTTPS listeners accept connections).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePorts } from './child-process.js';
import { WaitAborted, waitFor } from './wait-for.js';

const LAUNCHER = fileURLToPath(new URL('../../../bin/pilot-discovery', import.meta.url));

/** meshd's ports; the secure ones only when started with `secure`. */
export interface MeshdPorts {
  readonly grpc: number;
  readonly http: number;
  readonly monitoring: number;
  readonly ctrlz: number;
  readonly secureGrpc?: number;
  readonly https?: number;
}

/** A started meshd: the process, its ports and its output so far. */
export interface MeshdChild {
  readonly child: ChildProcess;
  readonly ports: MeshdPorts;
  log(): string;
}

export interface SpawnMeshdOptions {
  readonly kubeconfig: string;
  readonly namespace: string;
  /** Bind --secureGRPCAddr and --httpsAddr on free ports and wait for them. */
  readonly secure: boolean;
  /** Added to the test defaults (no leader election, 10 ms debounce, JSON to the API server). */
  readonly env?: Readonly<Record<string, string>>;
  readonly extraArgs?: readonly string[];
}

function accepts(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Starts meshd and waits until it is ready; throws with its output when it exits first. */
export async function spawnMeshd(o: SpawnMeshdOptions): Promise<MeshdChild> {
  // NOTE: the ports are free when chosen, not when meshd binds them: another process (an outgoing connection's
  // ephemeral port) may take one meanwhile. meshd then exits naming the address; start again on new ports.
  for (let attempt = 1; ; attempt++) {
    const [grpc, http, monitoring, ctrlz, secureGrpc, https] = await freePorts(o.secure ? 6 : 4);
    const ports: MeshdPorts = { grpc: grpc!, http: http!, monitoring: monitoring!, ctrlz: ctrlz!, ...(o.secure ? { secureGrpc: secureGrpc!, https: https! } : {}) };
    try {
      return await startMeshd(o, ports);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof Error) || !e.message.includes('address already in use')) throw e;
    }
  }
}

async function startMeshd(o: SpawnMeshdOptions, ports: MeshdPorts): Promise<MeshdChild> {
  const child = spawn(
    process.execPath,
    [
      LAUNCHER, 'discovery',
      '--orchconfig', o.kubeconfig,
      '--registries', 'Orchestrator',
      '--namespace', o.namespace,
      '--meshConfig', '/nonexistent/mesh',
      '--networksConfig', '/nonexistent/meshNetworks',
      '--grpcAddr', `127.0.0.1:${ports.grpc}`,
      ...(o.secure ? ['--secureGRPCAddr', `127.0.0.1:${ports.secureGrpc}`, '--httpsAddr', `127.0.0.1:${ports.https}`] : []),
      '--httpAddr', `127.0.0.1:${ports.http}`,
      '--monitoringAddr', `127.0.0.1:${ports.monitoring}`,
      '--ctrlz_address', '127.0.0.1',
      '--ctrlz_port', String(ports.ctrlz),
      ...(o.extraArgs ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ENABLE_LEADER_ELECTION: 'false', PILOT_DEBOUNCE_AFTER: '10ms', MESH_ORCH_CLIENT_CONTENT_TYPE: 'json', ...o.env },
    },
  );
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const running = (): void => {
    // NOTE: WaitAborted: a meshd that exited will not become ready (a taken port is then seen at once, not after 60 s).
    if (child.exitCode !== null || child.signalCode !== null) throw new WaitAborted(`meshd exited (${child.exitCode ?? child.signalCode}):\n${log}`);
  };
  await waitFor('meshd /ready', async () => {
    running();
    return fetch(`http://127.0.0.1:${ports.http}/ready`).then((r) => r.ok, () => false);
  }, 60_000);
  // NOTE: the debug /ready answers before the secure listeners are bound: wait for them too.
  for (const port of [ports.secureGrpc, ports.https]) {
    if (port === undefined) continue;
    await waitFor(`meshd listening on ${port}`, async () => {
      running();
      return accepts(port);
    }, 60_000);
  }
  return { child, ports, log: () => log };
}
