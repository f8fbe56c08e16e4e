/**
 * Runs testing/server-security-scenario.js in a child mocha with GRPC_XDS_EXPERIMENTAL_RBAC=true: grpc-js-xds
 * reads the flag once at module load, and this process may have loaded it already.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

describe('server security scenarios (child process with GRPC_XDS_EXPERIMENTAL_RBAC=true)', function () {
  this.timeout(300_000);
  it('given RBAC and mTLS configs should pass every scenario', async () => {
    const mocha = require.resolve('mocha/bin/mocha.js');
    const spec = fileURLToPath(new URL('../testing/server-security-scenario.js', import.meta.url));
    const child = spawn(process.execPath, [mocha, '--no-config', '--exit', '--reporter', 'dot', spec], {
      env: { ...process.env, GRPC_XDS_EXPERIMENTAL_RBAC: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `scenarios failed:\n${out}`);
  });
});
