/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * One service per host, chosen per proxy namespace (istiod's default SidecarScope: private services of the
 * proxy's namespace, then those exported to it by name, then public ones; EDS shards per host and namespace).
 */
import assert from 'node:assert/strict';
import { proxyFromNode, proxyRequestPush, withSnapshot, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../cache/xds-cache.js';
import { decode } from '../../protos/codec.js';
import { TYPE_URL } from '../../server/contracts.js';
import { configEvent, configsFromYaml } from '../testing/model-fixtures.js';
import { SidecarGenerator } from './sidecar-generator.js';
import { ENVOY } from './sidecar-names.js';
import { allSidecarResources, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const HOST = 'api.stripe.com';
const CLUSTER = `outbound|443||${HOST}`;

/** A ServiceEntry of HOST in `ns` with `exportTo`, created at `created`, with endpoints at `addresses`. */
function entry(ns: string, created: string, exportTo: string, resolution: string, addresses: string[], ports = '[{ number: 443, name: tls, protocol: TLS }]', name = 'stripe'): string {
  return `
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ${name}, namespace: ${ns}, creationTimestamp: "${created}" }
spec:
  hosts: [${HOST}]
  exportTo: ${exportTo}
  location: MESH_EXTERNAL
  ports: ${ports}
  resolution: ${resolution}
  endpoints: [${addresses.map((a) => `{ address: ${a} }`).join(', ')}]
`;
}

function proxyIn(ns: string, ip: string): Proxy {
  return proxyFromNode(sidecarNode({ id: `sidecar~${ip}~c-${ns}.${ns}~${ns}.svc.cluster.local`, ipAddresses: [ip], podName: `c-${ns}`, namespace: ns, metadata: { LABELS: { app: 'client' }, NAMESPACE: ns } }));
}

const NAMESPACES = { 'team-a': '10.1.0.1', 'team-b': '10.2.0.1', 'team-c': '10.3.0.1' } as const;
type Ns = keyof typeof NAMESPACES;

/** What a proxy of `ns` gets for HOST from the real builders: its clusters of the host, their endpoints (EDS or DNS), whether a listener names it. */
function seenFrom(yaml: string, ns: Ns, mesh = {}): { clusters: string[]; endpoints: Record<string, string[]>; listens: boolean } {
  const { snap } = sidecarAt(sidecarModel(SIDECAR_MESH + yaml, mesh));
  const cfg = allSidecarResources(proxyIn(ns, NAMESPACES[ns]), snap);
  const mine = cfg.clusters.filter((c) => String(c['name']).endsWith(`||${HOST}`));
  const addr = (la: any): string[] => (la?.endpoints ?? []).flatMap((l: any) => l.lbEndpoints.map((e: any) => `${e.endpoint.address.socketAddress.address}:${e.endpoint.address.socketAddress.portValue}`));
  const endpoints: Record<string, string[]> = {};
  for (const c of mine as any[]) endpoints[c.name] = c.loadAssignment ? addr(c.loadAssignment) : addr(cfg.endpoints.find((e) => e['clusterName'] === c.name));
  return { clusters: mine.map((c) => String(c['name'])).sort(), endpoints, listens: JSON.stringify(cfg.listeners).includes(`|${HOST}`) };
}

const TEAM_A = (resolution: string, addresses: string[]): string => entry('team-a', '2026-01-01T00:00:00Z', '["."]', resolution, addresses);
const TEAM_B = (resolution: string, addresses: string[]): string => entry('team-b', '2026-02-01T00:00:00Z', '["."]', resolution, addresses);

describe('one service per host, chosen per proxy namespace', () => {
  const cases: { name: string; yaml: string; ns: Ns; want: { clusters: string[]; endpoints: Record<string, string[]>; listens: boolean }; mesh?: object }[] = [
    {
      name: 'given two teams each declaring the host privately (STATIC) should give team-a its own endpoints',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-a',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.1.1:443'] }, listens: true },
    },
    {
      name: 'given two teams each declaring the host privately (STATIC) should give team-b its own cluster, listener and endpoints',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-b',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.2.1:443'] }, listens: true },
    },
    {
      name: 'given two teams each declaring the host privately (REGISTRY_ONLY) should give team-b its own cluster and listener',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-b',
      mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } },
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.2.1:443'] }, listens: true },
    },
    {
      name: 'given two teams each declaring the host privately should give a third namespace neither',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-c',
      want: { clusters: [], endpoints: {}, listens: false },
    },
    {
      name: 'given two teams each declaring the host privately (DNS) should resolve team-b\'s own endpoint for team-b',
      yaml: TEAM_A('DNS', ['a.example.org']) + TEAM_B('DNS', ['b.example.org']),
      ns: 'team-b',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['b.example.org:443'] }, listens: true },
    },
    {
      name: 'given a public entry in team-a and a younger private one in team-b should give team-b its own',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-b',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.2.1:443'] }, listens: true },
    },
    {
      name: 'given a public entry in team-a and a private one in team-b should give team-c team-a\'s',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      ns: 'team-c',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.1.1:443'] }, listens: true },
    },
    {
      name: 'given a younger entry exported to team-c by name and an older public one should give team-c the one exported to it',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + entry('team-b', '2026-02-01T00:00:00Z', '[team-c]', 'STATIC', ['127.0.2.1']),
      ns: 'team-c',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.2.1:443'] }, listens: true },
    },
    {
      name: 'given a younger entry exported to team-c by name and an older public one should give team-b (which the entry is not exported to) the public one',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + entry('team-b', '2026-02-01T00:00:00Z', '[team-c]', 'STATIC', ['127.0.2.1']),
      ns: 'team-b',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.1.1:443'] }, listens: true },
    },
    {
      name: 'given two private entries of team-b with other ports and a private one in team-a should merge team-b\'s ports for team-b (canMergeServices)',
      yaml:
        TEAM_A('STATIC', ['127.0.1.1']) +
        TEAM_B('STATIC', ['127.0.2.1']) +
        entry('team-b', '2026-03-01T00:00:00Z', '["."]', 'STATIC', ['127.0.2.2'], '[{ number: 8443, name: tls-alt, protocol: TLS }]', 'stripe-alt'),
      ns: 'team-b',
      want: { clusters: [CLUSTER, `outbound|8443||${HOST}`], endpoints: { [CLUSTER]: ['127.0.2.1:443'], [`outbound|8443||${HOST}`]: ['127.0.2.2:8443'] }, listens: true },
    },
    {
      name: 'given two private entries of team-b with other ports should leave team-a with its own port only',
      yaml:
        TEAM_A('STATIC', ['127.0.1.1']) +
        TEAM_B('STATIC', ['127.0.2.1']) +
        entry('team-b', '2026-03-01T00:00:00Z', '["."]', 'STATIC', ['127.0.2.2'], '[{ number: 8443, name: tls-alt, protocol: TLS }]', 'stripe-alt'),
      ns: 'team-a',
      want: { clusters: [CLUSTER], endpoints: { [CLUSTER]: ['127.0.1.1:443'] }, listens: true },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(seenFrom(c.yaml, c.ns, c.mesh), c.want));

  it('given the generator\'s cache should serve each team its own cluster and load assignment (no key shared across the two choices)', async () => {
    const model = sidecarModel(SIDECAR_MESH + TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']));
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache: new XdsCache({ maxSize: 10_000 }) });
    const push = proxyRequestPush(model.snapshot);
    const eds = async (p: Proxy, req: PushRequest): Promise<string[]> => {
      const r = await gen.generate(p, { typeUrl: TYPE_URL.endpoint, names: new Set([CLUSTER]), wildcard: false }, req);
      return r.resources.flatMap((x) => (decode(ENVOY.endpoint, x.body) as any).endpoints.flatMap((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address)));
    };
    const cds = async (p: Proxy, req: PushRequest): Promise<string[]> => {
      const r = await gen.generate(p, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, req);
      return r.resources.map((x) => x.name).filter((n) => n === CLUSTER);
    };
    const a = proxyIn('team-a', NAMESPACES['team-a']);
    const b = proxyIn('team-b', NAMESPACES['team-b']);
    assert.deepEqual([await cds(a, push), await eds(a, push)], [[CLUSTER], ['127.0.1.1']]);
    assert.deepEqual([await cds(b, push), await eds(b, push)], [[CLUSTER], ['127.0.2.1']]);
    // NOTE: team-b's entry moves its endpoint; team-a's cached assignment stays, team-b's is rebuilt.
    const req = model.apply(configsFromYaml(TEAM_B('STATIC', ['127.0.2.9'])).map((c) => configEvent(c, 'updated')));
    assert.ok(req);
    model.rebuild();
    const next = withSnapshot(req, model.snapshot);
    gen.invalidate(next);
    assert.deepEqual([await eds(a, next), await eds(b, next)], [['127.0.1.1'], ['127.0.2.9']]);
  });

  it('given a single public entry should give every namespace the same service object (the mesh-wide choice)', () => {
    const { snap } = sidecarAt(sidecarModel(SIDECAR_MESH + entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1'])));
    const ctx = snap.pushContext;
    assert.equal(ctx.serviceFor(HOST, 'team-b'), ctx.service(HOST));
    assert.equal(ctx.serviceFor(HOST, 'team-a'), ctx.service(HOST));
  });
});
