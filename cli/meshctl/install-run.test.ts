import assert from 'node:assert/strict';
import { bufferIo, runCli } from '../framework/index.js';
import { formatPlan } from './install-run.js';
import { meshctlCommand } from './meshctl-command.js';

describe('formatPlan', () => {
  it('given creates, updates, deletes and unchanged objects, should list the changes with their fields and count each action', () => {
    const text = formatPlan([
      { action: 'create', object: 'ConfigMap mesh-system/mesh', component: 'Pilot', fields: [] },
      { action: 'update', object: 'Deployment mesh-system/meshd', component: 'Pilot', fields: ['metadata.labels', 'spec'] },
      { action: 'unchanged', object: 'ClusterRole meshd', component: 'Pilot', fields: [] },
      { action: 'delete', object: 'HorizontalPodAutoscaler mesh-system/meshd', component: 'Pilot', fields: [] },
    ]);
    assert.equal(
      text,
      [
        '  + ConfigMap mesh-system/mesh (Pilot)',
        '  ~ Deployment mesh-system/meshd (Pilot): metadata.labels, spec',
        '  - HorizontalPodAutoscaler mesh-system/meshd (Pilot)',
        '1 to create, 1 to update, 1 to delete, 1 unchanged.',
        '',
      ].join('\n'),
    );
  });
});

describe('meshctl install and uninstall input checks (before any cluster call)', () => {
  const cases = [
    { name: 'given uninstall without --revision, -f or --purge, should refuse naming the flags', args: ['uninstall', '-y'], err: /at least one of the --revision \(or --set revision=<revision>\), --filename or --purge flags must be set/ },
    { name: 'given install with an unknown MeshOperator field, should refuse naming the field', args: ['install', '-y', '--set', 'nosuch=1'], err: /not valid \(--force to proceed anyway\):\n  --set nosuch=1: invalid MeshOperator: spec\.nosuch: unknown field/ },
    { name: 'given tag set without --revision, should refuse naming the flag', args: ['tag', 'set', 'prod'], err: /--revision is required/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const io = bufferIo({ HOME: '/nonexistent' });
      const code = await runCli(meshctlCommand(), c.args, io);
      assert.equal(code, 1, io.err());
      assert.match(io.err(), c.err);
    });
  }
});
