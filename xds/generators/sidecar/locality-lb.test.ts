/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { validate } from '../../protos/validate.js';
import { simulateRequest } from '../../simulator/request-simulator.js';
import { checkConsistency } from './consistency-checker.js';
import { localityMatches } from './locality-lb.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarEndpointsKey } from './sidecar-cache-keys.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode } from './testing/sidecar-mesh.js';

const HOST = 'svc.default.svc.cluster.local';
const CLUSTER = `outbound|8080||${HOST}`;
/** One service with an endpoint per locality: a r1/z1/s1, b r1/z1/s2, c r1/z2, d r2/z1, e r3/z1. */
const MESH = `
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: svc, namespace: default }
spec:
  hosts: [${HOST}]
  addresses: [10.96.5.1]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: svc } }
${[
  ['a', '10.5.0.1', 'r1/z1/s1', 'stable'],
  ['b', '10.5.0.2', 'r1/z1/s2', 'canary'],
  ['c', '10.5.0.3', 'r1/z2', 'stable'],
  ['d', '10.5.0.4', 'r2/z1', 'canary'],
  ['e', '10.5.0.5', 'r3/z1', 'stable'],
]
  .map(
    ([n, ip, loc, track]) => `---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${n}, namespace: default }
spec: { address: ${ip}, labels: { app: svc, track: ${track} }, locality: ${loc} }`,
  )
  .join('\n')}
`;
const withDr = (trafficPolicy: string): string => `${MESH}---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: svc, namespace: default }
spec:
  host: ${HOST}
  trafficPolicy: ${trafficPolicy}
`;
const OD = 'outlierDetection: { consecutive5xxErrors: 5, interval: 10s, baseEjectionTime: 30s }';
const R1Z1S1 = { region: 'r1', zone: 'z1', subZone: 's1' };

function config(yaml: string, locality: { region?: string; zone?: string; subZone?: string } = R1Z1S1, labels: Record<string, string> = { app: 'client', track: 'canary' }): any {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml), sidecarNode({ locality, metadata: { LABELS: labels, NAMESPACE: 'default' } }));
  return allSidecarResources(proxy, snap);
}

/** The load assignment in short: `priority:locality(weight)=endpoints` per group, in order. */
function shape(cfg: any): string[] {
  const la = cfg.endpoints.find((e: any) => e.clusterName === CLUSTER);
  return la.endpoints.map((g: any) => {
    const loc = [g.locality.region, g.locality.zone, g.locality.subZone].filter((x: string) => x).join('/');
    const eps = g.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address.split('.').pop()).join(',');
    return `${g.priority}:${loc}(${g.loadBalancingWeight.value})=${eps}`;
  });
}

const picked = (cfg: any): string[] => simulateRequest(cfg, { address: '10.96.5.1', port: 8080, host: 'svc:8080', path: '/' }).clusters![0]!.endpoints.map((e) => e.split(':')[0]!.split('.').pop()!);

