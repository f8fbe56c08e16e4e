import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorNamespaceOf, parseWatchNamespaces } from './operator-settings.js';

describe('operator settings', () => {
  const cases: { name: string; value: string | undefined; want: string[] }[] = [
    { name: 'given MESH_WATCH_NAMESPACE unset should watch every namespace', value: undefined, want: [] },
    { name: 'given it empty should watch every namespace', value: ' ', want: [] },
    { name: 'given one namespace should watch it', value: 'mesh-system', want: ['mesh-system'] },
    { name: 'given a comma-separated list with spaces and a repeat should watch each once', value: 'a, b,a', want: ['a', 'b'] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(parseWatchNamespaces(c.value), c.want));

  it('given a bad entry should name the variable and the entry', () => {
    assert.throws(() => parseWatchNamespaces('ok,Not_OK'), /^Error: MESH_WATCH_NAMESPACE="ok,Not_OK": "Not_OK" is not a namespace name/);
    assert.throws(() => parseWatchNamespaces('a,,b'), /"" is not a namespace name/);
  });

  it('given the service-account namespace file should use it, else the context namespace, else mesh-operator', () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-ns-'));
    try {
      const file = join(dir, 'namespace');
      assert.equal(operatorNamespaceOf('ctx-ns', file), 'ctx-ns');
      assert.equal(operatorNamespaceOf(undefined, file), 'mesh-operator');
      writeFileSync(file, 'pod-ns\n');
      assert.equal(operatorNamespaceOf('ctx-ns', file), 'pod-ns');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
