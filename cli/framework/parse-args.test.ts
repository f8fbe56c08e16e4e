import assert from 'node:assert/strict';
import { command, flag, FlagValues, parseFlags, resolveCommand, UsageError, type Command } from './index.js';

function tree(): Command {
  return command({
    name: 'prog',
    short: 'test program',
    persistentFlags: [flag.level('vklog', 0, 'verbosity'), flag.string('namespace', '', 'namespace', { short: 'n' })],
    commands: [
      command({
        name: 'run',
        aliases: ['r'],
        short: 'run it',
        args: { usage: '[<name>...]' },
        flags: [
          flag.string('output', '', 'format', { short: 'o' }),
          flag.bool('yes', false, 'assume yes', { short: 'y' }),
          flag.bool('verbose', false, 'chatty', { short: 'v' }),
          flag.bool('color', true, 'colour'),
          flag.int('count', 1, 'how many'),
          flag.int32('port32', 15000, 'port'),
          flag.uint16('port', 9876, 'port'),
          flag.uint32('big', 8383, 'port'),
          flag.float32('qps', 80, 'qps'),
          flag.duration('timeout', 30_000, 'timeout'),
          flag.stringSlice('registries', ['Orchestrator'], 'registries'),
          flag.stringArray('set', [], 'overrides', { short: 's' }),
          flag.stringToString('aliases', {}, 'aliases'),
          flag.level('threshold', 'Error', 'threshold', { levels: ['Info', 'Warning', 'Error'] }),
        ],
        run: () => 0,
      }),
    ],
  });
}

function parse(argv: string[]): { flags: FlagValues; args: readonly string[]; chain: readonly Command[] } {
  const { chain, rest } = resolveCommand(tree(), argv);
  const parsed = parseFlags(chain, rest);
  return { flags: parsed.flags, args: parsed.args, chain };
}

function usageError(argv: string[]): string {
  try {
    parse(argv);
  } catch (e) {
    assert.ok(e instanceof UsageError, `expected a UsageError, got ${String(e)}`);
    return e.message;
  }
  assert.fail(`expected ${argv.join(' ')} to be rejected`);
}

