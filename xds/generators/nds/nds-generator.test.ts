import assert from 'node:assert/strict';
import { proxyRequestPush } from '../../../core/index.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { validate } from '../../protos/validate.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import { sidecarAt, sidecarModel } from '../sidecar/testing/sidecar-mesh.js';
import { generateNameTable, NAME_TABLE_MESSAGE } from './nds-generator.js';

const se = (name: string, ns: string, spec: string): string => `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: "${name}", namespace: ${ns}, creationTimestamp: "2026-01-01T00:00:00Z" }
spec: ${spec}
---
`;

const MESH = [
  // orchestrator services (made by the orchestrator registry as orch:<name>): one with a cluster IP, one headless
  se('orch:reviews', 'default', '{ hosts: [reviews.default.svc.cluster.local], addresses: [10.96.0.10], ports: [{ number: 9080, name: http, protocol: HTTP }], resolution: STATIC, location: MESH_INTERNAL }'),
  se('orch:db', 'default', '{ hosts: [db.default.svc.cluster.local], ports: [{ number: 5432, name: tcp, protocol: TCP }], resolution: NONE, location: MESH_INTERNAL, endpoints: [{ address: 10.1.0.1 }, { address: 10.1.0.2 }] }'),
  // a ServiceEntry with two virtual IPs
  se('api', 'default', '{ hosts: [api.example.com], addresses: [240.0.0.1, 240.0.0.2], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: DNS }'),
  // nothing to answer with: no address, a wildcard host, a CIDR
  se('dns-only', 'default', '{ hosts: [dns.example.com], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: DNS }'),
  se('wild', 'default', '{ hosts: ["*.wild.example.com"], addresses: [240.0.0.3], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: DNS }'),
  se('cidr', 'default', '{ hosts: [cidr.example.com], addresses: [10.0.0.0/24], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: NONE }'),
  // another namespace, visible everywhere
  se('orch:ratings', 'other', '{ hosts: [ratings.other.svc.cluster.local], addresses: [10.96.0.20], ports: [{ number: 9080, name: http, protocol: HTTP }], resolution: STATIC, location: MESH_INTERNAL }'),
].join('');

type Table = Record<string, { ips?: string[]; registry?: string; shortname?: string; namespace?: string }>;

function tableOf(yaml: string): Table {
  const { proxy, snap } = sidecarAt(sidecarModel(yaml));
  const { resources } = generateNameTable(proxy, proxyRequestPush(snap));
  assert.equal(resources.length, 1);
  assert.deepEqual(validate(NAME_TABLE_MESSAGE, resources[0]!.body), []);
  return (decode(NAME_TABLE_MESSAGE, resources[0]!.body) as { table?: Table }).table ?? {};
}

describe('NDS: the name table of a sidecar', () => {
  before(() => protoRoot());

  it('given orchestrator services, ServiceEntries and unanswerable hosts, should list each answerable host with its addresses, registry and short name', () => {
    assert.deepEqual(tableOf(MESH), {
      'api.example.com': { ips: ['240.0.0.1', '240.0.0.2'], registry: 'External' },
      'db.default.svc.cluster.local': { ips: ['10.1.0.1', '10.1.0.2'], registry: 'Kubernetes', shortname: 'db', namespace: 'default' },
      'ratings.other.svc.cluster.local': { ips: ['10.96.0.20'], registry: 'Kubernetes', shortname: 'ratings', namespace: 'other' },
      'reviews.default.svc.cluster.local': { ips: ['10.96.0.10'], registry: 'Kubernetes', shortname: 'reviews', namespace: 'default' },
    });
  });

  it('given a Sidecar whose egress keeps its own namespace, should leave out the hosts outside the scope', () => {
    const sidecar = 'apiVersion: networking.mesh.io/v1\nkind: Sidecar\nmetadata: { name: default, namespace: default }\nspec: { egress: [{ hosts: ["./*"] }] }\n';
    assert.deepEqual(Object.keys(tableOf(MESH + sidecar)).sort(), ['api.example.com', 'db.default.svc.cluster.local', 'reviews.default.svc.cluster.local']);
  });
});

describe('NDS over a real ADS stream', function () {
  this.timeout(60_000);
  let h: MeshHarness;
  let client: AdsClient;
  before(() => protoRoot());
  afterEach(async () => {
    client?.close();
    await h?.close();
  });

  it('given a sidecar subscribing to the name table, should get it and a new one when a ServiceEntry is added', async () => {
    h = await MeshHarness.start();
    h.apply(se('api', 'default', '{ hosts: [api.example.com], addresses: [240.0.0.1], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: DNS }'));
    client = new AdsClient({ address: h.xdsAddress, node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', DNS_CAPTURE: 'true' } }, autoAck: true });
    client.subscribe(TYPE_URL.nameTable);
    const hosts = (): string[] => {
      const r = client.latest(TYPE_URL.nameTable);
      if (!r || r.resources.length !== 1) return [];
      return Object.keys((decode(NAME_TABLE_MESSAGE, r.resources[0]!.body) as { table?: Table }).table ?? {}).sort();
    };
    await client.waitFor('the first name table', () => (hosts().includes('api.example.com') ? true : undefined));
    h.apply(se('db', 'default', '{ hosts: [db.example.com], addresses: [240.0.0.5], ports: [{ number: 5432, name: tcp, protocol: TCP }], resolution: STATIC, endpoints: [{ address: 10.2.0.1 }] }'));
    await client.waitFor('the name table with the new host', () => (hosts().join() === 'api.example.com,db.example.com' ? true : undefined));
  });
});
