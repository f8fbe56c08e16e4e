/**
 * Integration: real @grpc/grpc-js-xds clients routed by the in-process control plane to real gRPC
 * backends on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { bootstrapJson, callMany, callOnce, MeshHarness, startBackend, until, type Backend } from '../testing/mesh-harness.js';

const HOST = 'echo.qs.svc.cluster.local';
const TARGET = `xds:///${HOST}:50051`;

function workloads(backends: readonly Backend[], extra: (b: Backend) => string = () => ''): string {
  return backends
    .map(
      (b) => `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${b.name}, namespace: qs }
spec:
  address: 127.0.0.1
  ports: { grpc: ${b.port} }
  labels: { app: echo, version: ${b.name} ${extra(b)} }
`,
    )
    .join('---\n');
}

const SERVICE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  workloadSelector: { labels: { app: echo } }
`;

function subsets(extraPolicy = ''): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v2, labels: { version: v2 } }
${extraPolicy}`;
}

function split(v1: number, v2: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http:
  - route:
    - { destination: { host: ${HOST}, subset: v1 }, weight: ${v1} }
    - { destination: { host: ${HOST}, subset: v2 }, weight: ${v2} }
`;
}

describe('proxyless gRPC traffic through meshd generators', function () {
  this.timeout(120_000);
  let mesh: MeshHarness;
  let backends: Backend[];
  const clients: grpc.Client[] = [];

  before(() => {
    xds.register();
  });

  beforeEach(async () => {
    mesh = await MeshHarness.start();
    backends = [await startBackend('v1'), await startBackend('v2')];
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await mesh.close();
    await Promise.all(backends.map((b) => b.close()));
  });

  function client(): grpc.Client {
    const c = new grpc.Client(TARGET, grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrapJson(mesh.xdsAddress, 'qs'),
    });
    clients.push(c);
    return c;
  }

  it('given an 80/20 VirtualService should split 1,000 calls within a few percent', async () => {
    mesh.apply([SERVICE, workloads(backends), subsets(), split(80, 20)].join('---\n'));
    const c = client();
    await until(async () => (await callOnce(c)).ok, 'the first successful call');
    const counts = await callMany(c, 1000);
    const v1 = counts.get('v1') ?? 0;
    const v2 = counts.get('v2') ?? 0;
    assert.equal(v1 + v2, 1000, `every call succeeds: ${JSON.stringify([...counts])}`);
    assert.ok(Math.abs(v1 - 800) <= 50, `v1 got ${v1} of 1000, want about 800`);
  });

  it('given an edited VirtualService should move all traffic to v2', async () => {
    mesh.apply([SERVICE, workloads(backends), subsets(), split(100, 0)].join('---\n'));
    const c = client();
    await until(async () => (await callOnce(c)).ok, 'the first successful call');
    assert.deepEqual([...(await callMany(c, 20))], [['v1', 20]]);
    mesh.apply(split(0, 100));
    await until(async () => {
      const r = await callOnce(c);
      return r.ok && r.backend === 'v2';
    }, 'traffic on v2');
    assert.deepEqual([...(await callMany(c, 20))], [['v2', 20]]);
  });

  it('given a header match should send matching calls to the v2 subset and the rest to v1', async () => {
    const vs = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http:
  - match: [{ headers: { x-canary: { exact: "yes" } } }]
    route: [{ destination: { host: ${HOST}, subset: v2 } }]
  - route: [{ destination: { host: ${HOST}, subset: v1 } }]
`;
    mesh.apply([SERVICE, workloads(backends), subsets(), vs].join('---\n'));
    const c = client();
    await until(async () => (await callOnce(c)).ok, 'the first successful call');
    assert.deepEqual([...(await callMany(c, 20, { 'x-canary': 'yes' }))], [['v2', 20]]);
    assert.deepEqual([...(await callMany(c, 20, { 'x-canary': 'no' }))], [['v1', 20]]);
    assert.deepEqual([...(await callMany(c, 20))], [['v1', 20]]);
  });

  it('given retries on unavailable should retry a failing call onto success', async () => {
    const vs = (attempts: number): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http:
  - route: [{ destination: { host: ${HOST}, subset: v1 } }]
    retries: { attempts: ${attempts}, retryOn: unavailable }
`;
    mesh.apply([SERVICE, workloads(backends), subsets(), vs(0)].join('---\n'));
    const c = client();
    await until(async () => (await callOnce(c)).ok, 'the first successful call');
    const v1 = backends[0]!;
    v1.failFirst = 1;
    const noRetry = await callOnce(c);
    assert.equal(noRetry.ok, false, 'without retries the failure reaches the caller');
    mesh.apply(vs(2));
    // NOTE: wait until the client holds the retry policy: a failing call then succeeds.
    await until(async () => {
      v1.failFirst = 1;
      const before = v1.calls;
      const r = await callOnce(c);
      return r.ok && v1.calls === before + 2;
    }, 'a retried call that succeeds on the second attempt');
  });

  it('given a fault abort should fail calls with the configured status without reaching the backend', async () => {
    const vs = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http:
  - route: [{ destination: { host: ${HOST}, subset: v1 } }]
    fault: { abort: { grpcStatus: UNAVAILABLE, percentage: { value: 100 } } }
`;
    mesh.apply([SERVICE, workloads(backends), subsets(), vs].join('---\n'));
    const c = client();
    await until(async () => {
      const r = await callOnce(c);
      return !r.ok && r.code === grpc.status.UNAVAILABLE && /fault/i.test(r.details);
    }, 'an injected abort');
    const before = backends[0]!.calls;
    const counts = await callMany(c, 20);
    assert.deepEqual([...counts], [[`error:${grpc.status.UNAVAILABLE}`, 20]]);
    assert.equal(backends[0]!.calls, before, 'the backend saw none of the aborted calls');
  });

  it('given RING_HASH on a header should keep each user on one backend and spread users over both', async () => {
    const dr = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }
`;
    mesh.apply([SERVICE, workloads(backends), dr].join('---\n'));
    const c = client();
    await until(async () => (await callOnce(c, { 'x-user': 'probe' })).ok, 'the first successful call');
    const owner = new Map<string, string>();
    for (let u = 0; u < 20; u++) {
      const counts = await callMany(c, 10, { 'x-user': `user-${u}` });
      assert.equal(counts.size, 1, `user-${u} stuck to one backend: ${JSON.stringify([...counts])}`);
      owner.set(`user-${u}`, [...counts.keys()][0]!);
    }
    assert.deepEqual(new Set(owner.values()), new Set(['v1', 'v2']), 'users spread over both backends');
  });

  it('given a removed WorkloadEntry should stop sending calls to it', async () => {
    mesh.apply([SERVICE, workloads(backends)].join('---\n'));
    const c = client();
    await until(async () => (await callMany(c, 10)).size === 2, 'round robin over both backends');
    mesh.remove('WorkloadEntry', 'qs', 'v2');
    await until(async () => {
      const counts = await callMany(c, 10);
      return counts.size === 1 && counts.has('v1');
    }, 'calls on v1 only');
    const v2Calls = backends[1]!.calls;
    assert.deepEqual([...(await callMany(c, 50))], [['v1', 50]]);
    assert.equal(backends[1]!.calls, v2Calls, 'v2 receives no more calls');
  });

  it('given outlier detection should eject a backend that keeps failing', async () => {
    const dr = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  trafficPolicy: { outlierDetection: { consecutive5xxErrors: 2, interval: 1s, baseEjectionTime: 60s, maxEjectionPercent: 50 } }
`;
    mesh.apply([SERVICE, workloads(backends), dr].join('---\n'));
    const c = client();
    await until(async () => (await callMany(c, 10)).size === 2, 'round robin over both backends');
    backends[1]!.failFirst = Number.MAX_SAFE_INTEGER;
    await until(async () => {
      const counts = await callMany(c, 20);
      return counts.get('v1') === 20;
    }, 'the failing backend ejected');
  });
});
