/**
 * Chaos: a full disk and a read-only config dir under a real meshd process. The config dir is a tmpfs of its own
 * (real ENOSPC and EROFS from the kernel, so the test needs root to mount it); a real sidecar ADS client shows
 * that pushes go on. What must hold: meshd reads its config dir and never needs to write there (it starts and
 * serves from a read-only mount, and follows it once it is writable again); a save that the full disk tears
 * leaves the last good version served, the torn version rejected, named and counted; the event log of
 * `--record` on a full device (/dev/full: every write fails with ENOSPC) stops recording with one error line and
 * nothing else stops.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFileMeshd, type FileMeshd } from '../xds/testing/file-meshd.js';
import { httpGet } from '../cli/testing/program-process.js';
import { Tmpfs, tmpfsBlocker } from '../cli/testing/tmpfs.js';
import { TYPE_URL } from '../xds/index.js';
import { AdsClient } from '../xds/testing/index.js';
import { waitFor } from './harness/index.js';

const TMPFS_BYTES = 256 * 1024;
const NS = 'qs';
const HOST = `echo.${NS}.svc.cluster.local`;
const SE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: ${NS} }
spec:
  hosts: [${HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }]
  resolution: STATIC
  endpoints: [{ address: 10.9.0.1 }]
`;
/** A VirtualService whose header match carries `marker` (found verbatim in the route configuration's bytes). */
const VS = (marker: string, padding = 0): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: ${NS} }
spec:
  hosts: [${HOST}]
  http:
  - match: [{ headers: { x-edit: { exact: ${marker} } } }]
    route: [{ destination: { host: ${HOST} } }]
  - route: [{ destination: { host: ${HOST} } }]
