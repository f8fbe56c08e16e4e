/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { encode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { buildSidecarListeners } from './listener-builder.js';
import { ENVOY } from './sidecar-names.js';
import { sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const DB = 'db.data.svc.cluster.local';

/** The sidecar mesh with a DestinationRule for db (`spec` below `host`) and an optional VirtualService `tcp` list. */
function mesh(dr: string | undefined, tcp?: string): string {
  const parts = [SIDECAR_MESH];
  if (dr !== undefined) parts.push(`apiVersion: networking.mesh.io/v1\nkind: DestinationRule\nmetadata: { name: db, namespace: data }\nspec:\n  host: ${DB}\n${dr}`);
  if (tcp !== undefined) parts.push(`apiVersion: networking.mesh.io/v1\nkind: VirtualService\nmetadata: { name: db, namespace: data }\nspec:\n  hosts: [${DB}]\n  tcp:\n${tcp}`);
  return parts.join('\n---\n');
}

/** The tcp_proxy config of db's `10.96.0.30_5432` listener, after checking the listener passes protoc-gen-validate. */
function dbTcpProxy(yaml: string): any {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const l = buildSidecarListeners(snap.pushContext, proxy, snap.endpoints).find((x) => x['name'] === '10.96.0.30_5432') as any;
  assert.ok(l, 'listener 10.96.0.30_5432');
  assert.deepEqual(validate(ENVOY.listener, encode(ENVOY.listener, l)), []);
  const f = l.filterChains[0].filters.find((x: any) => x.name === 'envoy.filters.network.tcp_proxy');
  return f.typedConfig;
}

const SUBSETS = `  subsets:
  - { name: a, labels: { app: db } }
  - { name: b, labels: { app: db }, trafficPolicy: { loadBalancer: { simple: ROUND_ROBIN } } }
  - { name: c, labels: { app: db }, trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } } }`;
const SOURCE_IP = `  trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } }\n${SUBSETS}`;
const WANT = [{ sourceIp: {} }];

describe('source-IP hash on sidecar tcp_proxy (istiod maybeSetHashPolicy)', () => {
  before(function () {
    this.timeout(60_000);
    protoRoot();
  });

  const cases: { name: string; dr: string | undefined; tcp?: string; want: unknown }[] = [
    { name: 'given a rule hashing on the source IP and no VirtualService should hash the service\'s tcp_proxy on it', dr: SOURCE_IP, want: WANT },
    { name: 'given a rule hashing on a header should set no tcp hash policy (only the source IP applies to TCP)', dr: '  trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: x-user } } }', want: undefined },
    { name: 'given no DestinationRule should set no tcp hash policy', dr: undefined, want: undefined },
    { name: 'given a route to a subset without a load balancer should keep the rule\'s source-IP hash', dr: SOURCE_IP, tcp: '  - route: [{ destination: { host: db.data.svc.cluster.local, subset: a } }]', want: WANT },
    { name: 'given a route to a subset with a simple load balancer should drop it (as istiod)', dr: SOURCE_IP, tcp: '  - route: [{ destination: { host: db.data.svc.cluster.local, subset: b } }]', want: undefined },
    { name: 'given a route to a subset hashing on the source IP under a rule that does not should hash', dr: SUBSETS, tcp: '  - route: [{ destination: { host: db.data.svc.cluster.local, subset: c } }]', want: WANT },
    {
      name: 'given weighted routes should take the rule\'s own setting, not a subset\'s (as istiod)',
      dr: SOURCE_IP,
      tcp: '  - route:\n    - { destination: { host: db.data.svc.cluster.local, subset: b }, weight: 50 }\n    - { destination: { host: db.data.svc.cluster.local, subset: a }, weight: 50 }',
      want: WANT,
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(dbTcpProxy(mesh(c.dr, c.tcp)).hashPolicy, c.want));
  }
});
