import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, httpGet, programEnv, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

const SE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
`;
const VS = (a: number, b: number): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo }
spec:
  hosts: [echo.qs.svc.cluster.local]
  http:
  - route:
    - destination: { host: echo.qs.svc.cluster.local, subset: v1 }
      weight: ${a}
    - destination: { host: echo.qs.svc.cluster.local, subset: v2 }
      weight: ${b}
`;

interface Rejected {
  readonly object: string;
  readonly location: string;
  readonly reason: string;
  readonly since: string;
  readonly served: string | null;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, proc: ProgramProcess, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; meshd output:\n${(proc.stdout() + proc.stderr()).slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('pilot-discovery discovery --configDir (process): files that used to kill or hang meshd', function () {
  this.timeout(90_000);
  let dir: string;
  let proc: ProgramProcess | undefined;
  let http: string;

  const rejectedz = async (): Promise<Rejected[]> => (JSON.parse((await httpGet(`http://${http}/debug/rejectedz`)).body) as { rejected: Rejected[] }).rejected;
  const rejectedTotal = async (): Promise<number> => {
    const text = (await httpGet(`http://${monitoring}/metrics`)).body;
    return [...text.matchAll(/^pilot_total_rejected_configs\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const servedWeights = async (): Promise<string> => {
    const configs = JSON.parse((await httpGet(`http://${http}/debug/configz`)).body) as { kind: string; spec: { http?: { route: { weight: number }[] }[] } }[];
    const vs = configs.find((c) => c.kind === 'VirtualService');
    return vs?.spec.http?.[0]?.route.map((r) => r.weight).join('/') ?? 'none';
  };
  let monitoring: string;
  let ctrlz: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meshd-attacks-'));
    writeFileSync(join(dir, 'service-entry.yaml'), SE);
    writeFileSync(join(dir, 'virtual-service.yaml'), VS(30, 80));
    writeFileSync(join(dir, 'alias.yaml'), 'a: *nope');
    let lol = 'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (const [i, n] of [...'bcdefghi'].entries()) lol += `${n}: &${n} [${Array(9).fill(`*${'abcdefghi'[i]!}`).join(', ')}]\n`;
    writeFileSync(join(dir, 'laughs.yaml'), lol);
    writeFileSync(join(dir, 'dup.yaml'), `spec:\n${'  k: 1\n'.repeat(1000)}`);
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    const [g, h, m, z] = await freePorts(4);
    http = `127.0.0.1:${h}`;
    monitoring = `127.0.0.1:${m}`;
    ctrlz = `127.0.0.1:${z}`;
    proc = startProgram(
      'pilot-discovery',
      ['discovery', '--configDir', dir, '--registries', 'Mock', '--namespace', 'qs', `--grpcAddr=127.0.0.1:${g}`, `--httpAddr=${http}`, `--monitoringAddr=${monitoring}`, '--ctrlz_address=127.0.0.1', `--ctrlz_port=${z}`, '--log_output_level=default:info'],
      programEnv({ ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: '10ms' }),
    );
    await waitForHttp(`http://${http}/ready`, proc, 30_000);
  });

  after(async () => {
    if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('given an unresolved alias, billion laughs, duplicate keys, a FIFO and a device at start-up should become ready and list each as one rejected file', async () => {
    const byLocation = new Map((await rejectedz()).map((r) => [r.location, r]));
    assert.deepEqual([...byLocation.keys()].sort(), ['alias.yaml document 1', 'dup.yaml document 1', 'fifo.yaml', 'laughs.yaml document 1', 'zero.yaml']);
    assert.match(byLocation.get('alias.yaml document 1')!.reason, /Unresolved alias .*nope/);
    assert.match(byLocation.get('laughs.yaml document 1')!.reason, /aliases expand to too many nodes/);
    assert.match(byLocation.get('dup.yaml document 1')!.reason, /duplicate key "k" \(line 3\)/);
    assert.match(byLocation.get('fifo.yaml')!.reason, /^a FIFO, not a regular file: not read$/);
    assert.match(byLocation.get('zero.yaml')!.reason, /^a character device, not a regular file: not read$/);
    // NOTE: the valid files are served, their weights as given (relative).
    await until('weights 30/80 served', async () => ((await servedWeights()) === '30/80' ? true : undefined), proc!);
    assert.equal(await rejectedTotal(), 5);
    const index = JSON.parse((await httpGet(`http://${http}/debug/list`)).body) as string[];
    assert.ok(index.includes('/debug/rejectedz'));
  });

  it('given the monitoring port should serve the debug interface, /version and the /debug index there too, as on --httpAddr', async () => {
    for (const base of [`http://${monitoring}`, `http://${http}`]) {
      const syncz = await httpGet(`${base}/debug/syncz`);
      assert.equal(syncz.status, 200, `${base}/debug/syncz: ${syncz.body}`);
      assert.ok(Array.isArray(JSON.parse(syncz.body)), syncz.body);
      const rejected = JSON.parse((await httpGet(`${base}/debug/rejectedz`)).body) as { rejected: unknown[] };
      assert.equal(rejected.rejected.length, (await rejectedz()).length);
      assert.match(JSON.parse((await httpGet(`${base}/version`)).body).version as string, /^\d+\.\d+\.\d+/);
      for (const path of ['/debug', '/debug/']) {
        const index = await httpGet(`${base}${path}`);
        assert.equal(index.status, 200);
        assert.match(index.body, /^\/debug\/syncz +Synchronization status of all Envoys connected to this Pilot instance$/m);
        assert.match(index.body, /^\/debug\/config_dump +ConfigDump/m);
        assert.match(index.body, /^\/debug\/rejectedz +/m);
      }
      const list = JSON.parse((await httpGet(`${base}/debug/list`)).body) as string[];
      assert.deepEqual(list, [...list].sort());
      assert.ok(list.includes('/debug/syncz') && list.includes('/debug/list') && !list.includes('/debug/'), list.join(' '));
    }
    assert.match((await httpGet(`http://${monitoring}/metrics`)).body, /^# HELP /m, 'the monitoring port still serves metrics');
    assert.equal((await httpGet(`http://${monitoring}/no-such-path`)).status, 404);
  });

  it("given meshd's ctrlz should serve the topic pages and set a scope's levels through /scopej/", async () => {
    const argz = await httpGet(`http://${ctrlz}/argz/`);
    assert.equal(argz.status, 200);
    assert.match(argz.body, /<td>--configDir<\/td>/);
    assert.match((await httpGet(`http://${ctrlz}/scopez/`)).body, /<select data-scope="ads" data-field="output_level">/);
    const put = await fetch(`http://${ctrlz}/scopej/ads`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"output_level":"debug","stack_trace_level":"error"}' });
    assert.equal(put.status, 202, await put.clone().text());
    const ads = (JSON.parse((await httpGet(`http://${ctrlz}/scopej/`)).body) as { name: string; output_level: string; stack_trace_level: string }[]).find((s) => s.name === 'ads');
    assert.deepEqual([ads?.output_level, ads?.stack_trace_level], ['debug', 'error']);
    await (await fetch(`http://${ctrlz}/scopej/ads`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"output_level":"info","stack_trace_level":"none"}' })).text();
  });

  it('given unrelated edits should not count the same bad files again; given a rejected edit should keep serving the last good version and say so', async () => {
    for (const [a, b] of [[40, 60], [50, 50], [60, 40]] as const) {
      writeFileSync(join(dir, 'virtual-service.yaml'), VS(a, b));
      await until(`weights ${a}/${b} served`, async () => ((await servedWeights()) === `${a}/${b}` ? true : undefined), proc!);
    }
    assert.equal(await rejectedTotal(), 5);
    writeFileSync(join(dir, 'virtual-service.yaml'), VS(0, 0));
    const entry = await until('the rejected edit in /debug/rejectedz', async () => (await rejectedz()).find((r) => r.location === 'virtual-service.yaml document 1'), proc!);
    assert.equal(entry.object, 'VirtualService qs/echo');
    assert.equal(entry.reason, 'spec.http[0].route: total destination weight = 0');
    assert.match(entry.served ?? '', /^virtual-service\.yaml document 1 \(version [0-9a-f]{16}\)$/);
    assert.equal(await servedWeights(), '60/40', 'the last good version stays served');
    assert.equal(await rejectedTotal(), 6);
    const log = proc!.stdout() + proc!.stderr();
    assert.match(log, /config rejected: virtual-service\.yaml: document 1 \(VirtualService qs\/echo\).*still serving the last valid version/);
    assert.match(log, /configs accepted/);
    writeFileSync(join(dir, 'virtual-service.yaml'), VS(20, 80));
    await until('the fixed version', async () => ((await servedWeights()) === '20/80' ? true : undefined), proc!);
    await until('the recovery log line', async () => (/config recovered/.test(proc!.stdout() + proc!.stderr()) ? true : undefined), proc!);
    assert.equal((await rejectedz()).length, 5);
  });
});
