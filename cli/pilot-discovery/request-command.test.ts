import assert from 'node:assert/strict';
import { spawnSync, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { programEnv, REPO_ROOT } from '../testing/program-process.js';

// NOTE: `pilot-discovery request` talks to localhost:15014 (no flag to change it, as in Istio). To own that port
// whatever else runs on this machine, meshd and the command run in a network namespace of their own.
const SCRIPT = `
set -u
ip link set lo up || { echo "cannot bring lo up" >&2; exit 90; }
"$NODE" "$REPO/bin/pilot-discovery" discovery --configDir "$DIR" --registries Mock --namespace qs >"$DIR/meshd.log" 2>&1 &
meshd=$!
ready=""
for _ in $(seq 1 150); do
  if "$NODE" "$REPO/bin/pilot-discovery" request GET /ready >/dev/null 2>&1; then ready=1; break; fi
  kill -0 $meshd 2>/dev/null || break
  sleep 0.2
done
[ -n "$ready" ] || { echo "meshd did not become ready on :15014" >&2; cat "$DIR/meshd.log" >&2; kill $meshd 2>/dev/null; exit 91; }
echo "--- syncz"
"$NODE" "$REPO/bin/pilot-discovery" request GET /debug/syncz; rc=$?
echo "--- index"
"$NODE" "$REPO/bin/pilot-discovery" request GET /debug || rc=$?
kill $meshd; wait $meshd
exit $rc
`;

describe('pilot-discovery request (in a network namespace of its own)', function () {
  this.timeout(120_000);

  // Skipped, the reason printed, without a network namespace (unshare -n needs root): meshd must own port 15014.
  it('given a running meshd should get /debug/syncz and the /debug index from the monitoring port 15014', async function () {
    const probe = spawnSync('unshare', ['-n', 'true']);
    if (probe.status !== 0) {
      process.stderr.write(`  skipped: needs unshare -n (root or user namespaces): ${probe.error?.message ?? probe.stderr.toString().trim()}\n`);
      this.skip(); // no network namespace (unshare -n needs root or user namespaces): meshd must own the fixed port 15014
    }
    const dir = mkdtempSync(join(tmpdir(), 'meshd-request-'));
    try {
      writeFileSync(
        join(dir, 'service-entry.yaml'),
        'apiVersion: networking.mesh.io/v1\nkind: ServiceEntry\nmetadata: { name: echo, namespace: qs }\nspec: { hosts: [echo.qs.svc.cluster.local], ports: [{ number: 80, name: http, protocol: HTTP }], resolution: STATIC, endpoints: [{ address: 10.0.0.1 }] }\n',
      );
      const { stdout } = await promisify(execFile)('unshare', ['-n', 'sh', '-c', SCRIPT], {
        env: programEnv({ NODE: process.execPath, REPO: REPO_ROOT, DIR: dir, ENABLE_CA_SERVER: 'false' }),
      });
      const [, syncz, index] = stdout.split(/^--- (?:syncz|index)\n/m);
      assert.deepEqual(JSON.parse(syncz!), [], 'no proxy is connected');
      assert.match(index!, /^\/debug\/syncz +Synchronization status/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
