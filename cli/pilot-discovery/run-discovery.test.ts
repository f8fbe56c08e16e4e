import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { freePorts, httpGet, occupyPort, programEnv, REPO_ROOT, runProgram, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';
import { HEALTH_CHECK_PATH, HEALTH_CODEC, type HealthCheckResponse } from './health-service.js';

const METRICS_JSON = join(REPO_ROOT, '..', 'shared', 'spec', 'metrics.json');

/** The metric names metrics.json lists for pilot-discovery: the shared group and its own. */
function specMetricNames(): string[] {
  const spec = JSON.parse(readFileSync(METRICS_JSON, 'utf8')) as { metrics: { name: string; group: string }[] };
  return spec.metrics.filter((m) => m.group === 'shared' || m.group === 'pilot-discovery').map((m) => m.name);
}

function healthCheck(address: string): Promise<HealthCheckResponse> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise<HealthCheckResponse>((resolve, reject) => {
    client.makeUnaryRequest(HEALTH_CHECK_PATH, HEALTH_CODEC.encodeRequest, HEALTH_CODEC.decodeResponse, { service: '' }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res!);
    });
  });
}

describe('pilot-discovery discovery (process)', function () {
  this.timeout(60_000);

  describe('given every listener on a free loopback port', () => {
    let proc: ProgramProcess | undefined;
    let ports: { grpc: number; http: number; monitoring: number; ctrlz: number };

    before(async () => {
      const [grpcPort, http, monitoring, ctrlz] = await freePorts(4);
      ports = { grpc: grpcPort!, http: http!, monitoring: monitoring!, ctrlz: ctrlz! };
      proc = startProgram('pilot-discovery', [
        'discovery',
        `--grpcAddr=127.0.0.1:${ports.grpc}`,
        '--httpAddr',
        `127.0.0.1:${ports.http}`,
        `--monitoringAddr=127.0.0.1:${ports.monitoring}`,
        '--ctrlz_address=127.0.0.1',
        `--ctrlz_port=${ports.ctrlz}`,
        // NOTE: the CA is on by default, so the secure listeners start too: on free ports as well.
        '--secureGRPCAddr=127.0.0.1:0',
        '--httpsAddr=127.0.0.1:0',
        '--log_output_level=default:info',
      ]);
      await waitForHttp(`http://127.0.0.1:${ports.http}/ready`, proc);
    });

    after(async () => {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    });

    it('should serve /metrics with mesh_build for pilot-discovery', async () => {
      const r = await httpGet(`http://127.0.0.1:${ports.monitoring}/metrics`);
      assert.equal(r.status, 200);
      assert.match(r.body, /^mesh_build\{[^}]*component="pilot-discovery"[^}]*\} 1$/m);
    });

    it('should report its start-up time and, within seconds, its uptime', async () => {
      const value = async (name: string): Promise<number> => {
        const text = (await httpGet(`http://127.0.0.1:${ports.monitoring}/metrics`)).body;
        return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
      };
      assert.ok((await value('startup_duration_seconds')) > 0);
      const deadline = Date.now() + 10_000;
      while ((await value('meshd_uptime_seconds')) <= 0) {
        assert.ok(Date.now() < deadline, 'meshd_uptime_seconds stayed 0');
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    it('should export every metric metrics.json lists for pilot-discovery', async function () {
      if (!existsSync(METRICS_JSON)) this.skip(); // the shared spec folder is not beside this checkout
      const body = (await httpGet(`http://127.0.0.1:${ports.monitoring}/metrics`)).body;
      const missing = specMetricNames().filter((name) => !new RegExp(`^# TYPE ${name} `, 'm').test(body));
      assert.deepEqual(missing, []);
    });

    it('should answer the gRPC health check with SERVING', async () => {
      assert.deepEqual(await healthCheck(`127.0.0.1:${ports.grpc}`), { status: 'SERVING' });
    });

    it('should serve /version as JSON on the debug listener', async () => {
      const r = await httpGet(`http://127.0.0.1:${ports.http}/version`);
      assert.equal(r.status, 200);
      const v = JSON.parse(r.body) as { version: string; nodeVersion: string };
      assert.equal(v.nodeVersion, process.version);
      assert.match(v.version, /^\d+\.\d+\.\d+/);
    });

    it('should serve ControlZ on --ctrlz_port', async () => {
      const r = await httpGet(`http://127.0.0.1:${ports.ctrlz}/scopej/`);
      assert.equal(r.status, 200);
      assert.ok(JSON.stringify(JSON.parse(r.body)).includes('"ads"'));
    });

    it('given SIGTERM should close every listener and exit 0', async () => {
      proc!.child.kill('SIGTERM');
      assert.equal(await proc!.exited, 0, proc!.stderr());
      await assert.rejects(httpGet(`http://127.0.0.1:${ports.monitoring}/metrics`), /ECONNREFUSED/);
    });
  });

  const inUse: { name: string; flag: string }[] = [
    { name: 'given the monitoring port in use should name --monitoringAddr and exit 1', flag: 'monitoringAddr' },
    { name: 'given the gRPC port in use should name --grpcAddr and exit 1', flag: 'grpcAddr' },
    { name: 'given the debug HTTP port in use should name --httpAddr and exit 1', flag: 'httpAddr' },
  ];
  for (const c of inUse) {
    it(c.name, async () => {
      const busy = await occupyPort();
      try {
        const [a, b, d, z] = await freePorts(4);
        const addrs: Record<string, string> = { grpcAddr: `127.0.0.1:${a}`, httpAddr: `127.0.0.1:${b}`, monitoringAddr: `127.0.0.1:${d}` };
        addrs[c.flag] = `127.0.0.1:${busy.port}`;
        const r = await runProgram('pilot-discovery', ['discovery', ...Object.entries(addrs).map(([k, v]) => `--${k}=${v}`), `--ctrlz_port=${z}`, '--ctrlz_address=127.0.0.1']);
        assert.equal(r.code, 1);
        assert.match(r.stderr, new RegExp(`Error: --${c.flag} 127\\.0\\.0\\.1:${busy.port}: address already in use`));
      } finally {
        await busy.close();
      }
    });
  }

  describe('given the default --registries (Orchestrator)', () => {
    const examples = join(REPO_ROOT, 'examples', 'quickstart');
    const noCluster = (): NodeJS.ProcessEnv => {
      const env = programEnv();
      for (const name of ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'ORCH_SERVICE_HOST']) delete env[name];
      return env;
    };
    /** A kubeconfig whose API server (127.0.0.1:1) never answers. */
    const unreachableCluster = (): { dir: string; kubeconfig: string } => {
      const dir = mkdtempSync(join(tmpdir(), 'meshd-kubeconfig-'));
      const kubeconfig = join(dir, 'config');
      writeFileSync(
        kubeconfig,
        'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
      );
      return { dir, kubeconfig };
    };
    const listenerArgs = async (): Promise<string[]> => {
      const [a, b, d, z] = await freePorts(4);
      return [
        `--grpcAddr=127.0.0.1:${a}`, `--httpAddr=127.0.0.1:${b}`, `--monitoringAddr=127.0.0.1:${d}`, `--ctrlz_port=${z}`,
        '--ctrlz_address=127.0.0.1', '--secureGRPCAddr=127.0.0.1:0', '--httpsAddr=127.0.0.1:0',
      ];
    };

    it('and --configDir with no cluster configured should serve the files, the Orchestrator registry off (with a warning)', async () => {
      const args = await listenerArgs();
      const http = args[1]!.split('=')[1]!;
      const proc = startProgram('pilot-discovery', ['discovery', '--configDir', examples, ...args], noCluster());
      try {
        await waitForHttp(`http://${http}/ready`, proc);
        const deadline = Date.now() + 10_000;
        while (!/"kind": "VirtualService"/.test((await httpGet(`http://${http}/debug/configz`)).body)) {
          assert.ok(Date.now() < deadline, 'the VirtualService of the config dir never showed in /debug/configz');
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.match(proc.stdout() + proc.stderr(), /the Orchestrator registry is off/);
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
    });

    it('and --configDir with a cluster configured should say that mixing files with the cluster registry is not built yet, and exit 1', async () => {
      const { dir, kubeconfig } = unreachableCluster();
      try {
        const r = await runProgram('pilot-discovery', ['discovery', '--configDir', examples, ...(await listenerArgs())], { ...noCluster(), KUBECONFIG: kubeconfig, ENABLE_CA_SERVER: 'false' });
        assert.equal(r.code, 1);
        assert.match(r.stderr, /not implemented yet: --configDir together with the Orchestrator registry/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('and no --configDir with an API server that does not answer should keep /ready at 503 naming the sources it waits for', async () => {
      const { dir, kubeconfig } = unreachableCluster();
      const args = await listenerArgs();
      const http = args[1]!.split('=')[1]!;
      const proc = startProgram('pilot-discovery', ['discovery', ...args], { ...noCluster(), KUBECONFIG: kubeconfig, ENABLE_CA_SERVER: 'false' });
      try {
        const deadline = Date.now() + 15_000;
        let last = { status: 0, body: '' };
        while (!/waiting for the first sync/.test(last.body)) {
          assert.ok(Date.now() < deadline, `/ready never said what it waits for; last answer: ${last.status} ${last.body}`);
          await new Promise((r) => setTimeout(r, 100));
          last = await httpGet(`http://${http}/ready`).catch(() => ({ status: 0, body: '' }));
        }
        assert.equal(last.status, 503);
        assert.match(last.body, /^not ready: waiting for the first sync of (?=.*crd-config)(?=.*orch-registry)/);
        assert.doesNotMatch(last.body, /mesh-config/, 'the mesh config file was read at start');
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  const badInput: { name: string; args: string[]; env?: Record<string, string>; error: RegExp }[] = [
    { name: 'given a bad environment value should print the variable and exit 1', args: [], env: { ENABLE_CA_SERVER: 'flase' }, error: /Error: ENABLE_CA_SERVER="flase": not a Bool/ },
    { name: 'given an unknown log scope should name it and exit 1', args: ['--log_output_level=nosuch:debug'], error: /Error: .*nosuch/ },
    { name: 'given an unknown registry should name it and exit 1', args: ['--registries=Orchestrator,Consul'], error: /Error: --registries: unknown registry "Consul"/ },
    { name: 'given PILOT_ENABLE_MYSQL_FILTER=true should refuse it before starting anything, naming the variable, and exit 1', args: [], env: { PILOT_ENABLE_MYSQL_FILTER: 'true' }, error: /^Error: PILOT_ENABLE_MYSQL_FILTER=true is not supported: .*contrib filter/m },
  ];
  for (const c of badInput) {
    it(c.name, async () => {
      const r = await runProgram('pilot-discovery', ['discovery', ...c.args], programEnv(c.env));
      assert.equal(r.code, 1);
      assert.match(r.stderr, c.error);
      assert.doesNotMatch(`${r.stdout}${r.stderr}`, /CA ready|listeners started/, 'nothing started');
    });
  }
});
