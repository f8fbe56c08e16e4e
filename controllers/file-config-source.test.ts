import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { ModelInput } from '../core/index.js';
import { fileConfigSource, scanConfigDir, type RejectedConfig } from './file-config-source.js';
import { RejectedConfigs } from './rejected-configs.js';

const SE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
`;
const VS = (weight: number): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  http:
  - route:
    - destination: { host: echo.qs.svc.cluster.local, subset: v1 }
      weight: ${weight}
    - destination: { host: echo.qs.svc.cluster.local, subset: v2 }
      weight: ${100 - weight}
`;
/** Weights 0/0: the one total Istio refuses (no destination would get traffic). */
const VS_ZERO = VS(0).replace('weight: 100', 'weight: 0');
const BILLION_LAUGHS = ((): string => {
  let s = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  let prev = 'a';
  for (const n of 'bcdefghi') {
    s += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
    prev = n;
  }
  return s;
})();
const BAD_DR = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: broken, namespace: qs }
spec:
  host: echo.qs.svc.cluster.local
  trafficPolicy: { loadBalancer: { simple: FASTEST } }
`;

async function until(cond: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('file config source', () => {
  let dir: string;
  let sub: Subscription | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-configdir-'));
  });
  afterEach(() => {
    sub?.unsubscribe();
    sub = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('given a multi-document file with one bad document should keep the others and name file, document, kind/name and field', async () => {
    writeFileSync(join(dir, 'all.yaml'), `${SE}---\n${BAD_DR}---\n${VS(80)}`);
    const res = await scanConfigDir({ dir, defaultNamespace: 'qs' });
    assert.deepEqual([...res.configs.keys()].sort(), ['ServiceEntry/qs/echo', 'VirtualService/qs/echo']);
    assert.equal(res.rejected.length, 1);
    const r = res.rejected[0]!;
    assert.equal(r.file, 'all.yaml');
    assert.equal(r.document, 2);
    assert.equal(r.kind, 'DestinationRule');
    assert.equal(r.name, 'qs/broken');
    assert.match(r.message, /^all\.yaml: document 2 \(DestinationRule qs\/broken\): spec\.trafficPolicy\.loadBalancer\.simple/);
  });

  it('given YAML 1.1 booleans should read an unquoted on where a bool is expected as true (as istiod), and refuse one where a string is expected naming file, document, object and field', async () => {
    const dr = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: tls }
spec:
  host: echo.qs.svc.cluster.local
  trafficPolicy: { tls: { mode: SIMPLE, insecureSkipVerify: on } }
`;
    writeFileSync(join(dir, 'all.yaml'), `${dr}---\n${SE.replace('hosts: [echo.qs.svc.cluster.local]', 'hosts: [echo.qs.svc.cluster.local]\n  workloadSelector: { labels: { canary: no } }')}`);
    const res = await scanConfigDir({ dir, defaultNamespace: 'qs' });
    assert.deepEqual((res.configs.get('DestinationRule/qs/tls')?.spec as { trafficPolicy?: { tls?: { insecureSkipVerify?: unknown } } } | undefined)?.trafficPolicy?.tls?.insecureSkipVerify, true);
    assert.deepEqual(res.rejected.map((r) => r.message), ['all.yaml: document 2 (ServiceEntry qs/echo): spec.workloadSelector.labels.canary: must be of type string, got false (unquoted yes/no/on/off/y/n/true/false are booleans in YAML: quote the value)']);
  });

  it('given a document without a namespace should put it in the default namespace', async () => {
    writeFileSync(join(dir, 'se.yml'), SE);
    assert.equal((await scanConfigDir({ dir, defaultNamespace: 'team-a' })).configs.get('ServiceEntry/team-a/echo')?.metadata.namespace, 'team-a');
  });

  it('given YAML that does not parse should reject that document only', async () => {
    writeFileSync(join(dir, 'a.yaml'), SE);
    writeFileSync(join(dir, 'b.yaml'), 'kind: [unclosed');
    const res = await scanConfigDir({ dir, defaultNamespace: 'qs' });
    assert.equal(res.configs.size, 1);
    assert.match(res.rejected[0]!.message, /^b\.yaml: document 1 \(unknown unknown\): YAML: /);
  });

  it('given a watched dir should emit the first scan, then an update when a file changes, then a delete', async () => {
    writeFileSync(join(dir, 'se.yaml'), SE);
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 200, onRejected: (r) => rejected.push(r) }).subscribe((b) =>
      batches.push(b),
    );
    await until(() => batches.length >= 1, 'the first scan');
    assert.equal(batches.length, 1);
    assert.deepEqual(
      batches[0]!.map((i) => (i.kind === 'config' ? `${i.event.type} ${i.event.key.kind}` : i.kind)),
      ['added ServiceEntry', 'added VirtualService'],
    );
    writeFileSync(join(dir, 'vs.yaml'), VS(20));
    await until(() => batches.length >= 2, 'the update');
    const upd = batches[1]![0]!;
    assert.ok(upd.kind === 'config' && upd.event.type === 'updated' && upd.event.key.kind === 'VirtualService');
    writeFileSync(join(dir, 'vs.yaml'), BAD_DR);
    await until(() => batches.length >= 3 && rejected.length >= 1, 'the delete and the rejection');
    const del = batches[2]![0]!;
    assert.ok(del.kind === 'config' && del.event.type === 'deleted' && del.event.key.kind === 'VirtualService');
    assert.equal(rejected[0]!.kind, 'DestinationRule');
  });

  /** The weights of the VirtualService in the last batch that updated or added it. */
  const lastWeight = (batches: readonly (readonly ModelInput[])[]): number | undefined => {
    for (let i = batches.length - 1; i >= 0; i--) {
      for (const input of batches[i]!) {
        if (input.kind !== 'config' || input.event.type === 'deleted' || input.event.key.kind !== 'VirtualService') continue;
        const http = (input.event.object?.spec as { http?: { route?: { weight?: number }[] }[] }).http;
        return http?.[0]?.route?.[0]?.weight;
      }
    }
    return undefined;
  };

  it('given a file replaced by rename (an atomic editor save) should pick up each save without waiting for the rescan', async () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'vs.yaml'), VS(80));
    const batches: (readonly ModelInput[])[] = [];
    // NOTE: the periodic rescan is off, so only the watchers can report the saves.
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0 }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    assert.equal(lastWeight(batches), 80);
    for (const weight of [30, 60, 10]) {
      const tmp = join(dir, 'nested', '.vs.yaml.tmp');
      writeFileSync(tmp, VS(weight));
      renameSync(tmp, join(dir, 'nested', 'vs.yaml'));
      await until(() => lastWeight(batches) === weight, `the rename-save with weight ${weight}`);
    }
  });

  it('given a subdirectory created after the start should watch it too', async () => {
    const batches: (readonly ModelInput[])[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0 }).subscribe((b) => batches.push(b));
    mkdirSync(join(dir, 'later'));
    writeFileSync(join(dir, 'later', 'vs.yaml'), VS(70));
    await until(() => lastWeight(batches) === 70, 'the file in the new directory');
    writeFileSync(join(dir, 'later', 'vs.yaml'), VS(40));
    await until(() => lastWeight(batches) === 40, 'the edit in the new directory');
    rmSync(join(dir, 'later'), { recursive: true });
    await until(() => batches.some((b) => b.some((i) => i.kind === 'config' && i.event.type === 'deleted')), 'the delete of the removed directory');
  });

  it('given a key defined in two files should take the first in file order, reject the repeat, and fall back to it when the first goes away', async () => {
    writeFileSync(join(dir, 'a.yaml'), VS(80));
    writeFileSync(join(dir, 'b.yaml'), VS(30));
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0, onRejected: (r) => rejected.push(r) }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    assert.equal(lastWeight(batches), 80);
    assert.match(rejected[0]?.message ?? '', /^b\.yaml: document 1 \(VirtualService qs\/echo\): metadata\.name: duplicate: VirtualService\/qs\/echo/);
    rmSync(join(dir, 'a.yaml'));
    await until(() => lastWeight(batches) === 30, 'the definition of the second file');
  });

  it('given a ConfigMap-style mount whose ..data symlink is swapped should pick up the new contents without waiting for the rescan', async () => {
    mkdirSync(join(dir, '..2026_a'));
    writeFileSync(join(dir, '..2026_a', 'vs.yaml'), VS(80));
    symlinkSync('..2026_a', join(dir, '..data'));
    symlinkSync(join('..data', 'vs.yaml'), join(dir, 'vs.yaml'));
    const batches: (readonly ModelInput[])[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0 }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    assert.equal(lastWeight(batches), 80);
    mkdirSync(join(dir, '..2026_b'));
    writeFileSync(join(dir, '..2026_b', 'vs.yaml'), VS(30));
    symlinkSync('..2026_b', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await until(() => lastWeight(batches) === 30, 'the swapped ConfigMap contents');
  });

  /** The VirtualService events of all batches, as `type weight`. */
  const vsEvents = (batches: readonly (readonly ModelInput[])[]): string[] =>
    batches.flatMap((b) =>
      b.flatMap((i) => {
        if (i.kind !== 'config' || i.event.key.kind !== 'VirtualService') return [];
        const http = (i.event.object?.spec as { http?: { route?: { weight?: number }[] }[] } | undefined)?.http;
        return [`${i.event.type} ${http?.[0]?.route?.[0]?.weight ?? '?'}`];
      }),
    );

  it('given an unresolved alias in a file at start-up should sync, reject that file once by name, and keep the rest', async () => {
    writeFileSync(join(dir, 'se.yaml'), SE);
    writeFileSync(join(dir, 'alias.yaml'), 'a: *nope');
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    const errors: Error[] = [];
    let failed: unknown;
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 20, onRejected: (r) => rejected.push(r), onScanError: (e) => errors.push(e) }).subscribe({
      next: (b) => batches.push(b),
      error: (e: unknown) => (failed = e),
    });
    await until(() => batches.length >= 1 || failed !== undefined, 'the first scan');
    assert.equal(failed, undefined);
    assert.deepEqual(batches[0]!.map((i) => (i.kind === 'config' ? i.event.key.kind : '')), ['ServiceEntry']);
    // NOTE: a later full rescan must not fail nor report the same file again.
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    await until(() => lastWeight(batches) === 80, 'a file added after the bad one');
    assert.deepEqual(rejected.map((r) => r.message), ['alias.yaml: document 1 (unknown unknown): YAML: Unresolved alias (the anchor must be set before the alias): nope']);
    assert.deepEqual(errors, []);
  });

  it('given a billion-laughs file added while running should reject it once, and still pick up files in new subfolders', async () => {
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    const errors: Error[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 30, onRejected: (r) => rejected.push(r), onScanError: (e) => errors.push(e) }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    writeFileSync(join(dir, 'lol.yaml'), BILLION_LAUGHS);
    await until(() => rejected.length >= 1, 'the rejection of the billion-laughs file');
    mkdirSync(join(dir, 'team', 'later'), { recursive: true });
    writeFileSync(join(dir, 'team', 'later', 'vs.yaml'), VS(70));
    await until(() => lastWeight(batches) === 70, 'the file in the new subfolder');
    assert.equal(rejected.length, 1, rejected.map((r) => r.message).join('\n'));
    assert.match(rejected[0]!.message, /^lol\.yaml: document 1 \(unknown unknown\): YAML: aliases expand to too many nodes \(limit maxAliasCount 100\)$/);
    assert.deepEqual(errors, []);
  });

  it('given two bad documents and unrelated changes should report each bad version once, with its kind and name', async () => {
    const badAlias = `apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: aliased, namespace: qs }\nspec: *nope\n`;
    writeFileSync(join(dir, 'bad.yaml'), `${BAD_DR}---\n${badAlias}`);
    writeFileSync(join(dir, 'vs.yaml'), VS(10));
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 25, onRejected: (r) => rejected.push(r) }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    for (const w of [20, 30, 40, 50, 60, 70]) {
      writeFileSync(join(dir, 'vs.yaml'), VS(w));
      await until(() => lastWeight(batches) === w, `the unrelated change to weight ${w}`);
    }
    assert.deepEqual(rejected.map((r) => `${r.document} ${r.kind} ${r.name}`), ['1 DestinationRule qs/broken', '2 VirtualService qs/aliased']);
    // A new bad version of one document is reported, the unchanged other is not.
    writeFileSync(join(dir, 'bad.yaml'), `${BAD_DR.replace('FASTEST', 'SLOWEST')}---\n${badAlias}`);
    await until(() => rejected.length >= 3, 'the new bad version');
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    await until(() => lastWeight(batches) === 80, 'one more unrelated change');
    assert.equal(rejected.length, 3, rejected.map((r) => r.message).join('\n'));
    assert.match(rejected[2]!.message, /SLOWEST/);
  });

  it('given a rejected edit should keep serving the last good version, say so, recover on a fix, and delete with the file', async () => {
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    const recovered: RejectedConfig[] = [];
    const book = new RejectedConfigs();
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0, rejections: book, onRejected: (r) => rejected.push(r), onRecovered: (r) => recovered.push(r) }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    writeFileSync(join(dir, 'vs.yaml'), VS_ZERO);
    await until(() => rejected.length >= 1, 'the rejection of weights 0/0');
    assert.equal(rejected[0]!.key, 'VirtualService/qs/echo');
    assert.deepEqual(rejected[0]!.served && [rejected[0]!.served.file, rejected[0]!.served.document], ['vs.yaml', 1]);
    const [entry, ...others] = book.list();
    assert.equal(others.length, 0);
    assert.deepEqual([entry!.object, entry!.location, entry!.reason], ['VirtualService qs/echo', 'vs.yaml document 1', 'spec.http[0].route: total destination weight = 0']);
    assert.match(entry!.served ?? '', /^vs\.yaml document 1 \(version [0-9a-f]{16}\)$/);
    // An edit that is not even YAML: the same object (by its position in the file) stays served.
    writeFileSync(join(dir, 'vs.yaml'), 'spec: *nope\n');
    await until(() => rejected.length >= 2, 'the rejection of the unparseable edit');
    assert.equal(rejected[1]!.served?.document, 1);
    writeFileSync(join(dir, 'vs.yaml'), VS(30));
    await until(() => lastWeight(batches) === 30, 'the fixed version');
    assert.equal(recovered.length, 1);
    assert.deepEqual(book.list(), []);
    rmSync(join(dir, 'vs.yaml'));
    await until(() => vsEvents(batches).at(-1)?.startsWith('deleted') === true, 'the delete');
    assert.deepEqual(vsEvents(batches), ['added 80', 'updated 30', 'deleted 30']);
  });

  it('given a new object that was never valid should not serve it', async () => {
    writeFileSync(join(dir, 'se.yaml'), SE);
    const batches: (readonly ModelInput[])[] = [];
    const book = new RejectedConfigs();
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0, rejections: book }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    writeFileSync(join(dir, 'vs.yaml'), VS_ZERO);
    await until(() => book.list().length === 1, 'the rejection');
    assert.equal(book.list()[0]!.served, null);
    assert.deepEqual(vsEvents(batches), []);
  });

  it('given the config dir deleted and created again should watch the new one without the periodic rescan', async () => {
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    const batches: (readonly ModelInput[])[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0, onScanError: () => undefined }).subscribe((b) => batches.push(b));
    await until(() => lastWeight(batches) === 80, 'the first scan');
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'vs.yaml'), VS(40));
    await until(() => lastWeight(batches) === 40, 'the file in the recreated dir');
    writeFileSync(join(dir, 'vs.yaml'), VS(60));
    await until(() => lastWeight(batches) === 60, 'an edit in the recreated dir');
  });

  it('given a file of 30,000 distinct keys should parse it off the event loop', async function () {
    this.timeout(120_000);
    const keys = Array.from({ length: 30_000 }, (_, i) => `  k${i}: ${i}`).join('\n');
    writeFileSync(join(dir, 'big.yaml'), `apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: big }\nspec:\n${keys}\n`);
    const rejected: RejectedConfig[] = [];
    let ticks = 0;
    let synced = false;
    const ticker = setInterval(() => ticks++, 1);
    try {
      sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 0, onRejected: (r) => rejected.push(r) }).subscribe(() => (synced = true));
      await until(() => synced, 'the first scan', 100_000);
    } finally {
      clearInterval(ticker);
    }
    // NOTE: a parse on the event loop (as before) would let no timer run until the scan ended.
    assert.ok(ticks >= 3, `the event loop ran ${ticks} timer callbacks during the scan`);
    assert.equal(rejected.length, 1);
    assert.match(rejected[0]!.message, /^big\.yaml: document 1 \(VirtualService qs\/big\): spec/);
  });

  it('given a config file replaced by a FIFO should not block, keep serving what the file defined, report it once, and delete when it goes', async () => {
    writeFileSync(join(dir, 'vs.yaml'), VS(80));
    const batches: (readonly ModelInput[])[] = [];
    const rejected: RejectedConfig[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'qs', fileDebounceMs: 20, rescanIntervalMs: 25, onRejected: (r) => rejected.push(r) }).subscribe((b) => batches.push(b));
    await until(() => lastWeight(batches) === 80, 'the first scan');
    rmSync(join(dir, 'vs.yaml'));
    execFileSync('mkfifo', [join(dir, 'vs.yaml')]);
    await until(() => rejected.length >= 1, 'the FIFO reported');
    // NOTE: several periodic rescans pass while the unrelated file below is picked up.
    writeFileSync(join(dir, 'se.yaml'), SE);
    await until(() => batches.some((b) => b.some((i) => i.kind === 'config' && i.event.key.kind === 'ServiceEntry')), 'an unrelated file');
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.message, 'vs.yaml: a FIFO, not a regular file: not read');
    assert.deepEqual(rejected[0]!.served && rejected[0]!.served.document, 1);
    assert.deepEqual(vsEvents(batches), ['added 80']);
    rmSync(join(dir, 'vs.yaml'));
    await until(() => vsEvents(batches).length === 2, 'the delete');
    assert.deepEqual(vsEvents(batches), ['added 80', 'deleted 80']);
  });
});
