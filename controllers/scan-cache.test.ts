import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { ConfigEvent, ModelInput } from '../core/index.js';
import { fileConfigSource, type ScanWork } from './file-config-source.js';
import { ScanCache, type ScanResult } from './scan-cache.js';
import { rescanChanged, scanConfigDir } from './scan-config-dir.js';

/** Documents per generated file: a ServiceEntry, five WorkloadEntries, a VirtualService. */
const DOCS_PER_FILE = 7;

/** Service `i`'s file, as the xDS bench writes it; `address` replaces the first endpoint's address, `comment` is added to it. */
function serviceYaml(i: number, address = `10.0.${i % 256}.1`, comment = ''): string {
  const host = `svc-${i}.ns.svc.cluster.local`;
  const docs = [
    `apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: svc-${i}, namespace: ns }\nspec:\n  hosts: [${host}]\n  location: MESH_INTERNAL\n  ports: [{ number: 8080, name: grpc, protocol: GRPC }]\n  resolution: STATIC\n  workloadSelector: { labels: { app: svc-${i} } }\n`,
    ...Array.from({ length: 5 }, (_, e) => {
      const addr = e === 0 ? address : `10.${1 + e}.${i % 256}.${Math.floor(i / 256)}`;
      return `apiVersion: networking.mesh.io/v1\nkind: WorkloadEntry\nmetadata: { name: svc-${i}-${e}, namespace: ns }\nspec:\n  address: ${addr}${e === 0 ? comment : ''}\n  labels: { app: svc-${i} }\n`;
    }),
    `apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: svc-${i}, namespace: ns }\nspec:\n  hosts: [${host}]\n  http:\n  - route:\n    - destination: { host: ${host} }\n`,
  ];
  return docs.join('---\n');
}

/** The work done between two readings of a cache's counters. */
function delta(a: ScanWork, b: ScanWork): ScanWork {
  return { filesRead: b.filesRead - a.filesRead, keysDiffed: b.keysDiffed - a.keysDiffed, definitionsChecked: b.definitionsChecked - a.definitionsChecked };
}

const describeEvents = (events: readonly ConfigEvent[]): string[] => events.map((e) => `${e.type} ${e.key.kind}/${e.key.namespace}/${e.key.name}`);

