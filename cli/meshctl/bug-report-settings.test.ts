import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

describe('meshctl bug-report --filename', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'bug-report-settings-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: { name: string; text: string; error: RegExp }[] = [
    { name: 'given an unknown key should name it and the known ones', text: 'meshNamespaces: x\n', error: /--filename .*: unknown key meshNamespaces \(known: context, criticalErrs, dir, dryRun, duration, / },
    { name: 'given a list where a string belongs should name the key', text: 'startTime: [a]\n', error: /--filename .*: startTime must be a string, not \["a"\]/ },
    { name: 'given a bad duration should name the key', text: 'timeout: soon\n', error: /--filename .*: timeout must be a duration like 30m or 1h, not "soon"/ },
    { name: 'given a string where a list belongs should name the key', text: 'include: default\n', error: /--filename .*: include must be a list of strings, not "default"/ },
    { name: 'given a list at the top should say a mapping is needed', text: '- a\n', error: /--filename .*: the file must hold a mapping of settings/ },
    { name: 'given broken YAML should say where', text: 'a: [\n', error: /--filename .*: .*line/i },
    { name: 'given duration and startTime in the file should refuse them as the flags are', text: 'duration: 1h\nstartTime: "2026-01-01T00:00:00Z"\n', error: /--duration and --start-time are mutually exclusive/ },
    { name: 'given a bad include spec in the file should name it', text: 'include: ["///app"]\n', error: /--include "\/\/\/app": label "app" is not <key>=<value>/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, c.text);
      const io = bufferIo({ HOME: dir });
      assert.equal(await runCli(meshctlCommand(), ['bug-report', '--filename', file], io), 1);
      assert.match(io.err(), c.error);
    });
  }
});
