import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildInfoError, buildInfo } from './version.js';

describe('buildInfo', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mesh-version-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const sources = (): { buildInfoPath: string; packageJsonPath: string } => ({
    buildInfoPath: join(dir, 'build-info.json'),
    packageJsonPath: join(dir, 'package.json'),
  });

  it('given a build file should report its fields and the node version', () => {
    writeFileSync(join(dir, 'build-info.json'), JSON.stringify({ version: '1.2.3', gitCommit: 'abc123', gitTag: 'v1.2.3', buildStatus: 'Clean' }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '0.0.1' }));
    assert.deepEqual(buildInfo(sources()), { version: '1.2.3', gitCommit: 'abc123', gitTag: 'v1.2.3', buildStatus: 'Clean', nodeVersion: process.version });
  });

  it('given no build file should fall back to the package version and unknown', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '0.0.1' }));
    assert.deepEqual(buildInfo(sources()), { version: '0.0.1', gitCommit: 'unknown', gitTag: 'unknown', buildStatus: 'unknown', nodeVersion: process.version });
  });

  it('given neither file should report unknown', () => assert.equal(buildInfo(sources()).version, 'unknown'));

  it('given a build file that is not JSON should throw naming it', () => {
    writeFileSync(join(dir, 'build-info.json'), '{oops');
    assert.throws(() => buildInfo(sources()), (err: unknown) => err instanceof BuildInfoError && err.message.includes('build-info.json'));
  });

  it('given the real layout should read the package version at least', () => {
    assert.match(buildInfo().version, /^\d+\.\d+\.\d+/);
  });
});
