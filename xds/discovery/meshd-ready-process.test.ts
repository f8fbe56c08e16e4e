/**
 * End to end through the real meshd process (`bin/pilot-discovery discovery --configDir` with many files
 * and a wide debounce window): a proxy that keeps reconnecting from the moment meshd starts is refused with
 * UNAVAILABLE naming what meshd waits for, and its first answer holds every cluster of the config dir,
 * never the empty initial config.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient, type SotwResponse } from '../testing/ads-client.js';
import { startFileMeshd, type FileMeshd } from '../testing/file-meshd.js';

const SERVICES = 200;
const host = (i: number): string => `svc-${i}.qs.svc.cluster.local`;
const serviceYaml = (i: number): string => `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: svc-${i}, namespace: qs }
spec:
  hosts: [${host(i)}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  endpoints: [{ address: 10.0.${Math.floor(i / 250)}.${(i % 250) + 1} }]
`;

describe('meshd restarted with a large config dir (process)', function () {
  this.timeout(120_000);
  let dir = '';
  let meshd: FileMeshd | undefined;
  after(async () => {
    await meshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('given a proxy connecting from the start should refuse it until the config is published, then answer with every cluster', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-ready-'));
    for (let i = 0; i < SERVICES; i++) writeFileSync(join(dir, `svc-${i}.yaml`), serviceYaml(i));
    // NOTE: a wide debounce window: without the gate, a proxy admitted after the files were read but before the
    // push would get the empty initial snapshot.
    const m = (meshd = await startFileMeshd({ configDir: dir, env: { PILOT_DEBOUNCE_AFTER: '1s' }, waitReady: false }));
    const ports = m.ports;

    const expected = Array.from({ length: SERVICES }, (_, i) => `outbound|50051||${host(i)}`);
    const refusals = new Set<string>();
    const notReadyBodies = new Set<string>();
    const deadline = Date.now() + 60_000;
    let first: SotwResponse | undefined;
    while (!first) {
      assert.ok(Date.now() < deadline, `no answer from meshd; refusals: ${[...refusals].join(' | ')}\n${m.output()}`);
      if (m.child.exitCode !== null) assert.fail(`meshd exited (${m.child.exitCode}):\n${m.output()}`);
      const client = new AdsClient({ address: `127.0.0.1:${ports.grpc}`, node: { id: 'sidecar~10.0.1.1~p.qs~qs.svc.cluster.local', metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' } } });
      try {
        client.subscribe(TYPE_URL.cluster);
        const outcome = await Promise.race([client.nextResponse(TYPE_URL.cluster, 0, 30_000), client.status]);
        if ('typeUrl' in outcome) first = outcome;
        else {
          assert.equal(outcome.code, grpc.status.UNAVAILABLE, `refused with ${grpc.status[outcome.code]}: ${outcome.details}`);
          // NOTE: before meshd listens the channel itself fails (UNAVAILABLE, no such message); retry as a proxy does.
          if (/not ready/.test(outcome.details)) refusals.add(outcome.details);
          const probe = await fetch(`http://127.0.0.1:${ports.http}/ready`).catch(() => undefined);
          if (probe?.status === 503) notReadyBodies.add(await probe.text());
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        client.close();
      }
    }
    const names = new Set(first.resources.map((r) => r.name));
    const missing = expected.filter((n) => !names.has(n));
    assert.deepEqual(missing.slice(0, 5), [], `the first answer lacks ${missing.length} of ${SERVICES} clusters`);
    for (const r of refusals) assert.match(r, /^meshd is not ready to serve discovery information: waiting for the first (sync of config-dir|push of the synced config)/);
    // One definition of ready: /ready says the same reasons the streams were refused with.
    for (const b of notReadyBodies) assert.match(b, /^not ready: waiting for the first (sync of config-dir|push of the synced config)/);
    const ready = await fetch(`http://127.0.0.1:${ports.http}/ready`);
    assert.equal(ready.status, 200, 'admitted proxies imply /ready');
  });
});
