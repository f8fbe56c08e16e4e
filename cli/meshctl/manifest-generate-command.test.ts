import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { chartDir, loadChart, renderChart } from '../../install/index.js';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

async function generate(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), ['manifest', 'generate', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

const render = (chart: string, release: string, values = {}): string =>
  renderChart(loadChart(chartDir(chart)), values, { name: release, namespace: 'mesh-system' }).text;

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { replicas?: number };
}
const objects = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((o) => o !== null);

describe('meshctl manifest generate', function () {
  this.timeout(60_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'manifest-generate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given no flags should print base then meshd as the renderer renders them with default values', async () => {
    const r = await generate();
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, render('base', 'base') + render('meshd', 'meshd'));
    assert.ok(objects(r.out).some((o) => o.kind === 'Deployment' && o.metadata.name === 'meshd'));
  });

  it('given --component pilot should print meshd only', async () => {
    const r = await generate('--component', 'pilot');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, render('meshd', 'meshd'));
  });

  it('given --set values.pilot.replicaCount=3 with autoscaling off should set the Deployment replicas', async () => {
    const r = await generate('--set', 'values.pilot.replicaCount=3', '-s', 'values.pilot.autoscaleEnabled=false');
    assert.equal(r.code, 0, r.err);
    const dep = objects(r.out).find((o) => o.kind === 'Deployment' && o.metadata.name === 'meshd');
    assert.equal(dep?.spec?.replicas, 3);
    assert.equal(r.out, render('base', 'base', { pilot: { replicaCount: 3, autoscaleEnabled: false } }) + render('meshd', 'meshd', { pilot: { replicaCount: 3, autoscaleEnabled: false } }));
  });

  it('given -r canary should name the revisioned objects with the revision', async () => {
    const r = await generate('-r', 'canary');
    assert.equal(r.code, 0, r.err);
    const names = objects(r.out).map((o) => `${o.kind}/${o.metadata.name}`);
    for (const want of ['Deployment/meshd-canary', 'Service/meshd-canary', 'ConfigMap/mesh-canary', 'ConfigMap/mesh-sidecar-injector-canary']) {
      assert.ok(names.includes(want), `${want} missing from ${names.join(', ')}`);
    }
    assert.ok(!names.includes('Deployment/meshd'));
  });

  it('given a MeshOperator file with values, meshConfig and revision should render them, and --set on top', async () => {
    const f = join(dir, 'op.yaml');
    writeFileSync(f, 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nspec:\n  revision: blue\n  meshConfig:\n    accessLogFile: /dev/stdout\n  values:\n    pilot:\n      replicaCount: 2\n');
    const r = await generate('-f', f, '--set', 'values.pilot.replicaCount=4', '--set', 'values.pilot.autoscaleEnabled=false');
    assert.equal(r.code, 0, r.err);
    const values = { revision: 'blue', meshConfig: { accessLogFile: '/dev/stdout' }, pilot: { replicaCount: 4, autoscaleEnabled: false } };
    assert.equal(r.out, render('base', 'base', values) + render('meshd', 'meshd', values));
    assert.match(r.out, /accessLogFile: \/dev\/stdout/);
  });

  it('given -o DIR should write one file per component', async () => {
    const out = join(dir, 'out');
    const r = await generate('-o', out);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    assert.equal(readFileSync(join(out, 'base.yaml'), 'utf8'), render('base', 'base'));
    assert.equal(readFileSync(join(out, 'meshd.yaml'), 'utf8'), render('meshd', 'meshd'));
  });

  const bad: { name: string; args: string[]; err: RegExp }[] = [
    { name: 'a --set without =', args: ['--set', 'values.pilot.replicaCount'], err: /--set "values\.pilot\.replicaCount": expected key=value/ },
    { name: 'a --set with a bad index', args: ['--set', 'values.pilot[x]=1'], err: /--set "values\.pilot\[x\]=1": list index .* must be a non-negative integer/ },
    { name: 'a --set list value', args: ['--set', 'values.a={x,y}'], err: /--set "values\.a=\{x,y\}": list values \(\{a,b\}\) are not supported/ },
    { name: 'a --set on a field MeshOperator has not', args: ['--set', 'bogus=1'], err: /cannot map MeshOperator field spec\.bogus/ },
    { name: 'an unknown component', args: ['--component', 'nope'], err: /--component nope: unknown component/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should fail naming the flag and the problem`, async () => {
      const r = await generate(...c.args);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err, c.err);
    });
  }

  const unbuilt: { name: string; args: string[]; err: RegExp }[] = [
    { name: 'profile demo', args: ['--set', 'profile=demo'], err: /not implemented yet: manifest generate: profile demo/ },
    { name: 'profile minimal from a file', args: ['-f', 'PROFILE_FILE'], err: /not implemented yet: manifest generate: profile minimal/ },
    { name: 'the gateway component', args: ['--component', 'ingressGateways'], err: /not implemented yet: manifest generate --component ingressGateways/ },
    { name: '--cluster-specific', args: ['--cluster-specific'], err: /not implemented yet: manifest generate --cluster-specific/ },
  ];
  for (const c of unbuilt) {
    it(`given ${c.name} should say not implemented yet`, async () => {
      const f = join(dir, 'minimal.yaml');
      writeFileSync(f, 'kind: MeshOperator\nspec:\n  profile: minimal\n');
      const r = await generate(...c.args.map((a) => (a === 'PROFILE_FILE' ? f : a)));
      assert.notEqual(r.code, 0);
      assert.equal(r.out, '');
      assert.match(r.err, c.err);
    });
  }
});
