import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { complete, DIRECTIVE } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';

// dist/cli/meshctl/ -> the repository root, where bin/ holds the launchers.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const binDir = join(repo, 'bin');
const env = { ...process.env, PATH: [binDir, dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter), TERM: 'dumb' };

/** Runs `script` in a shell; returns stdout, failing the test on a non-zero exit. */
function shell(sh: string, args: string[], script: string): string {
  const r = spawnSync(sh, [...args, script], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${sh} failed: ${r.stderr}`);
  return r.stdout;
}

function which(sh: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (existsSync(join(dir, sh))) return join(dir, sh);
  }
  return ['/usr/bin', '/bin'].map((d) => join(d, sh)).find(existsSync);
}

describe('completion', () => {
  describe('complete()', () => {
    const root = meshctlCommand();
    const cases: { name: string; words: string[]; toComplete: string; want: string[]; directive?: number }[] = [
      { name: 'given a command prefix should offer the command', words: [], toComplete: 'prox', want: ['proxy-config', 'proxy-status'] },
      { name: 'given an alias should complete its subcommands', words: ['pc'], toComplete: 'c', want: ['cluster'] },
      { name: 'given a prefix only an alias matches should offer the alias', words: ['pc'], toComplete: 'ep', want: ['ep'] },
      { name: 'given -- should offer long flags including inherited ones', words: ['version'], toComplete: '--sh', want: ['--short'] },
      { name: 'given a named-level flag should offer its levels', words: ['analyze', '--failure-threshold'], toComplete: 'W', want: ['Warning'], directive: DIRECTIVE.noFileComp },
      { name: 'given an inline named-level value should offer its levels', words: ['analyze'], toComplete: '--output-threshold=E', want: ['Error'] },
      { name: 'given a command taking files should fall back to files', words: ['analyze'], toComplete: 'fo', want: [], directive: 0 },
      { name: 'given a root prefix should offer cobra\'s help command too', words: [], toComplete: 'h', want: ['help'] },
      { name: 'given help should complete command words', words: ['help', 'proxy-config'], toComplete: 'e', want: ['ecds', 'endpoint'] },
      { name: 'given a flag already given should not offer it again', words: ['version', '--short'], toComplete: '--s', want: [] },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const got = complete(root, c.words, c.toComplete);
        assert.deepEqual(got.candidates.map((x) => x.value), c.want);
        if (c.directive !== undefined) assert.equal(got.directive, c.directive);
      });
    }
  });

  describe('bash script', () => {
    /** Sources the script, fakes a completion request with COMP_WORDS/COMP_CWORD, prints COMPREPLY. */
    function bashComplete(words: string[], extraFlags = ''): string[] {
      const quoted = words.map((w) => `'${w}'`).join(' ');
      const out = shell('bash', ['-c'], `source <(meshctl completion bash ${extraFlags}) && COMP_WORDS=(${quoted}) && COMP_CWORD=${words.length - 1} && __meshctl_complete && printf '%s\\n' "\${COMPREPLY[@]}"`);
      return out.split('\n').filter((l) => l !== '');
    }

    it('given the script is sourced should register the completion function for meshctl', () => {
      assert.equal(shell('bash', ['-c'], 'source <(meshctl completion bash) && complete -p meshctl').trim(), 'complete -o default -F __meshctl_complete meshctl');
    });

    const cases: { name: string; words: string[]; want: string[] }[] = [
      { name: 'given a command prefix should complete the command', words: ['meshctl', 'proxy-c'], want: ['proxy-config'] },
      { name: 'given an alias then a prefix should complete the subcommand', words: ['meshctl', 'x', 'wa'], want: ['waypoint'] },
      { name: 'given a prefix only an alias matches should complete the alias', words: ['meshctl', 'pc', 'ep'], want: ['ep'] },
      { name: 'given a flag prefix should complete the flag', words: ['meshctl', 'bug-report', '--full'], want: ['--full-secrets'] },
      { name: 'given a flag split at = by bash should complete its value', words: ['meshctl', 'analyze', '--failure-threshold', '=', 'Warn'], want: ['Warning'] },
    ];
    for (const c of cases) it(c.name, () => assert.deepEqual(bashComplete(c.words), c.want));

    it('given several candidates should show descriptions', () => {
      const got = bashComplete(['meshctl', 'experimental', 'describe', '']);
      assert.deepEqual(got, ['pod  (Describe pods and their Mesh configuration)', 'service  (Describe services and their Mesh configuration)']);
    });

    it('given --no-descriptions should offer bare names', () => {
      assert.deepEqual(bashComplete(['meshctl', 'experimental', 'describe', ''], '--no-descriptions'), ['pod', 'service']);
    });

    it('given another program should complete its own commands', () => {
      const out = shell('bash', ['-c'], `source <(pilot-agent completion bash) && COMP_WORDS=(pilot-agent mesh-) && COMP_CWORD=1 && __pilot_agent_complete && printf '%s\\n' "\${COMPREPLY[@]}"`);
      assert.deepEqual(out.split('\n').filter(Boolean).map((l) => l.split('  (')[0]), ['mesh-clean-iptables', 'mesh-iptables']);
    });
  });

  describe('zsh script', function () {
    before(function () {
      if (!which('zsh')) this.skip(); // zsh is not installed on this machine (apt-get install zsh)
    });

    it('given the script is sourced after compinit should register _meshctl for meshctl', () => {
      const out = shell('zsh', ['-f', '-c'], 'autoload -U compinit && compinit -u -D && source <(meshctl completion zsh) && print -r -- $_comps[meshctl]');
      assert.equal(out.trim(), '_meshctl');
    });

    it('given words being completed should hand the candidates to _describe', () => {
      // _describe only works inside a real completion widget; stand in for it and print what it got.
      const out = shell('zsh', ['-f', '-c'], [
        'compdef() { :; }',
        'source <(meshctl completion zsh)',
        '_describe() { print -rl -- "${(@P)2}" }',
        'words=(meshctl pc c); CURRENT=3; _meshctl',
      ].join('\n'));
      assert.deepEqual(out.split('\n').filter(Boolean), ['cluster:Retrieves cluster configuration for the data-plane proxy in the specified pod']);
    });
  });

  describe('fish script', function () {
    before(function () {
      if (!which('fish')) this.skip(); // fish is not installed on this machine (apt-get install fish)
    });

    it('given a command line should complete commands and aliases through the script', () => {
      const out = shell('fish', ['--no-config', '-c'], 'meshctl completion fish | source; complete -C "meshctl proxy-config cl"; complete -C "meshctl pc ep"');
      assert.deepEqual(out.split('\n').filter(Boolean), ['cluster\tRetrieves cluster configuration for the data-plane proxy in the specified pod', 'ep\tRetrieves endpoint configuration for the data-plane proxy in the specified pod']);
    });
  });
});
