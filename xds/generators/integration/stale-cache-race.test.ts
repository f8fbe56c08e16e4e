/**
 * The stale-cache race (issue 11): a generate that yields the event loop while a config change rebuilds
 * the PushContext and invalidates the cache must not write bytes built from the older snapshot back into
 * the cache. Real gRPC on 127.0.0.1; the generator's slicer yields at a chosen point and applies the
 * change right there, so the interleaving is the same on every run.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import { ECHO_HOST, ECHO_SERVICE_ENTRY_YAML } from '../testing/model-fixtures.js';

const HOST = ECHO_HOST;
const ROUTE = `outbound|50051||${HOST}`;

const BASE = `${ECHO_SERVICE_ENTRY_YAML}
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: v1, namespace: qs }
spec: { address: 127.0.0.21, labels: { app: echo, version: v1 } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: v2, namespace: qs }
spec: { address: 127.0.0.22, labels: { app: echo, version: v2 } }
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]
`;

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

/** The weights of the route configuration's first route, by cluster name. */
function weights(body: Uint8Array): string {
  const rc = decode(TYPE_URL.route, body) as { virtualHosts: { routes: { route: { weightedClusters: { clusters: { name: string; weight: { value: number } }[] } } }[] }[] };
  return rc.virtualHosts[0]!.routes[0]!.route.weightedClusters.clusters.map((c) => `${c.name.split('|')[2]}=${c.weight.value}`).join(',');
}

function client(address: string, pod: string): AdsClient {
  return new AdsClient({
    address,
    node: { id: `sidecar~10.0.0.1~${pod}.qs~qs.svc.cluster.local`, metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' } },
    autoAck: true,
  });
}

describe('given a config change while a push is being generated', function () {
  this.timeout(60_000);
  let mesh: MeshHarness;
  const clients: AdsClient[] = [];
  /** Runs once at the generator's next yield point (then the generator yields). */
  let atYield: (() => void) | undefined;

  beforeEach(async () => {
    atYield = undefined;
    const slicer = {
      overBudget: (): boolean => {
        const hook = atYield;
        atYield = undefined;
        hook?.();
        return hook !== undefined;
      },
    };
    mesh = await MeshHarness.start({ slicer });
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await mesh.close();
  });

  it('given a VirtualService changed from 70/30 to 10/90 during a yield should send 10/90 on the next push and keep no 70/30 bytes cached', async () => {
    mesh.apply(BASE + '---\n' + split(70, 30));
    // NOTE: the change lands while the first request's route is being built from the 70/30 snapshot.
    atYield = () => mesh.apply(split(10, 90));
    const a = client(mesh.xdsAddress, 'a');
    clients.push(a);
    a.subscribe(TYPE_URL.route, [ROUTE]);
    // One answer to the request (built before the change), one for the push the change caused.
    const second = await a.waitFor('two route responses', () => a.responses.filter((r) => r.typeUrl === TYPE_URL.route)[1]);
    assert.equal(atYield, undefined, 'the change was applied during generation');
    assert.equal(weights(a.responses.filter((r) => r.typeUrl === TYPE_URL.route)[0]!.resources[0]!.body), 'v1=70,v2=30', 'the request was answered from its own snapshot');
    assert.equal(weights(second.resources[0]!.body), 'v1=10,v2=90', 'the push after the change carries the new weights');

    // A proxy that connects afterwards reads the cache: it must hold the new bytes.
    const b = client(mesh.xdsAddress, 'b');
    clients.push(b);
    b.subscribe(TYPE_URL.route, [ROUTE]);
    const first = await b.nextResponse(TYPE_URL.route, 0);
    assert.equal(weights(first.resources[0]!.body), 'v1=10,v2=90', 'the cache serves the new weights');
  });
});
