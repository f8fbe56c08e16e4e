import assert from 'node:assert/strict';
import { bufferIo, command, CommandDefinitionError, flag, flagSetOf, notImplemented, runCli, type Command } from './index.js';

function tree(): Command {
  return command({
    name: 'prog',
    short: 'A test program.',
    persistentFlags: [flag.string('context', '', 'config context'), flag.string('namespace', '', 'namespace', { short: 'n' })],
    commands: [
      command({
        name: 'get',
        aliases: ['g'],
        short: 'Gets a thing',
        args: { usage: '<name>', min: 1, max: 1 },
        flags: [
          flag.duration('timeout', 30_000, 'How long to wait'),
          flag.stringSlice('include', [], 'What to include'),
          flag.stringArray('log_target', ['stdout'], 'Where to log'),
          flag.string('selector', 'app=meshd', 'Label selector', { short: 'l' }),
          flag.duration('forever', 9223372036854.775807, 'Max age'),
        ],
        run: (ctx) => {
          ctx.io.stdout.write(`got ${ctx.args[0]} in ${ctx.flags.string('namespace') || 'default'}\n`);
        },
      }),
      command({
        name: 'group',
        short: 'A parent',
        persistentFlags: [flag.string('context', 'inner', 'shadowing context')],
        commands: [command({ name: 'leaf', short: 'A leaf', run: () => notImplemented('prog group leaf') })],
      }),
      command({ name: 'old', short: 'Old one', deprecated: 'use get', run: () => 0 }),
      command({ name: 'secret', short: 'Hidden one', hidden: true, run: () => 0 }),
    ],
  });
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(tree(), argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('runCli', () => {
  it('given a command should run it with its args and inherited flags', async () => {
    const r = await run(['-n', 'ns1', 'get', 'x']);
    assert.deepEqual(r, { code: 0, out: 'got x in ns1\n', err: '' });
  });

  it('given an unknown flag should print the error naming it, then the usage, and exit 1', async () => {
    const r = await run(['get', 'x', '--nope']);
    assert.equal(r.code, 1);
    assert.match(r.err, /^Error: unknown flag: --nope\nUsage:\n {2}prog get <name> \[flags\]\n/);
    assert.equal(r.out, '');
  });

  it('given a bad value should print the error naming the flag and exit 1', async () => {
    const r = await run(['get', 'x', '--timeout', 'soon']);
    assert.equal(r.code, 1);
    assert.match(r.err, /^Error: invalid argument "soon" for "--timeout" flag/);
  });

  it('given an unknown command should name it, suggest, and exit 1', async () => {
    const r = await run(['gte']);
    assert.equal(r.code, 1);
    assert.match(r.err, /^Error: unknown command "gte" for "prog"\n\nDid you mean this\?\n\tget\n/);
  });

  it('given too few args should say so', async () => {
    const r = await run(['get']);
    assert.equal(r.code, 1);
    assert.match(r.err, /^Error: requires at least 1 arg\(s\), only received 0/);
  });

  it('given a command not built should print "not implemented yet" with the full command and exit 1', async () => {
    const r = await run(['group', 'leaf']);
    assert.equal(r.code, 1);
    assert.equal(r.err, 'not implemented yet: prog group leaf\n');
  });

  it('given a deprecated command should warn and run', async () => {
    const r = await run(['old']);
    assert.equal(r.code, 0);
    assert.equal(r.err, 'Command "old" is deprecated, use get\n');
  });

  it('given a parent without args should print its help', async () => {
    const r = await run(['group']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^A parent\n\nUsage:\n {2}prog group \[command\]\n/);
  });

  it('given --help should print cobra-style help with aliases, flags, global flags and defaults', async () => {
    const r = await run(['g', '--help']);
    assert.equal(r.code, 0);
    assert.equal(
      r.out,
      [
        'Gets a thing',
        '',
        'Usage:',
        '  prog get <name> [flags]',
        '',
        'Aliases:',
        '  get, g',
        '',
        'Flags:',
        '      --forever duration         Max age (default 2562047h47m16.854775807s)',
        '  -h, --help                     help for get',
        '      --include strings          What to include',
        '      --log_target stringArray   Where to log (default [stdout])',
        '  -l, --selector string          Label selector (default "app=meshd")',
        '      --timeout duration         How long to wait (default 30s)',
        '',
        'Global Flags:',
        '      --context string     config context',
        '  -n, --namespace string   namespace',
        '',
      ].join('\n'),
    );
  });

  it('given the root --help should list available commands sorted, with help, without hidden or deprecated ones', async () => {
    const r = await run(['--help']);
    assert.match(r.out, /Available Commands:\n {2}get {9}Gets a thing\n {2}group {7}A parent\n {2}help {8}Help about any command\n\n/);
    assert.doesNotMatch(r.out, /secret|old/);
  });

  it('given help <command> should print that command\'s help', async () => {
    const r = await run(['help', 'get']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^Gets a thing\n/);
  });

  it('given a local persistent flag with an inherited name should shadow it in help and values', async () => {
    const r = await run(['group', 'leaf', '--help']);
    assert.match(r.out, /Global Flags:\n {6}--context string +shadowing context \(default "inner"\)\n {2}-n, --namespace string/);
    assert.equal((r.out.match(/--context/g) ?? []).length, 1);
  });

  it('given two flags with one shorthand should refuse the tree', () => {
    assert.throws(
      () => command({ name: 'x', short: 'x', flags: [flag.bool('a', false, 'a', { short: 'q' }), flag.bool('b', false, 'b', { short: 'q' })] }),
      CommandDefinitionError,
    );
    const parent = command({ name: 'p', short: 'p', persistentFlags: [flag.bool('a', false, 'a', { short: 'q' })] });
    const child = command({ name: 'c', short: 'c', flags: [flag.bool('b', false, 'b', { short: 'q' })] });
    assert.throws(() => flagSetOf([parent, child]), /-q used by/);
  });
});
