import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { chartDir, loadChart, mergeValues, renderChart } from '../../install/index.js';
import type { GoMap } from '../../templates/index.js';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

async function generate(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), ['manifest', 'generate', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

const render = (chart: string, release: string, values: GoMap = {}): string =>
  renderChart(loadChart(chartDir(chart)), values, { name: release, namespace: 'mesh-system' }).text;

// NOTE: what manifests/profiles/default.yaml means for the base and meshd charts, written out by hand.
const DEFAULT_VALUES: GoMap = {
  defaultRevision: 'default',
  global: { meshNamespace: 'mesh-system', hub: 'docker.io/mesh', tag: '0.1.0' },
  gateways: { 'mesh-ingressgateway': {}, 'mesh-egressgateway': {} },
};
const withDefault = (v: GoMap): GoMap => mergeValues(DEFAULT_VALUES, v);

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { replicas?: number; type?: string };
}
const objects = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((o) => o !== null);

describe('meshctl manifest generate', function () {
  this.timeout(60_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'manifest-generate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given no flags should print base, meshd and the ingress gateway of the default profile', async () => {
    const r = await generate();
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, render('base', 'base', DEFAULT_VALUES) + render('meshd', 'meshd', DEFAULT_VALUES) + render('gateway', 'mesh-ingressgateway'));
    assert.ok(objects(r.out).some((o) => o.kind === 'Deployment' && o.metadata.name === 'meshd'));
    assert.ok(objects(r.out).some((o) => o.kind === 'Deployment' && o.metadata.name === 'mesh-ingressgateway'));
  });

  it('given --component pilot should print meshd only', async () => {
    const r = await generate('--component', 'pilot');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, render('meshd', 'meshd', DEFAULT_VALUES));
  });

  it('given --set profile=demo --component egressGateways should print the egress gateway with a ClusterIP Service', async () => {
    const r = await generate('--set', 'profile=demo', '--component', 'egressGateways');
    assert.equal(r.code, 0, r.err);
    const svc = objects(r.out).find((o) => o.kind === 'Service');
    assert.equal(svc?.metadata.name, 'mesh-egressgateway');
    assert.equal(svc?.spec?.type, 'ClusterIP');
    assert.equal(r.out, render('gateway', 'mesh-egressgateway', { service: { type: 'ClusterIP' }, autoscaling: { enabled: false }, resources: { requests: { cpu: '10m', memory: '40Mi' } } }));
  });

  it('given --set profile=empty should print nothing', async () => {
    const r = await generate('--set', 'profile=empty');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
  });

  it('given --set values.pilot.replicaCount=3 with autoscaling off should set the Deployment replicas', async () => {
    const r = await generate('--set', 'values.pilot.replicaCount=3', '-s', 'values.pilot.autoscaleEnabled=false', '--component', 'base,pilot');
    assert.equal(r.code, 0, r.err);
    const dep = objects(r.out).find((o) => o.kind === 'Deployment' && o.metadata.name === 'meshd');
    assert.equal(dep?.spec?.replicas, 3);
    const v = withDefault({ pilot: { replicaCount: 3, autoscaleEnabled: false } });
    assert.equal(r.out, render('base', 'base', v) + render('meshd', 'meshd', v));
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
    writeFileSync(f, 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nspec:\n  profile: minimal\n  revision: blue\n  meshConfig:\n    accessLogFile: /dev/stdout\n  values:\n    pilot:\n      replicaCount: 2\n');
    const r = await generate('-f', f, '--set', 'values.pilot.replicaCount=4', '--set', 'values.pilot.autoscaleEnabled=false');
    assert.equal(r.code, 0, r.err);
    const values = withDefault({ revision: 'blue', meshConfig: { accessLogFile: '/dev/stdout' }, pilot: { replicaCount: 4, autoscaleEnabled: false } });
    assert.equal(r.out, render('base', 'base', values) + render('meshd', 'meshd', values));
    assert.match(r.out, /accessLogFile: \/dev\/stdout/);
  });

  it('given -o DIR should write Istio\'s layout, one file per component', async () => {
    const out = join(dir, 'out');
    const r = await generate('-o', out, '--set', 'profile=demo');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    const all = await generate('--set', 'profile=demo');
    const files = ['Base/Base.yaml', 'Base/Pilot/Pilot.yaml', 'Base/Pilot/IngressGateways/IngressGateways.yaml', 'Base/Pilot/EgressGateways/EgressGateways.yaml'];
    assert.equal(files.map((f) => readFileSync(join(out, f), 'utf8')).join(''), all.out);
    assert.match(readFileSync(join(out, 'Base/Pilot/EgressGateways/EgressGateways.yaml'), 'utf8'), /name: mesh-egressgateway/);
  });

  it('given -d with a copy of the manifests (charts and profiles) should render from the copy', async () => {
    const copy = join(dir, 'manifests');
    cpSync(join(chartDir('base'), '../..'), copy, { recursive: true, dereference: true });
    writeFileSync(join(copy, 'profiles/default.yaml'), `${readFileSync(join(copy, 'profiles/default.yaml'), 'utf8')}  revision: fromcopy\n`);
    writeFileSync(join(copy, 'charts/gateway/values.yaml'), readFileSync(join(copy, 'charts/gateway/values.yaml'), 'utf8').replace(/^labels: \{\}$/m, 'labels:\n  copied: "yes"'));
    const r = await generate('-d', copy);
    assert.equal(r.code, 0, r.err);
    assert.ok(objects(r.out).some((o) => o.kind === 'Deployment' && o.metadata.name === 'meshd-fromcopy'));
    assert.match(r.out, /"copied": "yes"/);
  });

  it('given -d pointing at a folder without charts should fail naming it', async () => {
    const r = await generate('-d', join(dir, 'nope'));
    assert.equal(r.code, 1);
    assert.match(r.err, /--manifests .*nope: neither .*charts nor .* holds the charts/);
  });

  const bad: { name: string; args: string[]; err: RegExp }[] = [
    { name: 'a --set without =', args: ['--set', 'values.pilot.replicaCount'], err: /--set "values\.pilot\.replicaCount": expected key=value/ },
    { name: 'a --set with a bad index', args: ['--set', 'values.pilot[x]=1'], err: /--set "values\.pilot\[x\]=1": list index .* must be a non-negative integer/ },
    { name: 'a --set list value', args: ['--set', 'values.a={x,y}'], err: /--set "values\.a=\{x,y\}": list values \(\{a,b\}\) are not supported/ },
    { name: 'a --set on a field MeshOperator has not', args: ['--set', 'bogus=1'], err: /--set bogus=1: invalid MeshOperator: spec\.bogus: unknown field/ },
    { name: 'an unknown component', args: ['--component', 'nope'], err: /--component nope: unknown component/ },
    { name: 'an unknown profile', args: ['--set', 'profile=nope'], err: /profile "nope" does not exist/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should fail naming the flag and the problem`, async () => {
      const r = await generate(...c.args);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err, c.err);
    });
  }

  it('given --force and a schema error should warn and render', async () => {
    const r = await generate('--force', '--set', 'components.pilot.enabld=true', '--component', 'base');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /Warning: .*spec\.components\.pilot\.enabld: unknown field \(proceeding: --force\)/);
    assert.equal(r.out, render('base', 'base', DEFAULT_VALUES));
  });

  it('given --cluster-specific should say not implemented yet', async () => {
    const r = await generate('--cluster-specific');
    assert.notEqual(r.code, 0);
    assert.match(r.err, /not implemented yet: manifest generate --cluster-specific/);
  });
});
