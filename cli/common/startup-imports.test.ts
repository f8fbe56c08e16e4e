import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadedModules, packagesOf } from '../testing/loaded-modules.js';
import { freePorts, programEnv, REPO_ROOT, runProgram, startProgram, waitForHttp } from '../testing/program-process.js';
import type { ProgramName } from '../../core/index.js';

// NOTE: start-up cost is checked by what loads, not by timings (npm run bench:startup measures those):
// command trees declare every command but load a body only when it runs (lazyRun).
const HEAVY = ['@kubernetes/client-node', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs', 'rxjs', 'pino', 'prom-client', 'ajv', 'undici', 'yaml'];

describe('program start-up', function () {
  this.timeout(60_000);

  const cheap: readonly { program: ProgramName; args: string[]; allowed?: string[] }[] = [
    { program: 'meshctl', args: ['version', '--remote=false'] },
    { program: 'meshctl', args: ['--help'] },
    { program: 'meshctl', args: ['x', '--help'] },
    { program: 'pilot-discovery', args: ['--help'] },
    { program: 'pilot-discovery', args: ['version'] },
    { program: 'pilot-agent', args: ['--help'] },
    { program: 'operator', args: ['--help'] },
    // NOTE: validate needs the YAML parser and the mesh.io schemas; the precompiled validators spare it ajv.
    { program: 'meshctl', args: ['validate', '-f', 'examples/quickstart'], allowed: ['yaml'] },
    // NOTE: analyzing files reads YAML and runs the analyzers (core's model helpers bring rxjs, pino and
    // prom-client), but no orchestrator client: that loads only to read the cluster.
    { program: 'meshctl', args: ['analyze', '--use-orch=false', 'examples/quickstart/virtual-service.yaml'], allowed: ['yaml', 'rxjs', 'pino', 'prom-client'] },
  ];
  for (const c of cheap) {
    it(`given \`${c.program} ${c.args.join(' ')}\` should load none of ${HEAVY.filter((h) => !c.allowed?.includes(h)).join(', ')}`, async () => {
      const { urls } = await loadedModules(c.program, c.args);
      assert.ok(urls.some((u) => u.includes('/dist/cli/')), 'the recorder saw the program load');
      // NOTE: precompiled validators use ajv's small runtime helpers (ajv/dist/runtime/*), not ajv's compiler.
      const heavy = packagesOf(urls.filter((u) => !/\/node_modules\/ajv\/dist\/runtime\//.test(u))).filter((p) => HEAVY.includes(p) && !c.allowed?.includes(p));
      assert.deepEqual(heavy, [], `${c.program} ${c.args.join(' ')} loaded ${heavy.join(', ')}`);
    });
  }

  it('given `meshctl version --remote=false` should load none of the bodies of other commands (only the tree files)', async () => {
    const { urls } = await loadedModules('meshctl', ['version', '--remote=false']);
    const ours = urls.filter((u) => u.includes('/dist/') && !u.includes('/node_modules/')).map((u) => u.replace(/.*\/dist\//, ''));
    const bodies = ours.filter((u) => /^cli\/(meshctl|pilot-agent|pilot-discovery|operator)\/.*-run\.js$|^(analysis|controllers|xds|crds|webhooks|install|templates|inspect)\//.test(u));
    assert.deepEqual(bodies, []);
    assert.ok(!ours.includes('core/index.js'), 'core/index.js (model, metrics, logging) is not needed to print a version');
  });

  // NOTE: memory, not start-up: the client library's KubeConfig loads its whole generated API (about 90 MB of
  // RSS) and @grpc/proto-loader a second protobufjs (about 23 MB); meshd reads kubeconfigs itself and loads
  // the CA's proto with the protobufjs it already has.
  it('given `pilot-discovery discovery` serving, should load neither @kubernetes/client-node nor @grpc/proto-loader', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-loaded-'));
    const [grpcPort, http, monitoring, ctrlz] = await freePorts(4);
    const file = join(dir, 'modules.txt');
    const recorder = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'testing', 'module-recorder.js')).href;
    const proc = startProgram(
      'pilot-discovery',
      ['discovery', `--grpcAddr=127.0.0.1:${grpcPort}`, `--httpAddr=127.0.0.1:${http}`, `--monitoringAddr=127.0.0.1:${monitoring}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${ctrlz}`, '--secureGRPCAddr=127.0.0.1:0', '--httpsAddr=127.0.0.1:0'],
      programEnv({ MESH_LOADED_MODULES_FILE: file, NODE_OPTIONS: `--import=${recorder}` }),
    );
    try {
      await waitForHttp(`http://127.0.0.1:${http}/ready`, proc);
      proc.child.kill('SIGTERM');
      assert.equal(await proc.exited, 0, proc.stderr());
      const packages = packagesOf(readFileSync(file, 'utf8').split('\n'));
      assert.ok(packages.includes('@grpc/grpc-js'), 'the recorder saw meshd serve');
      assert.deepEqual(packages.filter((p) => p === '@kubernetes/client-node' || p === '@grpc/proto-loader'), []);
    } finally {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given NODE_COMPILE_CACHE unset should keep compiled modules under $HOME/.cache/mesh/compile-cache', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mesh-home-'));
    try {
      const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...env } = programEnv({ HOME: home });
      const r = await runProgram('meshctl', ['version', '--remote=false', '--short'], env);
      assert.equal(r.code, 0, r.stderr);
      const dir = join(home, '.cache', 'mesh', 'compile-cache');
      assert.ok(existsSync(dir), `${dir} was not created`);
      const entries = readdirSync(dir, { recursive: true });
      assert.ok(entries.length > 0, 'the compile cache is empty');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
