import assert from 'node:assert/strict';
import { ORCH_NAME_PREFIX, type Service } from './service.js';
import { chooseServices, exportRank, NamespaceServiceChoice, viewerChoice } from './service-choice.js';

function svc(ns: string, name: string, created: string, exportTo: string[], ports: number[] = [443], host = 'api.example.com'): Service {
  return Object.freeze({
    hostname: host,
    namespace: ns,
    ports: ports.map((port) => ({ port, name: `p${port}`, protocol: 'TLS' as const })),
    resolution: 'STATIC' as const,
    location: 'MESH_EXTERNAL' as const,
    labels: {},
    addresses: [],
    exportTo,
    serviceAccounts: [],
    source: `ServiceEntry/${ns}/${name}`,
    creationTimestamp: created,
  }) as Service;
}

describe('exportRank (istiod ServiceIndex: private, exported by name, public)', () => {
  const cases: { name: string; exportTo: string[]; defaults: string[]; from: string; want: 0 | 1 | 2 | undefined }[] = [
    { name: 'given "." should be private to its namespace', exportTo: ['.'], defaults: ['*'], from: 'a', want: 0 },
    { name: 'given "." should be invisible elsewhere', exportTo: ['.'], defaults: ['*'], from: 'b', want: undefined },
    { name: 'given its own namespace by name should be private', exportTo: ['a'], defaults: ['*'], from: 'a', want: 0 },
    { name: 'given another namespace by name should be exported to it', exportTo: ['c'], defaults: ['*'], from: 'c', want: 1 },
    { name: 'given "*" with others should be public only (istiod ignores the rest)', exportTo: ['*', '.'], defaults: ['*'], from: 'a', want: 2 },
    { name: 'given "~" should be invisible', exportTo: ['~'], defaults: ['*'], from: 'a', want: undefined },
    { name: 'given none and private defaults should be private', exportTo: [], defaults: ['.'], from: 'a', want: 0 },
    { name: 'given none and public defaults should be public', exportTo: [], defaults: ['*'], from: 'b', want: 2 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(exportRank({ exportTo: c.exportTo, namespace: 'a' }, c.defaults, c.from), c.want));
});

describe('viewerChoice (istiod SidecarScope, unified scoping)', () => {
  const A = svc('a', 'x', '2026-01-01', ['*']);
  const B = svc('b', 'x', '2026-02-01', ['*']);
  const V = svc('v', 'x', '2026-03-01', ['*']);
  const orch = (ns: string): Service => svc(ns, `${ORCH_NAME_PREFIX}api`, '2026-04-01', ['*']);
  const cases: { name: string; imported: Service[]; want: Service | undefined }[] = [
    { name: 'given nothing imported should choose nothing', imported: [], want: undefined },
    { name: 'given declarations of other namespaces should choose the first', imported: [A, B], want: A },
    { name: 'given one of the viewer\'s namespace, seen last, should choose it', imported: [A, B, V], want: V },
    { name: 'given an orchestrator Service after a ServiceEntry of another namespace should choose the Service', imported: [A, orch('b')], want: orch('b') },
    { name: 'given an orchestrator Service after the viewer\'s own ServiceEntry should keep the viewer\'s', imported: [V, orch('b')], want: V },
    { name: 'given the viewer\'s ServiceEntry and Service should choose the Service', imported: [V, orch('v')], want: orch('v') },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(viewerChoice(c.imported, 'v'), c.want));
});

describe('NamespaceServiceChoice', () => {
  const publicA = svc('a', 'pub', '2026-01-01T00:00:00Z', ['*']);
  const privateB = svc('b', 'priv', '2026-02-01T00:00:00Z', ['.']);
  const toC = svc('b', 'to-c', '2026-03-01T00:00:00Z', ['c']);
  const other = svc('a', 'other', '2026-01-01T00:00:00Z', ['*'], [80], 'other.example.com');
  const all = [publicA, privateB, toC, other];
  const global = [...chooseServices(all).values()].sort((x, y) => (x.hostname < y.hostname ? -1 : 1));

  it('given a private, an exported and a public service of one host should pick per namespace in that order', () => {
    const choice = new NamespaceServiceChoice(all, global, ['*']);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((ns) => choice.serviceFor('api.example.com', ns)?.source), [publicA.source, privateB.source, toC.source, publicA.source]);
  });

  it('given a host one service declares should list the mesh-wide object itself for every namespace', () => {
    const choice = new NamespaceServiceChoice(all, global, ['*']);
    assert.equal(choice.visibleTo('b').find((s) => s.hostname === 'other.example.com'), other);
    assert.deepEqual(choice.visibleTo('b').map((s) => s.source), [privateB.source, other.source]);
  });

  it('given two mergeable services of one namespace should give every namespace that picks the older the same merged object', () => {
    const older = svc('a', 'one', '2026-01-01T00:00:00Z', ['*'], [443]);
    const younger = svc('a', 'two', '2026-02-01T00:00:00Z', ['*'], [8443]);
    const g = [...chooseServices([older, younger]).values()];
    const choice = new NamespaceServiceChoice([older, younger], g, ['*']);
    const inB = choice.serviceFor('api.example.com', 'b');
    assert.deepEqual(inB?.ports.map((p) => p.port), [443, 8443]);
    assert.equal(inB, g[0]);
    assert.equal(choice.serviceFor('api.example.com', 'c'), inB);
  });
});
