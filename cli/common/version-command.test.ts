import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { buildInfo } from '../../core/index.js';
import { bufferIo, runCli, type Command } from '../framework/index.js';
import { meshctlCommand } from '../meshctl/meshctl-command.js';
import { operatorCommand } from '../operator/operator-command.js';
import { pilotAgentCommand } from '../pilot-agent/pilot-agent-command.js';
import { pilotDiscoveryCommand } from '../pilot-discovery/pilot-discovery-command.js';

async function run(root: Command, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(root, argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('version', () => {
  const info = buildInfo();
  const daemons: [string, () => Command][] = [
    ['operator', operatorCommand],
    ['pilot-discovery', pilotDiscoveryCommand],
    ['pilot-agent', pilotAgentCommand],
  ];
  for (const [name, make] of daemons) {
    it(`given ${name} version should print the short version by default`, async () => {
      assert.deepEqual(await run(make(), ['version']), { code: 0, out: `${info.version}\n`, err: '' });
    });

    it(`given ${name} version --short=false should print the full build info`, async () => {
      const r = await run(make(), ['version', '--short=false']);
      assert.equal(r.code, 0);
      assert.equal(
        r.out,
        `version.BuildInfo{Version:"${info.version}", GitRevision:"${info.gitCommit}", NodeVersion:"${process.version}", BuildStatus:"${info.buildStatus}", GitTag:"${info.gitTag}"}\n`,
      );
    });

    it(`given ${name} version -o json should print the client version document`, async () => {
      const r = await run(make(), ['version', '-o', 'json']);
      assert.deepEqual(JSON.parse(r.out), {
        clientVersion: { version: info.version, revision: info.gitCommit, node_version: process.version, status: info.buildStatus, tag: info.gitTag },
      });
    });

    it(`given ${name} version -oyaml should print YAML`, async () => {
      const r = await run(make(), ['version', '-oyaml']);
      assert.equal((parseYaml(r.out) as { clientVersion: { node_version: string } }).clientVersion.node_version, process.version);
    });

    it(`given ${name} version -o xml should reject the format naming the flag`, async () => {
      const r = await run(make(), ['version', '-o', 'xml']);
      assert.equal(r.code, 1);
      assert.equal(r.err, `Error: --output must be 'yaml' or 'json', not "xml"\n`);
    });
  }

  it('given meshctl version --remote=false -s should print the short client version', async () => {
    assert.deepEqual(await run(meshctlCommand(), ['version', '--remote=false', '-s']), { code: 0, out: `client version: ${info.version}\n`, err: '' });
  });

  it('given meshctl version --remote=false should print the full client version', async () => {
    const r = await run(meshctlCommand(), ['version', '--remote=false']);
    assert.match(r.out, /^client version: version\.BuildInfo\{Version:"/);
  });

  it('given meshctl version with no reachable cluster should print the client version, say why on stderr, and exit 0', async () => {
    const r = await run(meshctlCommand(), ['version', '-s', '--orchconfig', '/nonexistent/kubeconfig']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `client version: ${info.version}\n`);
    assert.match(r.err, /^control plane: .*\/nonexistent\/kubeconfig/);
  });

  it('given meshctl bug-report version -o json should print the client version', async () => {
    const r = await run(meshctlCommand(), ['bug-report', 'version', '-o', 'json']);
    assert.equal((JSON.parse(r.out) as { clientVersion: { version: string } }).clientVersion.version, info.version);
  });
});
