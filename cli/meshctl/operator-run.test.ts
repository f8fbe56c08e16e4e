import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

async function meshctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('meshctl operator', () => {
  it('given dump should print the operator manifest as YAML documents', async () => {
    const r = await meshctl('operator', 'dump', '--watchedNamespaces', 'a,b');
    assert.equal(r.code, 0, r.err);
    const docs = parseAllDocuments(r.out).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
    assert.deepEqual(docs.map((d) => d.kind), ['Namespace', 'CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service']);
    assert.match(r.out, /name: MESH_WATCH_NAMESPACE\n\s+value: a,b/);
  });

  it('given dump -o json should print a List of the same objects', async () => {
    const r = await meshctl('operator', 'dump', '-o', 'json', '--revision', 'canary');
    assert.equal(r.code, 0, r.err);
    const list = parse(r.out) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    assert.equal(list.kind, 'List');
    assert.equal(list.items.find((i) => i.kind === 'Deployment')?.metadata.name, 'mesh-operator-canary');
  });

  const refusals: { name: string; argv: string[]; err: RegExp }[] = [
    { name: 'given dump -o table should refuse naming the flag', argv: ['operator', 'dump', '-o', 'table'], err: /--output table: must be one of json\|yaml/ },
    { name: 'given dump --manifests should say it is not built', argv: ['operator', 'dump', '--manifests', '/tmp'], err: /not implemented yet: --manifests for meshctl operator/ },
    { name: 'given remove without --revision or --purge should refuse', argv: ['operator', 'remove', '-y'], err: /at least one of the --revision or --purge flags must be set/ },
  ];
  for (const c of refusals) {
    it(c.name, async () => {
      const r = await meshctl(...c.argv);
      assert.equal(r.code, 1);
      assert.match(r.err, c.err);
    });
  }

  it('given init -f with an invalid MeshOperator should name the file and the field before contacting a cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-init-'));
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'apiVersion: install.mesh.io/v1alpha1\nkind: MeshOperator\nmetadata:\n  name: x\nspec:\n  revision: Bad_Rev\n');
      const r = await meshctl('operator', 'init', '-f', file, '--orchconfig', join(dir, 'no-such-kubeconfig'));
      assert.equal(r.code, 1);
      assert.match(r.err, new RegExp(`-f ${file.replace(/[/.]/g, '\\$&')}: invalid MeshOperator: spec\\.revision: `));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
