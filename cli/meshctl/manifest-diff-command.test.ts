import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

async function diff(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), ['manifest', 'diff', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

const deploy = (name: string, replicas: number, ns = 'mesh-system'): string =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  replicas: ${replicas}\n`;
const cm = (name: string, v: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: mesh-system\n  name: ${name}\ndata:\n  k: ${v}\n`;

describe('meshctl manifest diff', () => {
  let dir = '';
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'manifest-diff-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given the same objects in another order and key order, should say identical and exit 0', async () => {
    const a = file('a1.yaml', `${deploy('meshd', 1)}---\n${cm('mesh', 'x')}`);
    const b = file('b1.yaml', `${cm('mesh', 'x').replace('  namespace: mesh-system\n  name: mesh\n', '  name: mesh\n  namespace: mesh-system\n')}---\n${deploy('meshd', 1)}`);
    const r = await diff(a, b);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'Manifests are identical\n');
  });

  it('given a changed field and objects on one side only, should print each object\'s diff and exit 1', async () => {
    const a = file('a2.yaml', `${deploy('meshd', 1)}---\n${cm('only-a', 'x')}`);
    const b = file('b2.yaml', `${deploy('meshd', 3)}---\n${cm('only-b', 'y')}`);
    const r = await diff(a, b);
    assert.equal(r.code, 1);
    assert.match(r.out, /^Differences in manifests are:\n/);
    assert.match(r.out, /Object Deployment:mesh-system:meshd has diffs:\n\n[\s\S]*- {3}replicas: 1\n\+ {3}replicas: 3\n/);
    assert.match(r.out, /Object ConfigMap:mesh-system:only-a is missing in B:/);
    assert.match(r.out, /Object ConfigMap:mesh-system:only-b is missing in A:/);
  });

  it('given --select, --ignore and --rename, should compare only what they leave, under the new names', async () => {
    const a = file('a3.yaml', `${deploy('meshd-old', 1)}---\n${cm('mesh', 'x')}---\n${cm('noise', 'a')}`);
    const b = file('b3.yaml', `${deploy('meshd', 1)}---\n${cm('mesh', 'changed')}---\n${cm('noise', 'b')}`);
    const renamed = await diff(a, b, '--rename', 'Deployment:*:meshd-old->Deployment:*:meshd', '--select', 'Deployment:*:*');
    assert.equal(renamed.code, 1, 'the object body still carries the old name');
    assert.doesNotMatch(renamed.out, /missing/);
    assert.match(renamed.out, /Object Deployment:mesh-system:meshd has diffs:[\s\S]*- {3}name: meshd-old\n\+ {3}name: meshd\n/);
    assert.doesNotMatch(renamed.out, /ConfigMap/);
    const ignored = await diff(a, b, '--select', 'ConfigMap::', '--ignore', 'ConfigMap:mesh-system:noise');
    assert.equal(ignored.code, 1);
    assert.match(ignored.out, /Object ConfigMap:mesh-system:mesh has diffs/);
    assert.doesNotMatch(ignored.out, /noise/);
    const none = await diff(a, b, '--select', 'ConfigMap:*:noi*', '--ignore', 'ConfigMap::noise');
    assert.equal(none.out, 'Manifests are identical\n');
  });

  it('given -r with two directories, should compare every YAML file under them', async () => {
    for (const [d, replicas] of [['da', 1], ['db', 2]] as const) {
      mkdirSync(join(dir, d, 'Base/Pilot'), { recursive: true });
      writeFileSync(join(dir, d, 'Base/Base.yaml'), cm('mesh', 'x'));
      writeFileSync(join(dir, d, 'Base/Pilot/Pilot.yaml'), deploy('meshd', replicas));
    }
    const r = await diff('-r', join(dir, 'da'), join(dir, 'db'));
    assert.equal(r.code, 1);
    assert.match(r.out, /Object Deployment:mesh-system:meshd has diffs/);
    assert.doesNotMatch(r.out, /ConfigMap/);
  });

  const bad: { name: string; args: () => string[]; err: RegExp }[] = [
    { name: 'a directory without -r', args: () => [dir, dir], err: /is a directory \(use -r to compare directories\)/ },
    { name: 'a missing file', args: () => [join(dir, 'nope.yaml'), join(dir, 'nope.yaml')], err: /manifest diff: .*nope\.yaml: ENOENT/ },
    { name: 'a document without kind', args: () => [file('bad.yaml', 'metadata:\n  name: x\n'), file('ok.yaml', cm('a', 'b'))], err: /manifest diff: .*bad\.yaml: document 1 has no kind or metadata\.name/ },
    { name: 'a bad select item', args: () => [file('s1.yaml', cm('a', 'b')), file('s2.yaml', cm('a', 'b')), '--select', 'Deployment'], err: /--select "Deployment": expected Kind:Namespace:Name/ },
  ];
  for (const c of bad) {
    it(`given ${c.name}, should fail naming it`, async () => {
      const r = await diff(...c.args());
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err, c.err);
    });
  }
});
