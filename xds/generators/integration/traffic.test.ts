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
});
