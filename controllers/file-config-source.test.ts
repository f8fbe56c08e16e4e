import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { ModelInput } from '../core/index.js';
import { fileConfigSource, scanConfigDir, type RejectedConfig } from './file-config-source.js';

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

  it('given a multi-document file with one bad document should keep the others and name file, document, kind/name and field', () => {
    writeFileSync(join(dir, 'all.yaml'), `${SE}---\n${BAD_DR}---\n${VS(80)}`);
    const res = scanConfigDir(dir, 'qs');
    assert.deepEqual([...res.configs.keys()].sort(), ['ServiceEntry/qs/echo', 'VirtualService/qs/echo']);
    assert.equal(res.rejected.length, 1);
    const r = res.rejected[0]!;
    assert.equal(r.file, 'all.yaml');
    assert.equal(r.document, 2);
    assert.equal(r.kind, 'DestinationRule');
    assert.equal(r.name, 'qs/broken');
    assert.match(r.message, /^all\.yaml: document 2 \(DestinationRule qs\/broken\): spec\.trafficPolicy\.loadBalancer\.simple/);
  });

  it('given a document without a namespace should put it in the default namespace', () => {
    writeFileSync(join(dir, 'se.yml'), SE);
    assert.equal(scanConfigDir(dir, 'team-a').configs.get('ServiceEntry/team-a/echo')?.metadata.namespace, 'team-a');
  });

  it('given YAML that does not parse should reject that document only', () => {
    writeFileSync(join(dir, 'a.yaml'), SE);
    writeFileSync(join(dir, 'b.yaml'), 'kind: [unclosed');
    const res = scanConfigDir(dir, 'qs');
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
    assert.equal(lastWeight(batches), 80);
    mkdirSync(join(dir, '..2026_b'));
    writeFileSync(join(dir, '..2026_b', 'vs.yaml'), VS(30));
    symlinkSync('..2026_b', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await until(() => lastWeight(batches) === 30, 'the swapped ConfigMap contents');
  });
});
