import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, httpGet, occupyPort, programEnv, runProgram, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

/** A kubeconfig naming an API server on a loopback port nothing listens on, context namespace `ops`. */
function unreachableKubeconfig(dir: string, port: number): string {
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${port}" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: ops } }]
current-context: x
`,
  );
  return file;
}

/** The environment of a run that names no cluster but `--orchconfig`. */
function envWithoutCluster(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = programEnv(extra);
  delete env['KUBECONFIG'];
  delete env['KUBERNETES_SERVICE_HOST'];
  return env;
}

describe('operator server (process)', function () {
  this.timeout(60_000);

  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'operator-server-'));
    const [apiPort] = await freePorts(1);
    kubeconfig = unreachableKubeconfig(dir, apiPort!);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('given free loopback ports and an API server that does not answer', () => {
    let proc: ProgramProcess | undefined;
    let monitoring: number;

    before(async () => {
      const [m, z] = await freePorts(2);
      monitoring = m!;
      proc = startProgram('operator', ['server', `--orchconfig=${kubeconfig}`, '--monitoring-host=127.0.0.1', `--monitoring-port=${monitoring}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${z}`], envWithoutCluster());
      await waitForHttp(`http://127.0.0.1:${monitoring}/metrics`, proc);
    });

    after(async () => {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    });

    it('should serve mesh_build for the operator on the monitoring port', async () => {
      const r = await httpGet(`http://127.0.0.1:${monitoring}/metrics`);
      assert.match(r.body, /^mesh_build\{[^}]*component="operator"[^}]*\} 1$/m);
      for (const name of ['reconcile_request_total', 'cr_validation_error_total', 'get_cr_error_total', 'cr_deletion_total', 'resource_prune_total', 'render_manifest_total']) {
        assert.match(r.body, new RegExp(`^# TYPE ${name} counter$`, 'm'));
      }
      assert.match(r.body, /^# TYPE owned_resource_total gauge$/m);
    });

    it('should campaign for the Lease mesh-operator-lock in the namespace of the kubeconfig context, and not claim to be unbuilt', () => {
      assert.match(proc!.stdout(), /campaigning for leadership.*ops\/mesh-operator-lock/);
      assert.doesNotMatch(proc!.stdout(), /not implemented yet/);
    });

    it('given SIGINT should shut down and exit 0', async () => {
      proc!.child.kill('SIGINT');
      assert.equal(await proc!.exited, 0, proc!.stderr());
    });
  });

  it('given no cluster configured should exit 1 naming --orchconfig and KUBECONFIG', async () => {
    const [m, z] = await freePorts(2);
    const r = await runProgram('operator', ['server', '--monitoring-host=127.0.0.1', `--monitoring-port=${m}`, `--ctrlz_port=${z}`], envWithoutCluster());
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no cluster configured: pass --orchconfig, set KUBECONFIG/);
  });

  it('given MESH_WATCH_NAMESPACE with a bad namespace name should exit 1 naming the variable and the entry', async () => {
    const [m, z] = await freePorts(2);
    const r = await runProgram('operator', ['server', `--orchconfig=${kubeconfig}`, `--monitoring-port=${m}`, `--ctrlz_port=${z}`], envWithoutCluster({ MESH_WATCH_NAMESPACE: 'mesh-system,Bad_NS' }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /MESH_WATCH_NAMESPACE="mesh-system,Bad_NS": "Bad_NS" is not a namespace name/);
  });

  it('given the monitoring port in use should name the flag and exit 1', async () => {
    const busy = await occupyPort();
    try {
      const [z] = await freePorts(1);
      const r = await runProgram('operator', ['server', `--orchconfig=${kubeconfig}`, '--monitoring-host=127.0.0.1', `--monitoring-port=${busy.port}`, `--ctrlz_port=${z}`], envWithoutCluster());
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^Error: --monitoring-port 127\\.0\\.0\\.1:${busy.port}: address already in use`));
    } finally {
      await busy.close();
    }
  });

  it('given the ctrlz port in use should name the flag and exit 1', async () => {
    const busy = await occupyPort();
    try {
      const [m] = await freePorts(1);
      const r = await runProgram('operator', ['server', `--orchconfig=${kubeconfig}`, '--monitoring-host=127.0.0.1', `--monitoring-port=${m}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${busy.port}`], envWithoutCluster());
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^Error: --ctrlz_port .*address already in use/);
    } finally {
      await busy.close();
    }
  });
});