describe('parseFlags', () => {
  const good: { name: string; argv: string[]; check: (f: FlagValues, args: readonly string[]) => void }[] = [
    { name: 'given no flags should give the declared defaults', argv: ['run'], check: (f) => {
      assert.equal(f.string('output'), '');
      assert.equal(f.bool('color'), true);
      assert.equal(f.duration('timeout'), 30_000);
      assert.deepEqual(f.strings('registries'), ['Orchestrator']);
      assert.equal(f.level('threshold'), 'Error');
      assert.equal(f.changed('output'), false);
    } },
    { name: 'given --flag=value should set it', argv: ['run', '--output=json'], check: (f) => assert.equal(f.string('output'), 'json') },
    { name: 'given --flag value should set it', argv: ['run', '--output', 'yaml'], check: (f) => assert.equal(f.string('output'), 'yaml') },
    { name: 'given -o json should set the long flag', argv: ['run', '-o', 'json'], check: (f) => assert.equal(f.string('output'), 'json') },
    { name: 'given -ojson should set the long flag', argv: ['run', '-ojson'], check: (f) => assert.equal(f.string('output'), 'json') },
    { name: 'given -o=json should set the long flag', argv: ['run', '-o=json'], check: (f) => assert.equal(f.string('output'), 'json') },
    { name: 'given grouped bool shorthands should set each', argv: ['run', '-yv'], check: (f) => {
      assert.equal(f.bool('yes'), true);
      assert.equal(f.bool('verbose'), true);
    } },
    { name: 'given --bool should set true', argv: ['run', '--yes'], check: (f) => assert.equal(f.bool('yes'), true) },
    { name: 'given --bool=false should set false', argv: ['run', '--color=false'], check: (f) => assert.equal(f.bool('color'), false) },
    { name: 'given a bool followed by a word should not take the word as its value', argv: ['run', '--yes', 'false'], check: (f, args) => {
      assert.equal(f.bool('yes'), true);
      assert.deepEqual(args, ['false']);
    } },
    { name: 'given Go durations should parse them to milliseconds', argv: ['run', '--timeout', '1m30s'], check: (f) => assert.equal(f.duration('timeout'), 90_000) },
    { name: 'given a fractional duration should parse it', argv: ['run', '--timeout=1.5h'], check: (f) => assert.equal(f.duration('timeout'), 5_400_000) },
    { name: 'given a comma list should split a stringSlice', argv: ['run', '--registries', 'Orchestrator,Mock'], check: (f) => assert.deepEqual(f.strings('registries'), ['Orchestrator', 'Mock']) },
    { name: 'given a repeated stringSlice should replace the default then append', argv: ['run', '--registries=Mock', '--registries', 'A,B'], check: (f) => assert.deepEqual(f.strings('registries'), ['Mock', 'A', 'B']) },
    { name: 'given a repeated stringArray should keep commas inside items', argv: ['run', '-s', 'a=1,2', '--set', 'b=3'], check: (f) => assert.deepEqual(f.strings('set'), ['a=1,2', 'b=3']) },
    { name: 'given key=value pairs should fill a stringToString', argv: ['run', '--aliases', 'a=b,c=d', '--aliases=e=f'], check: (f) => assert.deepEqual(f.map('aliases'), { a: 'b', c: 'd', e: 'f' }) },
    { name: 'given a numeric level should parse it', argv: ['run', '--vklog=4'], check: (f) => assert.equal(f.level('vklog'), 4) },
    { name: 'given a named level in another case should store the declared spelling', argv: ['run', '--threshold', 'warning'], check: (f) => assert.equal(f.level('threshold'), 'Warning') },
    { name: 'given numbers should parse every numeric kind', argv: ['run', '--count=-3', '--port32', '15001', '--port', '65535', '--big', '4294967295', '--qps', '2.5'], check: (f) => {
      assert.equal(f.number('count'), -3);
      assert.equal(f.number('port32'), 15001);
      assert.equal(f.number('port'), 65535);
      assert.equal(f.number('big'), 4294967295);
      assert.equal(f.number('qps'), 2.5);
    } },
    { name: 'given -- should take the rest as arguments', argv: ['run', '--', '--output', 'x'], check: (f, args) => {
      assert.equal(f.string('output'), '');
      assert.deepEqual(args, ['--output', 'x']);
    } },
    { name: 'given a persistent flag before the subcommand should apply it', argv: ['-n', 'ns1', 'run', 'a'], check: (f, args) => {
      assert.equal(f.string('namespace'), 'ns1');
      assert.deepEqual(args, ['a']);
    } },
  ];
  for (const c of good) it(c.name, () => {
    const { flags, args } = parse(c.argv);
    c.check(flags, args);
  });

  const bad: { name: string; argv: string[]; message: RegExp }[] = [
    { name: 'given an unknown flag should name it', argv: ['run', '--nope'], message: /^unknown flag: --nope$/ },
    { name: 'given an unknown shorthand should name it', argv: ['run', '-z'], message: /^unknown shorthand flag: 'z' in -z$/ },
    { name: 'given a bad duration should name the flag and the value', argv: ['run', '--timeout=10'], message: /invalid argument "10" for "--timeout" flag: invalid duration/ },
    { name: 'given a duration without number should be rejected', argv: ['run', '--timeout', 'ms'], message: /"--timeout"/ },
    { name: 'given a pair without = should be rejected', argv: ['run', '--aliases', 'a=b,c'], message: /invalid argument "a=b,c" for "--aliases" flag: c must be formatted as key=value/ },
    { name: 'given a bad bool should be rejected', argv: ['run', '--color=maybe'], message: /invalid argument "maybe" for "--color" flag: not a bool/ },
    { name: 'given a uint16 out of range should be rejected', argv: ['run', '--port', '70000'], message: /"--port" flag: out of range for uint16/ },
    { name: 'given a negative uint32 should be rejected', argv: ['run', '--big=-1'], message: /"--big" flag: out of range for uint32/ },
    { name: 'given a non-number int should be rejected', argv: ['run', '--count', 'two'], message: /invalid argument "two" for "--count" flag/ },
    { name: 'given a non-number level should be rejected', argv: ['run', '--vklog=high'], message: /"--vklog" flag: not a level/ },
    { name: 'given an unknown named level should list the levels', argv: ['run', '--threshold', 'Fatal'], message: /use one of Info, Warning, Error/ },
    { name: 'given a value flag at the end should say it needs an argument', argv: ['run', '--output'], message: /^flag needs an argument: --output$/ },
  ];
  for (const c of bad) it(c.name, () => assert.match(usageError(c.argv), c.message));

  it('given an alias should resolve to the command', () => {
    assert.deepEqual(parse(['r']).chain.map((c) => c.name), ['prog', 'run']);
  });

  it('given a flag source should use it below the command line and above the default', () => {
    const { chain, rest } = resolveCommand(tree(), ['run', '--count=7']);
    const src = (name: string): { value: string; origin: string } | undefined =>
      ({ count: { value: '3', origin: 'test' }, output: { value: 'json', origin: 'test' } })[name];
    const f = parseFlags(chain, rest, [src]).flags;
    assert.equal(f.number('count'), 7);
    assert.equal(f.string('output'), 'json');
    assert.equal(f.changed('output'), false);
  });

  it('given a bad value from a flag source should name the source and the flag', () => {
    const { chain, rest } = resolveCommand(tree(), ['run']);
    assert.throws(() => parseFlags(chain, rest, [(n) => (n === 'port' ? { value: 'x', origin: 'MESHCONFIG /tmp/c.yaml' } : undefined)]), /MESHCONFIG \/tmp\/c.yaml: invalid argument "x" for "--port" flag/);
  });
});
