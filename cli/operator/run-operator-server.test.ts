import assert from 'node:assert/strict';
import { freePorts, httpGet, occupyPort, runProgram, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

describe('operator server (process)', function () {
  this.timeout(60_000);

  describe('given free loopback ports', () => {
    let proc: ProgramProcess | undefined;
    let monitoring: number;

    before(async () => {
      const [m, z] = await freePorts(2);
      monitoring = m!;
      proc = startProgram('operator', ['server', '--monitoring-host=127.0.0.1', `--monitoring-port=${monitoring}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${z}`]);
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
      assert.match(r.body, /^# TYPE reconcile_request_total counter$/m);
    });

    it('should log that reconciliation is not built yet', () => {
      assert.match(proc!.stdout(), /not implemented yet/);
    });

    it('given SIGINT should shut down and exit 0', async () => {
      proc!.child.kill('SIGINT');
      assert.equal(await proc!.exited, 0, proc!.stderr());
    });
  });

  it('given the monitoring port in use should name the flag and exit 1', async () => {
    const busy = await occupyPort();
    try {
      const [z] = await freePorts(1);
      const r = await runProgram('operator', ['server', '--monitoring-host=127.0.0.1', `--monitoring-port=${busy.port}`, `--ctrlz_port=${z}`]);
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
      const r = await runProgram('operator', ['server', '--monitoring-host=127.0.0.1', `--monitoring-port=${m}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${busy.port}`]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^Error: --ctrlz_port .*address already in use/);
    } finally {
      await busy.close();
    }
  });
});
