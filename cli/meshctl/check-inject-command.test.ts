import assert from 'node:assert/strict';
import { bufferIo, CliError, runCli } from '../framework/index.js';
import { parseLabelList } from './check-inject-command.js';
import { meshctlCommand } from './meshctl-command.js';

describe('meshctl x check-inject', () => {
  it('given k=v pairs should parse them, and name a pair without =', () => {
    assert.deepEqual(parseLabelList('app=web, mesh.io/rev=canary,'), { app: 'web', 'mesh.io/rev': 'canary' });
    assert.throws(() => parseLabelList('app'), (e: unknown) => e instanceof CliError && /--labels: "app" is not key=value/.test(e.message));
  });

  it('given no cluster should say how to configure one', async () => {
    const io = bufferIo({ HOME: '/nonexistent' });
    assert.equal(await runCli(meshctlCommand(), ['x', 'check-inject', 'web.app'], io), 1);
    assert.match(io.err(), /checking injection: no cluster configured \(give --orchconfig, set KUBECONFIG, or create ~\/.kube\/config\)/);
  });
});