async function until(cond: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('scan cache: the cost of a change follows the change', () => {
  const FILES = 300;
  let dir: string;
  let cache: ScanCache;
  let first: ScanResult;
  const ctx = (): { dir: string; defaultNamespace: string } => ({ dir, defaultNamespace: 'ns' });
  const file = (i: number): string => join(dir, `svc-${i}.yaml`);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-scancache-'));
    for (let i = 0; i < FILES; i++) writeFileSync(file(i), serviceYaml(i));
    cache = new ScanCache();
    first = await scanConfigDir(ctx(), cache);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given the first scan should add every config once', () => {
    assert.equal(first.events.length, FILES * DOCS_PER_FILE);
    assert.ok(first.events.every((e) => e.type === 'added'));
    assert.equal(first.configs.size, FILES * DOCS_PER_FILE);
    assert.deepEqual(first.rejected, []);
  });

  const cases: { name: string; edit: () => void; events: string[]; work: ScanWork }[] = [
    {
      name: 'given one endpoint of one file edited should read that file, diff that one key, and emit exactly its update',
      edit: () => writeFileSync(file(17), serviceYaml(17, '10.250.0.9')),
      events: ['updated WorkloadEntry/ns/svc-17-0'],
      work: { filesRead: 1, keysDiffed: 1, definitionsChecked: DOCS_PER_FILE },
    },
    {
      name: 'given a file rewritten with the same text should read it and diff nothing',
      edit: () => {
        writeFileSync(file(17), serviceYaml(17));
        utimesSync(file(17), new Date(), new Date(Date.now() + 5_000));
      },
      events: [],
      work: { filesRead: 1, keysDiffed: 0, definitionsChecked: DOCS_PER_FILE },
    },
    {
      name: 'given a comment added to one document should diff that key only and emit nothing',
      edit: () => writeFileSync(file(17), serviceYaml(17, '10.0.17.1', ' # moved soon')),
      events: [],
      work: { filesRead: 1, keysDiffed: 1, definitionsChecked: DOCS_PER_FILE },
    },
    {
      name: 'given one file deleted should emit exactly the deletes of its configs',
      edit: () => rmSync(file(17)),
      events: ['deleted ServiceEntry/ns/svc-17', 'deleted VirtualService/ns/svc-17', ...Array.from({ length: 5 }, (_, e) => `deleted WorkloadEntry/ns/svc-17-${e}`)],
      work: { filesRead: 0, keysDiffed: DOCS_PER_FILE, definitionsChecked: 0 },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const before = new Map(first.configs);
      const work0 = cache.work;
      c.edit();
      const res = (await rescanChanged(ctx(), cache, first.dirs, [file(17)]))!;
      assert.deepEqual(describeEvents(res.events), c.events);
      assert.deepEqual(delta(work0, cache.work), c.work);
      // Every config whose document's text is unchanged is still the very same object (not re-parsed into a copy).
      for (const [k, v] of before) if (k !== 'WorkloadEntry/ns/svc-17-0' && res.configs.has(k)) assert.equal(res.configs.get(k), v, k);
      assert.equal(res.configs.size, before.size - (c.events[0]?.startsWith('deleted') ? DOCS_PER_FILE : 0));
    });
  }

  it('given a full rescan after one edit should read and diff only the edited file', async () => {
    writeFileSync(file(42), serviceYaml(42, '10.250.0.42'));
    const work0 = cache.work;
    const res = await scanConfigDir(ctx(), cache);
    assert.deepEqual(describeEvents(res.events), ['updated WorkloadEntry/ns/svc-42-0']);
    assert.deepEqual(delta(work0, cache.work), { filesRead: 1, keysDiffed: 1, definitionsChecked: DOCS_PER_FILE });
    const work1 = cache.work;
    assert.deepEqual((await scanConfigDir(ctx(), cache)).events, []);
    assert.deepEqual(delta(work1, cache.work), { filesRead: 0, keysDiffed: 0, definitionsChecked: 0 });
  });

  it('given a key defined again in a later file should reject the repeat, recheck only the files defining it, and serve the repeat when the first goes', async () => {
    const dup = join(dir, 'zz-dup.yaml');
    writeFileSync(dup, serviceYaml(5, '10.250.0.5'));
    let work0 = cache.work;
    let res = (await rescanChanged(ctx(), cache, first.dirs, [dup]))!;
    assert.deepEqual(res.events, []);
    assert.equal(res.rejected.length, DOCS_PER_FILE);
    assert.match(res.rejected.find((r) => r.name === 'ns/svc-5-0')!.message, /^zz-dup\.yaml: document 2 \(WorkloadEntry ns\/svc-5-0\): metadata\.name: duplicate: WorkloadEntry\/ns\/svc-5-0 is already defined in an earlier document$/);
    // Both files define the keys: both are rechecked, nothing else.
    assert.deepEqual(delta(work0, cache.work), { filesRead: 1, keysDiffed: 0, definitionsChecked: 2 * DOCS_PER_FILE });
    // The repeat edited: still a duplicate, a new bad version, nothing served changes.
    writeFileSync(dup, serviceYaml(5, '10.250.0.6'));
    res = (await rescanChanged(ctx(), cache, first.dirs, [dup]))!;
    assert.deepEqual(res.events, []);
    assert.equal(res.rejected.length, DOCS_PER_FILE);
    // The first definition goes: the repeat is served (one update: its endpoint differs) and no longer rejected.
    work0 = cache.work;
    rmSync(file(5));
    res = (await rescanChanged(ctx(), cache, first.dirs, [file(5)]))!;
    assert.deepEqual(describeEvents(res.events), ['updated WorkloadEntry/ns/svc-5-0']);
    assert.deepEqual(res.rejected, []);
    assert.deepEqual(delta(work0, cache.work), { filesRead: 0, keysDiffed: DOCS_PER_FILE, definitionsChecked: DOCS_PER_FILE });
  });

  it('given a rejected edit of one document should keep its last good version and emit nothing for the file', async () => {
    const held = first.configs.get('WorkloadEntry/ns/svc-9-0');
    writeFileSync(file(9), serviceYaml(9, '"*.bad"'));
    const work0 = cache.work;
    const res = (await rescanChanged(ctx(), cache, first.dirs, [file(9)]))!;
    assert.deepEqual(res.events, []);
    assert.equal(res.configs.get('WorkloadEntry/ns/svc-9-0'), held);
    assert.equal(res.rejected.length, 1);
    assert.equal(res.rejected[0]!.served?.document, 2);
    assert.deepEqual(delta(work0, cache.work), { filesRead: 1, keysDiffed: 0, definitionsChecked: DOCS_PER_FILE - 1 });
  });
});

describe('file config source: the cost of a change follows the change', () => {
  let dir: string;
  let sub: Subscription | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-configdir-cost-'));
  });
  afterEach(() => {
    sub?.unsubscribe();
    sub = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('given one file of many edited should emit exactly that file\'s change, and periodic rescans should diff nothing', async () => {
    const files = 200;
    mkdirSync(join(dir, 'ns'));
    for (let i = 0; i < files; i++) writeFileSync(join(dir, 'ns', `svc-${i}.yaml`), serviceYaml(i));
    const batches: (readonly ModelInput[])[] = [];
    const scans: ScanWork[] = [];
    sub = fileConfigSource({ dir, defaultNamespace: 'ns', fileDebounceMs: 20, rescanIntervalMs: 25, onScanned: (w) => scans.push(w) }).subscribe((b) => batches.push(b));
    await until(() => batches.length >= 1, 'the first scan');
    assert.equal(batches[0]!.length, files * DOCS_PER_FILE);
    assert.equal(scans[0]!.filesRead, files);
    // Periodic rescans with nothing changed: no file read, no key diffed, no batch.
    const quiet = scans.length;
    await until(() => scans.length >= quiet + 3, 'three quiet rescans');
    assert.deepEqual(scans.slice(quiet).filter((w) => w.filesRead + w.keysDiffed + w.definitionsChecked > 0), []);
    assert.equal(batches.length, 1);
    // NOTE: replaced by rename, so that no scan can see the file half written.
    writeFileSync(`${dir}.tmp`, serviceYaml(123, '10.250.1.23'));
    renameSync(`${dir}.tmp`, join(dir, 'ns', 'svc-123.yaml'));
    await until(() => batches.length >= 2, 'the edit');
    assert.deepEqual(
      batches.slice(1).flatMap((b) => b.map((i) => (i.kind === 'config' ? `${i.event.type} ${i.event.key.name}` : i.kind))),
      ['updated svc-123-0'],
    );
    const costly = scans.filter((w) => w.keysDiffed > 0).slice(1);
    assert.deepEqual(costly, [{ filesRead: 1, keysDiffed: 1, definitionsChecked: DOCS_PER_FILE }]);
  });
});
