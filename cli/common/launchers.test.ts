import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../testing/program-process.js';

describe('bin/ launchers', () => {
  it('given a checkout that was not built should say to run npm run build and exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-unbuilt-'));
    try {
      cpSync(join(REPO_ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
      cpSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
      const failure = await promisify(execFile)(process.execPath, [join(dir, 'bin', 'pilot-agent'), '--help']).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      assert.ok(failure, 'the launcher should fail without dist/');
      assert.equal(failure.code, 1);
      assert.match(failure.stderr, /pilot-agent is not built yet: run `npm run build` in the repository first/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // NOTE: machines here ship an older Node on PATH (/usr/bin/node); without one older than package.json's
  // engines, there is nothing to run the launcher with.
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((n) => {
    const v = spawnSync(n, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
    return v !== undefined && v !== '' && Number(v.split('.')[0]) < 22;
  });
  it('given a Node.js older than package.json engines should name the version needed and how to get it, and exit 1', async function () {
    if (!oldNode) this.skip(); // no Node older than 22 on this machine
    for (const program of ['pilot-discovery', 'meshctl', 'pilot-agent', 'operator']) {
      const failure: { code: number; stderr: string } | undefined = await promisify(execFile)(oldNode!, [join(REPO_ROOT, 'bin', program), '--help']).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      assert.ok(failure, `${program} should refuse an old Node.js`);
      assert.equal(failure.code, 1);
      assert.match(failure.stderr, new RegExp(`^${program} needs Node\\.js 22\\.19 or newer \\(24 LTS recommended\\); this is Node\\.js 2[01]\\.`));
      assert.match(failure.stderr, /source hack\/node-env\.sh/);
    }
  });
});
