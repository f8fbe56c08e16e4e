import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock/index.js';
import { DEFAULT_LOG_OPTIONS, createLogging } from './create-logging.js';
import { RotatingFile } from './rotating-file.js';
import { SCOPES } from './scopes.js';

describe('RotatingFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mesh-rotate-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given --log_rotate with a tiny size should rotate and keep at most maxBackups backups', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22));
    const path = join(dir, 'mesh.log');
    const rotate = { path, maxAgeDays: 0, maxBackups: 2, maxSizeMB: 1 };
    const logging = createLogging({ ...DEFAULT_LOG_OPTIONS, targets: [], rotate }, SCOPES.operator, { clock, rotateMaxSizeBytes: 100 });
    for (let i = 0; i < 10; i++) {
      clock.advanceSync(1000);
      logging.root.info({ i }, 'a line of about sixty bytes');
    }
    logging.close();
    const files = readdirSync(dir).sort();
    assert.equal(files.length, 3, `files: ${files.join(' ')}`);
    assert.ok(files.every((f) => /^mesh(-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3})?\.log$/.test(f)), files.join(' '));
    for (const f of files) assert.ok(readFileSync(join(dir, f)).length <= 100, `${f} is over the size`);
    assert.match(readFileSync(path, 'utf8'), /i=9/);
  });

  it('given backups older than maxAgeDays should remove them at the next rotation', () => {
    const path = join(dir, 'a.log');
    writeFileSync(join(dir, 'a-2026-01-01T00-00-00.000.log'), 'old\n');
    writeFileSync(join(dir, 'a-2026-11-21T00-00-00.000.log'), 'recent\n');
    writeFileSync(join(dir, 'other.log'), 'not a backup\n');
    const file = new RotatingFile(path, { maxSizeBytes: 10, maxAgeDays: 30, maxBackups: 0 }, () => Date.UTC(2026, 10, 22));
    file.write('0123456789');
    file.write('next');
    file.close();
    assert.deepEqual(readdirSync(dir).sort(), ['a-2026-11-21T00-00-00.000.log', 'a-2026-11-22T00-00-00.000.log', 'a.log', 'other.log']);
    assert.equal(readFileSync(path, 'utf8'), 'next');
  });

  it('given two rotations in the same millisecond should keep both backups', () => {
    const file = new RotatingFile(join(dir, 'b.log'), { maxSizeBytes: 1, maxAgeDays: 0, maxBackups: 0 }, () => 0);
    for (const t of ['x', 'y', 'z']) file.write(t);
    file.close();
    assert.equal(file.backups().length, 2);
  });
});
