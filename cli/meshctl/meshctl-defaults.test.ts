import assert from 'node:assert/strict';
import { loadEnv } from '../../core/index.js';
import { bufferIo, command, flag, runCli, CliError } from '../framework/index.js';
import { meshctlDefaults, meshConfigPath, readMeshConfig } from './meshctl-defaults.js';
import { meshctlCommand } from './meshctl-command.js';

/** A command with the flags the configuration can set, printing their values. */
function probe(): ReturnType<typeof command> {
  return command({
    name: 'meshctl',
    short: 'probe',
    persistentFlags: [flag.string('meshNamespace', 'mesh-system', 'ns', { short: 'i' })],
    commands: [
      command({
        name: 'show',
        short: 'show',
        flags: [flag.string('xds-address', '', 'addr'), flag.int('xds-port', 15012, 'port'), flag.bool('insecure', false, 'insecure'), flag.string('cert-dir', '', 'dir')],
        run: (ctx) => {
          const f = ctx.flags;
          ctx.io.stdout.write(`${f.string('meshNamespace')} ${f.string('xds-address')} ${f.number('xds-port')} ${f.bool('insecure')} ${f.string('cert-dir')}\n`);
        },
      }),
    ],
  });
}

const CONFIG = 'meshNamespace: from-file\nxds-address: file.example:1\nxds-port: 1111\ninsecure: true\ncert-dir: /file/certs\n';

async function show(env: Record<string, string>, argv: string[] = [], file: string | null = CONFIG): Promise<{ code: number; out: string; err: string }> {
  const read = (p: string): string => {
    assert.equal(p, '/home/u/.meshctl/config.yaml');
    if (file === null) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    return file;
  };
  const io = bufferIo(env, meshctlDefaults(loadEnv('meshctl', env), '/home/u', read));
  const code = await runCli(probe(), ['show', ...argv], io);
  return { code, out: io.out(), err: io.err() };
}

describe('meshctl flag defaults (MESHCTL_* and MESHCONFIG)', () => {
  const cases: { name: string; env: Record<string, string>; argv?: string[]; file?: string | null; want: string }[] = [
    { name: 'given no file and no variables should use the declared defaults', env: {}, file: null, want: 'mesh-system  15012 false \n' },
    { name: 'given a MESHCONFIG file should take its values', env: {}, want: 'from-file file.example:1 1111 true /file/certs\n' },
    {
      name: 'given MESHCTL_* variables should prefer them to the file',
      env: { MESHCTL_MESHNAMESPACE: 'from-env', MESHCTL_XDS_ADDRESS: 'env.example:2', MESHCTL_XDS_PORT: '2222', MESHCTL_INSECURE: 'false', MESHCTL_CERT_DIR: '/env/certs' },
      want: 'from-env env.example:2 2222 false /env/certs\n',
    },
    {
      name: 'given explicit flags should prefer them to variables and the file',
      env: { MESHCTL_MESHNAMESPACE: 'from-env', MESHCTL_XDS_PORT: '2222' },
      argv: ['-i', 'from-flag', '--xds-port=3333', '--insecure=false'],
      want: 'from-flag file.example:1 3333 false /file/certs\n',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await show(c.env, c.argv, c.file === undefined ? CONFIG : c.file);
      assert.deepEqual(r, { code: 0, out: c.want, err: '' });
    });
  }

  it('given a bad value in the file should name the file and the flag', async () => {
    const r = await show({}, [], 'xds-port: lots\n');
    assert.equal(r.code, 1);
    assert.match(r.err, /^Error: MESHCONFIG \/home\/u\/\.meshctl\/config\.yaml: invalid argument "lots" for "--xds-port" flag/);
  });

  it('given a bad MESHCTL_XDS_PORT should fail when loading the environment', () => {
    assert.throws(() => loadEnv('meshctl', { MESHCTL_XDS_PORT: 'x' }), /MESHCTL_XDS_PORT="x"/);
  });

  it('given a file that is not a map should name the file', () => {
    assert.throws(() => readMeshConfig('/c.yaml', () => '- a\n- b\n'), (e: unknown) => e instanceof CliError && /MESHCONFIG \/c\.yaml: must be a map/.test(e.message));
  });

  it('given MESHCONFIG should read that path, expanding $HOME', () => {
    assert.equal(meshConfigPath(loadEnv('meshctl', { MESHCONFIG: '$HOME/other.yaml' }), '/home/u'), '/home/u/other.yaml');
  });

  it('given experimental config list should show each value and where it came from', async () => {
    const env = { MESHCTL_XDS_PORT: '2222' };
    const io = bufferIo(env, meshctlDefaults(loadEnv('meshctl', env), '/home/u', () => 'meshNamespace: from-file\n'));
    assert.equal(await runCli(meshctlCommand(), ['x', 'config', 'list'], io), 0);
    const lines = io.out().split('\n');
    assert.match(lines[0]!, /^FLAG +VALUE +FROM$/);
    assert.ok(lines.some((l) => /^meshNamespace +from-file +MESHCONFIG \/home\/u\/\.meshctl\/config\.yaml$/.test(l)), io.out());
    assert.ok(lines.some((l) => /^xds-port +2222 +\$MESHCTL_XDS_PORT$/.test(l)), io.out());
    assert.ok(lines.some((l) => /^insecure +false +default$/.test(l)), io.out());
  });
});

describe('meshctl', () => {
  it('given options should print the global flags', async () => {
    const io = bufferIo();
    assert.equal(await runCli(meshctlCommand(), ['options'], io), 0);
    assert.match(io.out(), /^The following options can be passed to any command:\n\n/);
    assert.match(io.out(), /-i, --meshNamespace string +Mesh system namespace \(default "mesh-system"\)/);
  });

  const notBuilt = [['x', 'waypoint', 'list'], ['create-remote-secret']];
  for (const argv of notBuilt) {
    it(`given meshctl ${argv.join(' ')} should say it is not built yet, naming the full command, and exit 1`, async () => {
      const io = bufferIo();
      assert.equal(await runCli(meshctlCommand(), argv, io), 1);
      assert.match(io.err(), /^(Command "proxy" is deprecated[^\n]*\n)?not implemented yet: meshctl \S/);
    });
  }

  it('given an alias should name the real command in the message', async () => {
    const io = bufferIo();
    await runCli(meshctlCommand(), ['x', 'waypoint', 'list'], io);
    assert.equal(io.err(), 'not implemented yet: meshctl experimental waypoint list\n');
  });
});
