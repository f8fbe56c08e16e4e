import assert from 'node:assert/strict';
import { proxyFromNode } from '../../../core/index.js';
import { configEvent, configsFromYaml, grpcNode, testModel } from '../testing/model-fixtures.js';
import { buildLoadAssignment } from './endpoint-builder.js';

const BASE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 80, name: grpc }]
  workloadSelector: { labels: { app: echo } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: near, namespace: qs }
spec: { address: 10.0.0.1, labels: { app: echo }, locality: r1/z1/s1 }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: zone, namespace: qs }
spec: { address: 10.0.0.2, labels: { app: echo }, locality: r1/z1/s2 }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: far, namespace: qs }
spec: { address: 10.0.0.3, labels: { app: echo }, locality: r2/z9 }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: sick, namespace: qs }
spec: { address: 10.0.0.4, labels: { app: echo }, locality: r2/z9 }
status: { conditions: [{ type: Healthy, status: "False" }] }
`;

const OUTLIER = `---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: echo.qs.svc.cluster.local
  trafficPolicy: { outlierDetection: { consecutive5xxErrors: 3 } }
`;

function assignment(yaml: string, sendUnhealthy: boolean): { address: string; priority: number; health: string }[] {
  const m = testModel();
  m.apply(configsFromYaml(yaml).map((c) => configEvent(c)));
  m.rebuild();
  const proxy = proxyFromNode(grpcNode('qs', { locality: { region: 'r1', zone: 'z1', subZone: 's1' } }));
  const built = buildLoadAssignment(m.pushContext, proxy, 'outbound|80||echo.qs.svc.cluster.local', m.snapshot.endpoints, { sendUnhealthyEndpoints: sendUnhealthy })!;
  const eps = built.resource['endpoints'] as { priority: number; lbEndpoints: { endpoint: { address: { socketAddress: { address: string } } }; healthStatus: string }[] }[];
  return eps
    .flatMap((l) => l.lbEndpoints.map((e) => ({ address: e.endpoint.address.socketAddress.address, priority: l.priority, health: e.healthStatus })))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
}

const cases = [
  {
    name: 'given no outlier detection should put every locality at priority 0 and leave unhealthy endpoints out',
    yaml: BASE,
    unhealthy: false,
    want: [
      { address: '10.0.0.1', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.2', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.3', priority: 0, health: 'HEALTHY' },
    ],
  },
  {
    name: 'given outlier detection should order localities by proximity with contiguous priorities',
    yaml: BASE + OUTLIER,
    unhealthy: false,
    want: [
      { address: '10.0.0.1', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.2', priority: 1, health: 'HEALTHY' },
      { address: '10.0.0.3', priority: 2, health: 'HEALTHY' },
    ],
  },
  {
    name: 'given PILOT_SEND_UNHEALTHY_ENDPOINTS should send unhealthy endpoints marked UNHEALTHY',
    yaml: BASE,
    unhealthy: true,
    want: [
      { address: '10.0.0.1', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.2', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.3', priority: 0, health: 'HEALTHY' },
      { address: '10.0.0.4', priority: 0, health: 'UNHEALTHY' },
    ],
  },
];

describe('buildLoadAssignment', () => {
  for (const c of cases) it(c.name, () => assert.deepEqual(assignment(c.yaml, c.unhealthy), c.want));
});
