import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

async function meshctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('meshctl profile list|dump|diff', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'profile-cmd-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('given list, should print the six profiles as istioctl does', async () => {
    const r = await meshctl('profile', 'list');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'Mesh configuration profiles:\n    default\n    demo\n    empty\n    minimal\n    preview\n    remote\n');
  });

  it('given dump demo, should print the default profile with demo merged over it as a MeshOperator', async () => {
    const r = await meshctl('profile', 'dump', 'demo');
    assert.equal(r.code, 0, r.err);
    const op = parse(r.out) as { apiVersion: string; kind: string; spec: { profile: string; values: { defaultRevision: string; pilot: { autoscaleEnabled: boolean } }; components: { egressGateways: { enabled: boolean }[] } } };
    assert.equal(op.apiVersion, 'install.mesh.io/v1alpha1');
    assert.equal(op.kind, 'MeshOperator');
    assert.equal(op.spec.profile, 'demo');
    assert.equal(op.spec.values.defaultRevision, 'default', 'from the default profile');
    assert.equal(op.spec.values.pilot.autoscaleEnabled, false, 'from demo');
    assert.equal(op.spec.components.egressGateways[0]?.enabled, true);
  });

  it('given dump with -f, --config-path and -o json, should print that subtree of the merged MeshOperator', async () => {
    const f = join(dir, 'op.yaml');
    writeFileSync(f, 'kind: MeshOperator\nspec:\n  profile: minimal\n  values:\n    global:\n      logAsJson: true\n');
    const r = await meshctl('profile', 'dump', '-f', f, '-p', 'values.global', '-o', 'json');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), { meshNamespace: 'mesh-system', logAsJson: true });
  });

  it('given dump -o flags, should print --set lines that, over the empty profile, generate the same manifests', async () => {
    const r = await meshctl('profile', 'dump', 'demo', '-o', 'flags');
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.includes('--set components.ingressGateways[0].k8s.service.ports[1].targetPort=8080\n'), r.out);
    const sets = r.out.trim().split('\n').map((l) => l.replace(/^--set /, ''));
    const again = await meshctl('manifest', 'generate', '--set', 'profile=empty', ...sets.flatMap((s) => ['--set', s]));
    const direct = await meshctl('manifest', 'generate', '--set', 'profile=demo');
    assert.equal(again.err, '');
    assert.equal(again.out, direct.out);
  });

  it('given diff default minimal, should print the changed line and exit 1; given default remote, identical and exit 0', async () => {
    const d = await meshctl('profile', 'diff', 'default', 'minimal');
    assert.equal(d.code, 1);
    assert.match(d.out, /^The difference between profiles:\n/);
    assert.match(d.out, /\n- {9}enabled: true\n\+ {9}enabled: false\n/);
    const same = await meshctl('profile', 'diff', 'default', 'remote');
    assert.equal(same.code, 0, same.err);
    assert.equal(same.out, 'Profiles are identical\n');
  });

  const bad: { name: string; args: string[]; err: RegExp }[] = [
    { name: 'dump of an unknown profile', args: ['profile', 'dump', 'nope'], err: /profile "nope" does not exist/ },
    { name: 'a config path that is not there', args: ['profile', 'dump', '-p', 'components.nope'], err: /--config-path components\.nope: no such path/ },
    { name: 'an unknown output format', args: ['profile', 'dump', '-o', 'xml'], err: /--output xml: must be one of json\|yaml\|flags/ },
  ];
  for (const c of bad) {
    it(`given ${c.name}, should fail naming it`, async () => {
      const r = await meshctl(...c.args);
      assert.equal(r.code, 1);
      assert.match(r.err, c.err);
    });
  }
});
