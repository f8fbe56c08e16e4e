/**
 * Server-side security with real XdsServer backends: RBAC from AuthorizationPolicy and mTLS with SAN
 * checks through file_watcher certificate providers. A mocha spec run in a child process by
 * integration/server-security.test.ts, because grpc-js-xds reads GRPC_XDS_EXPERIMENTAL_RBAC at module load.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { bootstrapJson, callMany, callOnce, ECHO_METHOD, MeshHarness, startXdsBackend, until, type XdsBackend } from './mesh-harness.js';
import { freePort } from '../../testing/free-port.js';
import { TestCa } from './test-ca.js';

const HOST = 'echo.qs.svc.cluster.local';

function service(backend: Pick<XdsBackend, 'port'>, serviceAccount: string): string {
  return `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  workloadSelector: { labels: { app: echo } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: echo-1, namespace: qs }
spec: { address: 127.0.0.1, ports: { grpc: ${backend.port} }, labels: { app: echo }, serviceAccount: ${serviceAccount} }
`;
}

describe('server security (XdsServer backends)', function () {
  this.timeout(120_000);
  let mesh: MeshHarness;
  let dir: string;
  const closers: (() => Promise<void> | void)[] = [];

  before(() => {
    assert.equal(process.env['GRPC_XDS_EXPERIMENTAL_RBAC'], 'true', 'run through server-security.test.ts, which sets the flag');
    xds.register();
  });
  beforeEach(async () => {
    mesh = await MeshHarness.start();
    dir = mkdtempSync(join(tmpdir(), 'mesh-sec-'));
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await mesh.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function client(creds: grpc.ChannelCredentials, certDir?: string): grpc.Client {
    const c = new grpc.Client(`xds:///${HOST}:50051`, creds, {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(mesh.xdsAddress, 'qs', certDir ? { certDir } : {}),
    });
    closers.push(() => c.close());
    return c;
  }

  it('given a DENY AuthorizationPolicy on the method should reject calls with PERMISSION_DENIED before the handler', async () => {
    const backend = await startXdsBackend(xds, 'echo-1', mesh.xdsAddress, 'qs', { app: 'echo' });
    closers.push(() => backend.close());
    mesh.apply(service(backend, 'echo'));
    const c = client(grpc.credentials.createInsecure());
    await until(async () => (await callOnce(c)).ok, 'a served call');
    mesh.apply(`apiVersion: security.mesh.io/v1
kind: AuthorizationPolicy
metadata: { name: deny-echo, namespace: qs }
spec:
  selector: { matchLabels: { app: echo } }
  action: DENY
  rules: [{ to: [{ operation: { paths: ["${ECHO_METHOD}"] } }] }]
`);
    await until(async () => {
      const r = await callOnce(c);
      return !r.ok && r.code === grpc.status.PERMISSION_DENIED;
    }, 'PERMISSION_DENIED');
    const handled = backend.calls;
    assert.deepEqual([...(await callMany(c, 10))], [[`error:${grpc.status.PERMISSION_DENIED}`, 10]]);
    assert.equal(backend.calls, handled, 'denied calls never reach the handler');
    mesh.remove('AuthorizationPolicy', 'qs', 'deny-echo');
    await until(async () => (await callOnce(c)).ok, 'calls served again after the policy is removed');
  });

  it('given STRICT mTLS should serve mTLS clients whose SAN check matches, refuse plaintext, and fail a SAN mismatch', async () => {
    const ca = new TestCa();
    ca.issue(join(dir, 'server'), 'spiffe://cluster.local/ns/qs/sa/echo');
    ca.issue(join(dir, 'client'), 'spiffe://cluster.local/ns/qs/sa/client');
    const port = await freePort();
    const dr = (sans: string): string => `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  trafficPolicy: { tls: { mode: MESH_MUTUAL${sans} } }
`;
    mesh.apply(
      [
        service({ port }, 'echo'),
        `apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: default, namespace: qs }
spec: { mtls: { mode: STRICT } }
`,
        dr(''),
      ].join('---\n'),
    );
    const backend = await startXdsBackend(xds, 'echo-1', mesh.xdsAddress, 'qs', { app: 'echo' }, join(dir, 'server'), port);
    closers.push(() => backend.close());
    const secure = client(new xds.XdsChannelCredentials(grpc.credentials.createInsecure()), join(dir, 'client'));
    await until(async () => (await callOnce(secure)).ok, 'an mTLS call');
    assert.deepEqual([...(await callMany(secure, 10))], [['echo-1', 10]]);

    const plain = new grpc.Client(`127.0.0.1:${backend.port}`, grpc.credentials.createInsecure());
    closers.push(() => plain.close());
    const r = await callOnce(plain, undefined, 2000);
    assert.equal(r.ok, false, 'a plaintext client is refused by the STRICT listener');

    mesh.apply(dr(', subjectAltNames: [spiffe://cluster.local/ns/qs/sa/billing]'));
    const fresh = client(new xds.XdsChannelCredentials(grpc.credentials.createInsecure()), join(dir, 'client'));
    await until(async () => {
      const x = await callOnce(fresh, undefined, 2000);
      return !x.ok && x.code === grpc.status.UNAVAILABLE;
    }, 'the SAN mismatch to fail calls');
  });

  it('given an ALLOW policy on the client principal should admit that identity only', async () => {
    const ca = new TestCa();
    ca.issue(join(dir, 'server'), 'spiffe://cluster.local/ns/qs/sa/echo');
    ca.issue(join(dir, 'client'), 'spiffe://cluster.local/ns/qs/sa/client');
    const port = await freePort();
    const allow = (principal: string): string => `apiVersion: security.mesh.io/v1
kind: AuthorizationPolicy
metadata: { name: allow-client, namespace: qs }
spec:
  action: ALLOW
  rules: [{ from: [{ source: { principals: ["${principal}"] } }] }]
`;
    mesh.apply(
      [
        service({ port }, 'echo'),
        `apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: default, namespace: qs }
spec: { mtls: { mode: STRICT } }
`,
        allow('cluster.local/ns/qs/sa/client'),
      ].join('---\n'),
    );
    const backend = await startXdsBackend(xds, 'echo-1', mesh.xdsAddress, 'qs', { app: 'echo' }, join(dir, 'server'), port);
    closers.push(() => backend.close());
    const secure = client(new xds.XdsChannelCredentials(grpc.credentials.createInsecure()), join(dir, 'client'));
    await until(async () => (await callOnce(secure)).ok, 'the allowed identity served (auto mTLS to a STRICT namespace)');
    mesh.apply(allow('cluster.local/ns/qs/sa/someone-else'));
    await until(async () => {
      const x = await callOnce(secure);
      return !x.ok && x.code === grpc.status.PERMISSION_DENIED;
    }, 'the other identity denied');
  });
});
