import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { validateConfig } from '../../../crds/index.js';
import { clientListeners, clientSpecs } from './client-specs.js';
import {
  benchService, endpointAddress, generateMesh, newService, newServiceFile, serviceDocuments, toYaml, MARKER_HEADER, NO_EDITS, SUBSET_HEADER, type MeshSize,
} from './config-gen.js';
import { planEdits } from './markers.js';

type Doc = { kind: string; metadata: { name: string; namespace: string }; spec: Record<string, unknown> };

function docsOf(text: string): Doc[] {
  return parseAllDocuments(text).map((d) => d.toJSON() as Doc);
}

function invalid(docs: readonly Doc[]): string[] {
  return docs.flatMap((d) => {
    const r = validateConfig(d);
    return r.ok ? [] : [`${d.kind} ${d.metadata.namespace}/${d.metadata.name}: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`];
  });
}

describe('bench:xds config generator', () => {
  const size: MeshSize = { services: 23, namespaces: 10, endpointsPerService: 3 };

  it('given 23 services in 10 namespaces should write one file per service whose documents all validate', () => {
    const files = generateMesh(size);
    assert.equal(files.size, 23);
    const docs = [...files.values()].flatMap(docsOf);
    assert.equal(docs.length, 23 * (3 + 3));
    assert.deepEqual(invalid(docs), []);
    const kinds = new Map<string, number>();
    for (const d of docs) kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(kinds), { ServiceEntry: 23, WorkloadEntry: 69, VirtualService: 23, DestinationRule: 23 });
    const namespaces = new Set(docs.map((d) => d.metadata.namespace));
    assert.equal(namespaces.size, 10);
  });

  it('given 1,000 services should give every endpoint a distinct address outside 10.250.0.0/16', () => {
    const seen = new Set<string>();
    for (let s = 0; s < 1000; s++) for (let e = 0; e < 4; e++) seen.add(endpointAddress(s, e, 4));
    assert.equal(seen.size, 4000);
    assert.equal([...seen].filter((a) => a.startsWith('10.250.')).length, 0);
  });

  it('given every kind of edit should put each marker where the edit belongs and still validate', () => {
    const s = benchService(0, 10);
    const edits = { vsMarkers: ['bmvs-abc-0'], plannedSubsets: ['bmsub-abc-0', 'bmsub-abc-1'], addedSubsets: ['bmsub-abc-0'], endpoint: { address: '10.250.0.123', weight: 7 } };
    const docs = docsOf(toYaml(serviceDocuments(s, size, edits)));
    assert.deepEqual(invalid(docs), []);
    const vs = docs.find((d) => d.kind === 'VirtualService')!.spec as { http: { match?: { headers: Record<string, { exact: string }> }[]; route: { destination: { subset: string } }[] }[] };
    assert.equal(vs.http[0]!.match![0]!.headers[MARKER_HEADER]!.exact, 'bmvs-abc-0');
    assert.deepEqual(vs.http.filter((h) => h.match?.[0]?.headers[SUBSET_HEADER]).map((h) => h.route[0]!.destination.subset), ['bmsub-abc-0', 'bmsub-abc-1']);
    const dr = docs.find((d) => d.kind === 'DestinationRule')!.spec as { subsets: { name: string }[] };
    assert.deepEqual(dr.subsets.map((x) => x.name), ['v1', 'v2', 'bmsub-abc-0']);
    const wes = docs.filter((d) => d.kind === 'WorkloadEntry').map((d) => d.spec as { address: string; weight?: number });
    assert.deepEqual(wes[0], { ...wes[0], address: '10.250.0.123', weight: 7 });
    assert.equal(wes[1]!.address, endpointAddress(0, 1, 3));
  });

  it('given a new ServiceEntry edit should write a valid ServiceEntry and endpoint named by the marker', () => {
    const f = newServiceFile(newService('bmse-abc-0'), '10.250.0.7');
    const docs = docsOf(f.text);
    assert.deepEqual(invalid(docs), []);
    assert.equal(f.path, 'ns-0/bmse-abc-0.yaml');
    assert.deepEqual((docs[0]!.spec as { hosts: string[] }).hosts, ['bmse-abc-0.ns-0.svc.cluster.local']);
  });

  const bad: { name: string; size: MeshSize; message: RegExp }[] = [
    { name: 'given 0 services should refuse naming services', size: { ...size, services: 0 }, message: /^services: expected a positive integer, got 0$/ },
    { name: 'given 0 namespaces should refuse naming namespaces', size: { ...size, namespaces: 0 }, message: /^namespaces: / },
    { name: 'given 1.5 endpoints should refuse naming endpointsPerService', size: { ...size, endpointsPerService: 1.5 }, message: /^endpointsPerService: / },
  ];
  for (const c of bad) it(c.name, () => assert.throws(() => generateMesh(c.size), { message: c.message }));

  it('given no edits should render the same files twice (the generator is pure)', () => {
    assert.deepEqual(generateMesh(size, () => NO_EDITS), generateMesh(size));
  });

  it('given proxyless clients should ask for the edited service, other services and the hosts new-service edits will create', () => {
    const plan = { proxies: 20, proxyType: 'grpc' as const, xds: 'sotw' as const, services: 50, namespaces: 10, listenersPerClient: 3 };
    const edits = planEdits('abc', 2);
    const names = clientListeners(7, plan, edits);
    assert.equal(names[0], 'svc-0.ns-0.svc.cluster.local:8080');
    assert.equal(names.filter((n) => n.startsWith('svc-')).length, 3);
    assert.deepEqual(names.filter((n) => n.startsWith('bmse-')), ['bmse-abc-0.ns-0.svc.cluster.local:8080', 'bmse-abc-1.ns-0.svc.cluster.local:8080']);
    const specs = clientSpecs(plan, edits);
    assert.equal(new Set(specs.map((s) => s.node.id)).size, 20);
    assert.match(specs[3]!.node.id, /^sidecar~10\.251\.0\.3~client-3-00003\.ns-3~ns-3\.svc\.cluster\.local$/);
    assert.equal(specs[3]!.node.metadata?.['GENERATOR'], 'grpc');
    assert.equal(specs[3]!.node.metadata?.['NAMESPACE'], 'ns-3');
  });
});
