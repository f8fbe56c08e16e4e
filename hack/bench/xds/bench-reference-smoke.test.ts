// End to end: `npm run bench:xds -- --reference istiod --source kube` at a tiny size: a real etcd and
// kube-apiserver, meshd then istiod watching it, the same proxyless clients. Checks that both servers
// were measured and every edit reached every client of both, never how fast.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ISTIOD_BIN } from './bench-options.js';
import type { BenchResult } from './run-bench.js';
import { kubeTestBinariesBuilt } from './testing/kube-binaries.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

// Skipped without an istiod binary (bash hack/istiod/build.sh, ~10 minutes; .ci/run builds it) or without kube-apiserver
// and etcd (bash hack/k8s/build.sh; .ci/run builds them first): the smoke test runs both real servers.
describe('bench:xds --reference istiod smoke (meshd and istiod on a real API server)', function () {
  this.timeout(600_000);
  let dir = '';
  before(function () {
    // NOTE: istiod is built by hack/istiod/build.sh (~10 minutes) and the API server by hack/k8s/build.sh (~15
    // minutes); without them this smoke test is skipped, not failed.
    if (!existsSync(DEFAULT_ISTIOD_BIN) || !kubeTestBinariesBuilt()) {
      console.log(`      skipped: ${existsSync(DEFAULT_ISTIOD_BIN) ? 'no kube-apiserver and etcd (bash hack/k8s/build.sh)' : `no istiod at ${DEFAULT_ISTIOD_BIN} (bash hack/istiod/build.sh)`}`);
      this.skip(); // no istiod binary or no kube-apiserver (reason printed above)
    }
    dir = mkdtempSync(join(tmpdir(), 'bench-xds-ref-smoke-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Skipped, the reason printed, without an istiod binary (hack/istiod/build.sh) or kube-apiserver (hack/k8s/build.sh).
  it('given 3 services and 3 proxyless clients should measure both servers, see every edit at every client of each, and print the ratios', async () => {
    const out = join(dir, 'result.json');
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, '--reference', 'istiod', '--source', 'kube', '--services', '3', '--proxies', '3', '--quick', '--out', out], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(run.code, 0, `bench:xds failed:\n${run.stderr.slice(-6000)}`);
    const r = JSON.parse(readFileSync(out, 'utf8')) as { meshd: BenchResult; istiod: BenchResult };
    assert.deepEqual([r.meshd.serverName, r.istiod.serverName], ['meshd', 'istiod']);
    assert.match(r.istiod.serverCommand, /--kubeconfig \S+ --registries=Kubernetes --meshConfig/);
    assert.doesNotMatch(r.istiod.serverCommand, /--configDir/, 'with --source kube istiod reads the API server only');
    for (const res of [r.meshd, r.istiod]) {
      assert.equal(res.startup.complete, 3, `${res.serverName}: clients complete`);
      assert.deepEqual(res.edits.map((e) => e.scenario), ['vs-edit', 'new-service', 'new-subset', 'endpoint']);
      for (const e of res.edits) {
        assert.equal(e.missing, 0, `${res.serverName} ${e.scenario}: ${e.missing} clients never saw ${e.marker}`);
        assert.equal(e.samplesMs.length, 3, `${res.serverName} ${e.scenario}`);
        assert.ok(e.writeAnsweredMs !== undefined && e.writeAnsweredMs > 0 && e.writeAnsweredMs < Math.min(...e.samplesMs), `${res.serverName} ${e.scenario}: the API server answered before any client had the edit`);
      }
      assert.ok(res.server.peakRssBytes > 0, `${res.serverName}: peak RSS`);
    }
    assert.match(run.stdout, /=== istiod \(reference\) ===/);
    assert.match(run.stdout, /meshd vs istiod: 3 services, 3 grpc clients, 1 round\(s\), source kube/);
    assert.match(run.stdout, /endpoint-change p99 .* \d+\.\d\dx/);
    // NOTE: fmtMs prints one decimal under 10 ms (6.7 ms); past the floor, a 3-service run is a few milliseconds.
    assert.match(run.stdout, /full-push p100 past the floor\s+-?[\d.]+ ms\s+-?[\d.]+ ms\s+-?\d+\.\d\dx/);
  });
});
