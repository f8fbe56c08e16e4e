/**
 * The pilot-discovery launcher re-executes itself in place (same pid) with the start-up V8 flags meshd
 * wants (a bounded young generation, see bin/launch.js), unless the command line or NODE_OPTIONS sets them.
 * Read from the running process's /proc/<pid>/cmdline (Linux).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESHD_V8_FLAGS } from './v8-flags.js';

const LAUNCHER = fileURLToPath(new URL('../../../bin/pilot-discovery', import.meta.url));

/** Starts meshd on an empty config dir, waits until it logs (the program itself runs), returns its command line. */
async function cmdlineOf(env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-launcher-'));
  const args = [LAUNCHER, 'discovery', '--configDir', dir, '--registries', 'Mock', '--grpcAddr', '127.0.0.1:0', '--httpAddr', '127.0.0.1:0', '--monitoringAddr', '127.0.0.1:0', '--ctrlz_address', '127.0.0.1', '--ctrlz_port', '0'];
  const m = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  m.stdout.on('data', (d: Buffer) => (out += d.toString()));
  m.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      assert.equal(m.exitCode, null, `meshd exited: ${out}`);
      const file = `/proc/${m.pid}/cmdline`;
      // NOTE: output comes from meshd's main module, so the launcher has done whatever it does by then.
      if (out.includes('\tinfo\t') && existsSync(file)) return readFileSync(file, 'utf8').split('\0').filter((a) => a !== '');
      assert.ok(Date.now() < deadline, `meshd logged nothing: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    const exited = m.exitCode === null ? new Promise((r) => m.once('exit', r)) : undefined;
    m.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the pilot-discovery launcher (process)', function () {
  this.timeout(60_000);
  before(function () {
    if (process.platform !== 'linux') this.skip(); // not Linux: the test reads the child's flags from /proc/<pid>/cmdline
  });

  it('given no V8 flags should run meshd in the same process with MESHD_V8_FLAGS (a 16 MB semi-space)', async () => {
    const argv = await cmdlineOf({});
    assert.deepEqual(argv.slice(0, 2 + MESHD_V8_FLAGS.length), [process.execPath, ...MESHD_V8_FLAGS, LAUNCHER]);
  });

  it('given NODE_OPTIONS with its own semi-space should not add the flag', async () => {
    const argv = await cmdlineOf({ NODE_OPTIONS: '--max-semi-space-size=8' });
    assert.deepEqual(argv.slice(0, 2), [process.execPath, LAUNCHER]);
  });
});
