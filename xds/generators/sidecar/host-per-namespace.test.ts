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
import { allSidecarResources, externalEntryYaml, sidecarAt, sidecarModel, sidecarNode, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const HOST = 'api.stripe.com';
const CLUSTER = `outbound|443||${HOST}`;

/** A ServiceEntry of HOST in `ns` with `exportTo`, created at `created`, with endpoints at `addresses`. */
function entry(ns: string, created: string, exportTo: string, resolution: string, addresses: string[], ports = '[{ number: 443, name: tls, protocol: TLS }]', name = 'stripe'): string {
  return externalEntryYaml({ host: HOST, name, namespace: ns, created, exportTo, ports, resolution, addresses });
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

/** A namespace-wide Sidecar in `ns` whose one egress listener imports `hosts`. */
const sidecarIn = (ns: string, hosts: string[]): string => `
---
apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: default, namespace: ${ns} }
spec:
  egress: [{ hosts: ${JSON.stringify(hosts)} }]
`;
const PUBLIC_A = entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']);
const PUBLIC_B = entry('team-b', '2026-02-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.2.1']);

type Seen = ReturnType<typeof seenFrom>;
const NONE: Seen = { clusters: [], endpoints: {}, listens: false };
const own = (address: string, port = 443): Seen => ({ clusters: [`outbound|${port}||${HOST}`], endpoints: { [`outbound|${port}||${HOST}`]: [`${address}:${port}`] }, listens: true });

describe('one service per host, chosen per proxy namespace', () => {
  const cases: { name: string; yaml: string; want: Record<Ns, Seen>; mesh?: object }[] = [
    {
      name: 'given two teams each declaring the host privately (STATIC) should give team-a and team-b each its own cluster, listener and endpoints, team-c neither',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': NONE },
    },
    {
      name: 'given two teams each declaring the host privately under REGISTRY_ONLY should give each team its own cluster and listener, team-c neither',
      yaml: TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      mesh: { outboundTrafficPolicy: { mode: 'REGISTRY_ONLY' } },
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': NONE },
    },
    {
      name: 'given two teams each declaring the host privately (DNS) should resolve each team\'s own endpoint, team-c neither',
      yaml: TEAM_A('DNS', ['a.example.org']) + TEAM_B('DNS', ['b.example.org']),
      want: { 'team-a': own('a.example.org'), 'team-b': own('b.example.org'), 'team-c': NONE },
    },
    {
      name: 'given a public entry in team-a and a younger private one in team-b should give team-b its own, team-a and team-c team-a\'s',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': own('127.0.1.1') },
    },
    {
      name: 'given a younger entry exported to team-c by name and an older public one should give team-c the one exported to it, the others the public one',
      yaml: entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']) + entry('team-b', '2026-02-01T00:00:00Z', '[team-c]', 'STATIC', ['127.0.2.1']),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.1.1'), 'team-c': own('127.0.2.1') },
    },
    {
      name: 'given two private entries of team-b with other ports and a private one in team-a should merge team-b\'s ports for team-b only (canMergeServices)',
      yaml:
        TEAM_A('STATIC', ['127.0.1.1']) +
        TEAM_B('STATIC', ['127.0.2.1']) +
        entry('team-b', '2026-03-01T00:00:00Z', '["."]', 'STATIC', ['127.0.2.2'], '[{ number: 8443, name: tls-alt, protocol: TLS }]', 'stripe-alt'),
      want: {
        'team-a': own('127.0.1.1'),
        'team-b': { clusters: [CLUSTER, `outbound|8443||${HOST}`], endpoints: { [CLUSTER]: ['127.0.2.1:443'], [`outbound|8443||${HOST}`]: ['127.0.2.2:8443'] }, listens: true },
        'team-c': NONE,
      },
    },
    {
      name: 'given two public entries should give each declaring team its own (istiod prefers the proxy\'s namespace), team-c the older',
      yaml: PUBLIC_A + PUBLIC_B,
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': own('127.0.1.1') },
    },
    {
      name: 'given two public entries and a Sidecar in team-c importing team-b/<host> should give team-c team-b\'s (istiod selects among every declaration)',
      yaml: PUBLIC_A + PUBLIC_B + sidecarIn('team-c', [`team-b/${HOST}`]),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': own('127.0.2.1') },
    },
    {
      name: 'given two public entries and a Sidecar in team-b importing team-a/<host> should give team-b team-a\'s (its own is not imported)',
      yaml: PUBLIC_A + PUBLIC_B + sidecarIn('team-b', [`team-a/${HOST}`]),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.1.1'), 'team-c': own('127.0.1.1') },
    },
    {
      name: 'given two public entries and a Sidecar in team-c importing */<host> should give team-c the older (the first selected), as without a Sidecar',
      yaml: PUBLIC_A + PUBLIC_B + sidecarIn('team-c', [`*/${HOST}`]),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': own('127.0.1.1') },
    },
    {
      name: 'given two public entries and a Sidecar in team-c importing team-a/<host> and then team-b/<host> in two egress listeners should keep the first listener\'s',
      yaml: PUBLIC_A + PUBLIC_B + sidecarIn('team-c', [`team-a/${HOST}`]).replace(']\n', `, { port: { number: 9999, protocol: TCP, name: tcp }, hosts: ["team-b/${HOST}"] }]\n`),
      want: { 'team-a': own('127.0.1.1'), 'team-b': own('127.0.2.1'), 'team-c': own('127.0.1.1') },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = Object.fromEntries((Object.keys(NAMESPACES) as Ns[]).map((ns) => [ns, seenFrom(c.yaml, ns, c.mesh)]));
      assert.deepEqual(got, c.want);
    });
  }

  it('given a Sidecar in team-c importing team-b/<host> and a DestinationRule in team-b should give team-c that rule\'s subset (the chosen service\'s namespace), team-a none', () => {
    const rule = `
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: stripe, namespace: team-b }
spec:
  host: ${HOST}
  subsets: [{ name: v1, labels: { version: v1 } }]
`;
    const { snap } = sidecarAt(sidecarModel(SIDECAR_MESH + PUBLIC_A + PUBLIC_B + sidecarIn('team-c', [`team-b/${HOST}`]) + rule));
    const clustersOf = (ns: Ns): string[] => allSidecarResources(proxyIn(ns, NAMESPACES[ns]), snap).clusters.map((c) => String(c['name'])).filter((n) => n.endsWith(`|${HOST}`)).sort();
    assert.deepEqual(
      { 'team-a': clustersOf('team-a'), 'team-c': clustersOf('team-c') },
      { 'team-a': [CLUSTER], 'team-c': [`outbound|443|v1|${HOST}`, CLUSTER] },
    );
  });

  it('given the generator\'s cache should serve each team its own cluster and load assignment (no key shared across the two choices)', async () => {
    const model = sidecarModel(SIDECAR_MESH + TEAM_A('STATIC', ['127.0.1.1']) + TEAM_B('STATIC', ['127.0.2.1']));
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache: new XdsCache({ maxSize: 10_000 }) });
    const push = proxyRequestPush(model.snapshot);
    const eds = async (p: Proxy, req: PushRequest): Promise<string[]> => {
      const r = await gen.generate(p, { typeUrl: TYPE_URL.endpoint, names: new Set([CLUSTER]), wildcard: false }, req);
      return r.resources.flatMap((x) => ((decode(ENVOY.endpoint, x.body) as any).endpoints ?? []).flatMap((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address)));
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

  it('given a host two namespaces declare privately with a workloadSelector should give each team\'s server sidecar its inbound cluster (the entry of its own namespace)', () => {
    const team = (ns: string, created: string, ip: string): string => `
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: pay, namespace: ${ns}, creationTimestamp: "${created}" }
spec:
  hosts: [pay.internal]
  exportTo: ["."]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP, targetPort: 9090 }]
  resolution: STATIC
  workloadSelector: { labels: { app: pay } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: pay-1, namespace: ${ns} }
spec: { address: ${ip}, labels: { app: pay }, serviceAccount: pay }
`;
    const { snap } = sidecarAt(sidecarModel(SIDECAR_MESH + team('team-a', '2026-01-01T00:00:00Z', '10.1.0.5') + team('team-b', '2026-02-01T00:00:00Z', '10.2.0.5')));
    const inbound = (ns: string, ip: string): string[] =>
      allSidecarResources(proxyFromNode(sidecarNode({ id: `sidecar~${ip}~pay-1.${ns}~${ns}.svc.cluster.local`, ipAddresses: [ip], podName: 'pay-1', namespace: ns, metadata: { LABELS: { app: 'pay' }, NAMESPACE: ns } })), snap)
        .clusters.map((c) => String(c['name']))
        .filter((n) => n.startsWith('inbound|'));
    assert.deepEqual([inbound('team-a', '10.1.0.5'), inbound('team-b', '10.2.0.5')], [['inbound|9090||'], ['inbound|9090||']]);
  });

  it('given an entry exported to team-c by name added after team-c got the public one should move team-c\'s cached cluster and assignment to it (the push names the host)', async () => {
    const model = sidecarModel(SIDECAR_MESH + entry('team-a', '2026-01-01T00:00:00Z', '["*"]', 'STATIC', ['127.0.1.1']));
    const gen = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache: new XdsCache({ maxSize: 10_000 }) });
    const c = proxyIn('team-c', NAMESPACES['team-c']);
    const eds = async (req: PushRequest): Promise<string[]> => {
      const r = await gen.generate(c, { typeUrl: TYPE_URL.endpoint, names: new Set([CLUSTER]), wildcard: false }, req);
      return r.resources.flatMap((x) => ((decode(ENVOY.endpoint, x.body) as any).endpoints ?? []).flatMap((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address)));
    };
    const clusterOf = async (req: PushRequest): Promise<string> => {
      const r = await gen.generate(c, { typeUrl: TYPE_URL.cluster, names: new Set(), wildcard: true }, req);
      const x = r.resources.find((y) => y.name === CLUSTER);
      return x ? JSON.stringify(decode(ENVOY.cluster, x.body)) : '';
    };
    const first = proxyRequestPush(model.snapshot);
    const before = await clusterOf(first);
    assert.deepEqual([before.includes('"stringValue":"team-a"'), await eds(first)], [true, ['127.0.1.1']]);
    const req = model.apply(configsFromYaml(entry('team-b', '2026-02-01T00:00:00Z', '[team-c]', 'STATIC', ['127.0.2.1'])).map((x) => configEvent(x, 'added')));
    assert.ok(req);
    model.rebuild();
    const next = withSnapshot(req, model.snapshot);
    assert.ok([...next.configsUpdated].some((k) => k.kind === 'ServiceEntry' && k.name === HOST), 'the push names the host');
    gen.invalidate(next);
    // NOTE: the cluster's metadata names the namespace of the service it was built from.
    const after = await clusterOf(next);
    assert.deepEqual([after.includes('"stringValue":"team-b"'), after.includes('"stringValue":"team-a"'), await eds(next)], [true, false, ['127.0.2.1']]);
  });
});