${'#'.repeat(padding)}
`;

interface Rejected {
  readonly object: string;
  readonly location: string;
  readonly reason: string;
  readonly served: string | null;
}

// Skipped as a whole, the reason printed, where no tmpfs can be mounted (not root): ENOSPC and EROFS must come from
// the kernel.
describe('pilot-discovery discovery --configDir (process): a full disk and a read-only config dir (chaos)', function () {
  this.timeout(120_000);
  let fs: Tmpfs | undefined;
  let dir = '';
  let proc: FileMeshd | undefined;
  let client: AdsClient | undefined;
  let grpc = '';
  let http = '';
  let monitoring = '';

  const log = (): string => proc?.output() ?? '';
  /** The error lines meshd logged, but the event log's on the full disk and the rejection of the torn file. */
  const errorLines = (): string[] => log().split('\n').filter((l) => /\t(error|fatal)\t/.test(l) && !/event log write failed|config rejected: virtual-service\.yaml/.test(l));
  /** waitFor with meshd's output on a timeout. */
  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadlineMs = 20_000): Promise<T> {
    try {
      return await waitFor(what, probe, deadlineMs, 50);
    } catch (e) {
      throw new Error(`${(e as Error).message}; meshd output:\n${log().slice(-3000)}`, { cause: e });
    }
  }
  /** The route configuration bytes the sidecar client holds, as text. */
  const routes = (): string =>
    [...(client?.held(TYPE_URL.route).values() ?? [])].map((r) => Buffer.from(r.body).toString('latin1')).join('\n');
  const waitRouted = (marker: string): Promise<true> => until(`the sidecar to get marker ${marker}`, () => (routes().includes(marker) ? true : undefined));
  const rejectedz = async (): Promise<Rejected[]> => (JSON.parse((await httpGet(`http://${http}/debug/rejectedz`)).body) as { rejected: Rejected[] }).rejected;
  const rejectedTotal = async (): Promise<number> => {
    const text = (await httpGet(`http://${monitoring}/metrics`)).body;
    return [...text.matchAll(/^pilot_total_rejected_configs\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };

  before(async function () {
    const blocker = tmpfsBlocker();
    if (blocker) {
      console.log(`      skipped: ${blocker}`);
      this.skip(); // no tmpfs mount here (reason printed above): the kernel's ENOSPC and EROFS need a file system of the test's own
    }
    fs = new Tmpfs(TMPFS_BYTES, 'meshd-disk-chaos-');
    dir = fs.dir;
    writeFileSync(join(dir, 'service-entry.yaml'), SE);
    writeFileSync(join(dir, 'virtual-service.yaml'), VS('first'));
    fs!.remount('ro');
    // NOTE: the event log goes to /dev/full, where every write fails with ENOSPC.
    proc = await startFileMeshd({ configDir: dir, namespace: NS, env: { PILOT_DEBOUNCE_AFTER: '10ms' }, args: ['--record', '/dev/full'], readyTimeoutMs: 30_000 });
    grpc = `127.0.0.1:${proc.ports.grpc}`;
    http = `127.0.0.1:${proc.ports.http}`;
    monitoring = `127.0.0.1:${proc.ports.monitoring}`;
    client = new AdsClient({
      address: grpc,
      node: { id: `sidecar~10.9.0.9~app-1.${NS}~${NS}.svc.cluster.local`, metadata: { NAMESPACE: NS, LABELS: { app: 'app' } } },
      autoAck: true,
    });
    client.subscribe(TYPE_URL.cluster);
    client.subscribe(TYPE_URL.listener);
    client.subscribe(TYPE_URL.route, ['8080']);
  });

  after(async () => {
    client?.close();
    await proc?.stop('SIGKILL');
    fs?.dispose();
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): ENOSPC and EROFS must be the kernel's.
  it('given a read-only config dir should start, serve its files and log no error, and follow it once it is writable again', async () => {
    await waitRouted('first');
    assert.throws(() => writeFileSync(join(dir, 'probe.yaml'), ''), (e: NodeJS.ErrnoException) => e.code === 'EROFS', 'the mount is read-only');
    assert.deepEqual(errorLines(), [], 'no error logged but the event log\'s');
    fs!.remount('rw');
    writeFileSync(join(dir, 'virtual-service.yaml'), VS('second'));
    await waitRouted('second');
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): ENOSPC and EROFS must be the kernel's.
  it('given a full disk should keep serving the last good version of a file a save tore, reject the torn version by name and count it', async () => {
    const counted = await rejectedTotal();
    assert.ok(fs!.fill() > 0, 'the tmpfs filled up');
    // NOTE: an editor's atomic save fails whole (its temp file is hidden, never read) and changes nothing.
    assert.throws(() => writeFileSync(join(dir, '.virtual-service.yaml.swp'), VS('never', 64 * 1024)), (e: NodeJS.ErrnoException) => e.code === 'ENOSPC');
    // NOTE: an in-place save (truncate, then write) is torn where the space runs out: the page the truncation
    // freed holds the first 4 KiB of the new text, which here breaks off inside a long key under `spec`, so what
    // is left on disk makes `spec` a string.
    const torn = VS('third').replace('spec:\n', `spec:\n  ${'x'.repeat(8192)}: 1\n`);
    assert.throws(() => writeFileSync(join(dir, 'virtual-service.yaml'), torn), (e: NodeJS.ErrnoException) => e.code === 'ENOSPC');
    const entry = await until('the torn file in /debug/rejectedz', async () => (await rejectedz()).find((r) => r.location.startsWith('virtual-service.yaml')));
    assert.equal(entry.object, `VirtualService ${NS}/echo`);
    assert.equal(entry.location, 'virtual-service.yaml document 1');
    // NOTE: the torn value is quoted cut short, not as the 4 KiB on disk.
    assert.match(entry.reason, /^spec: must be of type object, got "x+\.\.\. \(a string of \d+ characters\)$/);
    assert.notEqual(entry.served, null, 'the last good version is still served');
    assert.equal(await rejectedTotal(), counted + 1, 'the torn version is counted once');
    assert.ok(routes().includes('second') && !routes().includes('third'), 'the sidecar keeps the last good routes');

    // NOTE: space freed, the same save goes through and replaces it.
    fs!.free();
    writeFileSync(join(dir, 'virtual-service.yaml'), VS('fourth'));
    await waitRouted('fourth');
    await until('the rejection to clear', async () => ((await rejectedz()).some((r) => r.location.startsWith('virtual-service.yaml')) ? undefined : true));
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): ENOSPC and EROFS must be the kernel's.
  it('given the event log on a full disk should log its failure once and stop recording, and nothing else', async () => {
    const failed = log().split('\n').filter((l) => /event log write failed/.test(l));
    assert.equal(failed.length, 1, `one line: ${failed.join('\n')}`);
    assert.match(failed[0]!, /ENOSPC/);
    assert.match(failed[0]!, /\/dev\/full/);
    assert.deepEqual(errorLines(), []);
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): ENOSPC and EROFS must be the kernel's.
  it('given the config dir remounted read-only while meshd runs should keep answering from the last config', async () => {
    fs!.remount('ro');
    const again = new AdsClient({ address: grpc, node: { id: `sidecar~10.9.0.8~app-2.${NS}~${NS}.svc.cluster.local`, metadata: { NAMESPACE: NS, LABELS: { app: 'app' } } }, autoAck: true });
    try {
      again.subscribe(TYPE_URL.route, ['8080']);
      await until('a new sidecar to get the last config', () =>
        [...again.held(TYPE_URL.route).values()].some((r) => Buffer.from(r.body).toString('latin1').includes('fourth')) ? true : undefined,
      );
    } finally {
      again.close();
      fs!.remount('rw');
    }
  });
});