describe('sidecar locality load balancing (localityLbSetting, as istiod)', () => {
  const cases: { name: string; yaml: string; locality?: object; want: string[]; reaches: string[] }[] = [
    {
      name: 'given no DestinationRule should put every locality at priority 0',
      yaml: MESH,
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '0:r1/z2(1)=3', '0:r2/z1(1)=4', '0:r3/z1(1)=5'],
      reaches: ['1', '2', '3', '4', '5'],
    },
    {
      name: 'given outlier detection alone should fail over by proximity (subzone, zone, region, elsewhere)',
      yaml: withDr(`{ ${OD} }`),
      want: ['0:r1/z1/s1(1)=1', '1:r1/z1/s2(1)=2', '2:r1/z2(1)=3', '3:r2/z1(1)=4', '3:r3/z1(1)=5'],
      reaches: ['1'],
    },
    {
      name: 'given outlier detection and enabled: false should leave priorities out',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { enabled: false } } }`),
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '0:r1/z2(1)=3', '0:r2/z1(1)=4', '0:r3/z1(1)=5'],
      reaches: ['1', '2', '3', '4', '5'],
    },
    {
      name: 'given failover without outlier detection should leave priorities out (Envoy would never fail over)',
      yaml: withDr('{ loadBalancer: { localityLbSetting: { failover: [{ from: r1, to: r3 }] } } }'),
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '0:r1/z2(1)=3', '0:r2/z1(1)=4', '0:r3/z1(1)=5'],
      reaches: ['1', '2', '3', '4', '5'],
    },
    {
      name: 'given failover r1 -> r3 should rank r3 before the other regions',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failover: [{ from: r1, to: r3 }] } } }`),
      want: ['0:r1/z1/s1(1)=1', '1:r1/z1/s2(1)=2', '2:r1/z2(1)=3', '3:r3/z1(1)=5', '4:r2/z1(1)=4'],
      reaches: ['1'],
    },
    {
      name: 'given failover from another region should rank by proximity only',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failover: [{ from: r2, to: r3 }] } } }`),
      want: ['0:r1/z1/s1(1)=1', '1:r1/z1/s2(1)=2', '2:r1/z2(1)=3', '3:r2/z1(1)=4', '3:r3/z1(1)=5'],
      reaches: ['1'],
    },
    {
      name: 'given failoverPriority on region and zone should rank by the labels shared with the proxy, not by subzone',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [topology.kubernetes.io/region, topology.kubernetes.io/zone] } } }`),
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '1:r1/z2(1)=3', '2:r2/z1(1)=4', '2:r3/z1(1)=5'],
      reaches: ['1', '2'],
    },
    {
      name: "given failoverPriority on a workload label should prefer endpoints with the proxy's value",
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [track] } } }`),
      want: ['0:r1/z1/s2(1)=2', '0:r2/z1(1)=4', '1:r1/z1/s1(1)=1', '1:r1/z2(1)=3', '1:r3/z1(1)=5'],
      reaches: ['2', '4'],
    },
    {
      name: 'given failoverPriority with label=value should prefer endpoints with that value whatever the proxy has',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [track=stable] } } }`),
      want: ['0:r1/z1/s1(1)=1', '0:r1/z2(1)=3', '0:r3/z1(1)=5', '1:r1/z1/s2(1)=2', '1:r2/z1(1)=4'],
      reaches: ['1', '3', '5'],
    },
    {
      name: 'given failoverPriority and failover should keep the label levels major and proximity minor',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [track], failover: [{ from: r1, to: r3 }] } } }`),
      want: ['0:r1/z1/s2(1)=2', '1:r2/z1(1)=4', '2:r1/z1/s1(1)=1', '3:r1/z2(1)=3', '4:r3/z1(1)=5'],
      reaches: ['2'],
    },
    {
      name: 'given distribute from the proxy locality should weight the to localities and empty the others',
      yaml: withDr(`{ loadBalancer: { localityLbSetting: { distribute: [{ from: r1/z1/*, to: { "r1/z1/*": 70, "r2/*": 30 } }] } } }`),
      want: ['0:r1/z1/s1(35)=1', '0:r1/z1/s2(35)=2', '0:r1/z2(1)=', '0:r2/z1(30)=4', '0:r3/z1(1)='],
      reaches: ['1', '2', '4'],
    },
    {
      name: 'given distribute from another locality should change nothing for this proxy',
      yaml: withDr(`{ loadBalancer: { localityLbSetting: { distribute: [{ from: r2/*, to: { "r2/*": 100 } }] } } }`),
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '0:r1/z2(1)=3', '0:r2/z1(1)=4', '0:r3/z1(1)=5'],
      reaches: ['1', '2', '3', '4', '5'],
    },
    {
      name: 'given a proxy without a locality should apply no locality LB',
      yaml: withDr(`{ ${OD}, loadBalancer: { localityLbSetting: { failover: [{ from: r1, to: r3 }] } } }`),
      locality: {},
      want: ['0:r1/z1/s1(1)=1', '0:r1/z1/s2(1)=2', '0:r1/z2(1)=3', '0:r2/z1(1)=4', '0:r3/z1(1)=5'],
      reaches: ['1', '2', '3', '4', '5'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cfg = config(c.yaml, c.locality);
      assert.deepEqual(checkConsistency(cfg), []);
      for (const e of cfg.endpoints) assert.deepEqual(validate(ENVOY.endpoint, encode(ENVOY.endpoint, e)), [], e.clusterName);
      assert.deepEqual(shape(cfg), c.want);
      assert.deepEqual(picked(cfg), c.reaches);
    });
  }

  const weighted: { name: string; tp: string; want: boolean }[] = [
    { name: 'distribute', tp: '{ loadBalancer: { localityLbSetting: { distribute: [{ from: r9/*, to: { "r1/*": 100 } }] } } }', want: true },
    { name: 'failover', tp: `{ ${OD}, loadBalancer: { localityLbSetting: { failover: [{ from: r1, to: r3 }] } } }`, want: true },
    { name: 'failoverPriority', tp: `{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [track] } } }`, want: true },
    { name: 'outlier detection alone', tp: `{ ${OD} }`, want: false },
    { name: 'enabled: false', tp: `{ ${OD}, loadBalancer: { localityLbSetting: { enabled: false, failover: [{ from: r1, to: r3 }] } } }`, want: false },
  ];
  for (const c of weighted) {
    it(`given ${c.name} should ${c.want ? '' : 'not '}set localityWeightedLbConfig on the cluster (as istiod)`, () => {
      const common = config(withDr(c.tp)).clusters.find((x: any) => x.name === CLUSTER).commonLbConfig;
      assert.equal(common?.localityWeightedLbConfig !== undefined, c.want);
    });
  }

  it('given locality LB for the proxy should key the cached load assignment by its locality, and by its labels for failoverPriority', () => {
    const key = (tp: string, node: Parameters<typeof sidecarNode>[0]): string => {
      const { proxy, snap } = sidecarAt(sidecarModel(withDr(tp)), sidecarNode(node));
      const ctx = snap.pushContext;
      return sidecarEndpointsKey(CLUSTER, ctx.service(HOST)!, ctx.destinationRule(HOST, proxy), '', 8080, proxy, ctx.meshConfig);
    };
    const at = (region: string, labels: Record<string, string> = { app: 'x' }): Parameters<typeof sidecarNode>[0] => ({ locality: { region, zone: 'z1' }, metadata: { LABELS: labels, NAMESPACE: 'default' } });
    const distribute = '{ loadBalancer: { localityLbSetting: { distribute: [{ from: r1/*, to: { "r1/*": 100 } }] } } }';
    assert.notEqual(key(distribute, at('r1')), key(distribute, at('r2')));
    const fp = `{ ${OD}, loadBalancer: { localityLbSetting: { failoverPriority: [track] } } }`;
    assert.notEqual(key(fp, at('r1', { track: 'a' })), key(fp, at('r1', { track: 'b' })));
    const plain = '{ connectionPool: { tcp: { maxConnections: 10 } } }';
    assert.equal(key(plain, at('r1')), key(plain, at('r2')));
  });

  const matches: [string, string, boolean][] = [
    ['r1/z1/s1', 'r1', true],
    ['r1/z1/s1', 'r1/*', true],
    ['r1/z1/s1', 'r1/z1/*', true],
    ['r1/z1/s1', 'r1/z2', false],
    ['r1/z1/s1', '*', true],
    ['r1/z1/s1', 'r2/*', false],
  ];
  for (const [loc, rule, want] of matches) {
    it(`given locality ${loc} and rule ${rule} should ${want ? '' : 'not '}match`, () => {
      const [region = '', zone = '', subZone = ''] = loc.split('/');
      assert.equal(localityMatches({ region, zone, subZone }, rule), want);
    });
  }
});
