import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
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
});
