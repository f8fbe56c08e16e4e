import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encode } from '../../../xds/index.js';
import { TYPES } from './bench-client.js';
import { leadingName, readDiscoveryResponse } from './response-wire.js';
import { endpointAddress } from './config-gen.js';
import { findMarker, findMarkerIn, markerFor, planEdits, SCENARIOS, type ResourceBytes } from './markers.js';
import { percentile } from '../stats.js';

const te = new TextEncoder();

function route(name: string, headerValue: string): ResourceBytes {
  const body = encode(TYPES.rds, {
    name,
    virtualHosts: [{ name: 'vh', domains: ['*'], routes: [{ match: { prefix: '/', headers: [{ name: 'x-bench-marker', stringMatch: { exact: headerValue } }] }, route: { cluster: 'c' } }] }],
  });
  return { name, body };
}

function endpoints(name: string, ip: string): ResourceBytes {
  const body = encode(TYPES.eds, {
    clusterName: name,
    endpoints: [{ locality: {}, loadBalancingWeight: { value: 1 }, lbEndpoints: [{ endpoint: { address: { socketAddress: { address: ip, portValue: 8080 } } } }] }],
  });
  return { name, body };
}

function cluster(name: string): ResourceBytes {
  return { name, body: encode(TYPES.cds, { name, type: 'EDS', edsClusterConfig: { edsConfig: { ads: {} }, serviceName: name } }) };
}

describe('bench:xds markers', () => {
  it('given 3 rounds should plan 12 edits with distinct markers, names usable as DNS labels', () => {
    const plan = planEdits('k3x9', 3);
    assert.equal(plan.edits.length, 12);
    assert.equal(new Set(plan.edits.map((e) => e.marker)).size, 12);
    for (const e of plan.edits) {
      if (e.scenario === 'endpoint') assert.match(e.marker, /^10\.250\.\d{1,3}\.\d{3}$/);
      else assert.match(e.marker, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    }
  });

  it('given the endpoint markers of 10 rounds should find none inside any generated address or other marker', () => {
    const all = SCENARIOS.flatMap((s) => Array.from({ length: 10 }, (_, r) => markerFor(s, 'zz9', r)));
    const addresses = Array.from({ length: 2000 }, (_, i) => endpointAddress(i, 0, 1));
    for (const m of all.filter((x) => x.startsWith('10.'))) {
      assert.equal(addresses.filter((a) => a.includes(m)).length, 0, m);
      assert.equal(all.filter((x) => x !== m && x.includes(m)).length, 0, m);
    }
  });

  const bad = [
    { name: 'given an upper-case run id should refuse naming runId', f: () => markerFor('vs-edit', 'ABC', 0), message: /^runId: / },
    { name: 'given round 256 should refuse naming round', f: () => markerFor('endpoint', 'abc', 256), message: /^round: / },
    { name: 'given 0 rounds should refuse naming rounds', f: () => planEdits('abc', 0), message: /^rounds: / },
    { name: 'given an empty marker should refuse the search', f: () => findMarker([], new Uint8Array()), message: /empty marker/ },
  ];
  for (const c of bad) it(c.name, () => assert.throws(c.f, { message: c.message }));

  const cases: { name: string; resources: ResourceBytes[]; marker: string; want: string | undefined }[] = [
    { name: 'given a route whose header match holds the marker should name that route', resources: [route('r1', 'other'), route('r2', 'bmvs-abc-0')], marker: 'bmvs-abc-0', want: 'r2' },
    { name: 'given endpoints with the marker IP should name the cluster', resources: [endpoints('c1', '10.1.0.1'), endpoints('c2', '10.250.0.123')], marker: '10.250.0.123', want: 'c2' },
    { name: 'given a cluster named after a new subset should name it', resources: [cluster('outbound|8080|v1|h'), cluster('outbound|8080|bmsub-abc-1|h')], marker: 'bmsub-abc-1', want: 'outbound|8080|bmsub-abc-1|h' },
    { name: 'given resources without the marker should find nothing', resources: [route('r1', 'bmvs-abc-1'), endpoints('c1', '10.1.0.1')], marker: 'bmvs-abc-0', want: undefined },
    { name: 'given no resources should find nothing', resources: [], marker: 'bmvs-abc-0', want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(findMarker(c.resources, te.encode(c.marker)), c.want));

  /** The resources of `c` as a client reads them: views of one encoded DiscoveryResponse, which carries `version`. */
  const inMessage = (resources: readonly ResourceBytes[], version: string): { message: Buffer; views: ResourceBytes[] } => {
    const message = Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { versionInfo: version, resources: resources.map((r) => ({ typeUrl: TYPES.cds, value: r.body })) }));
    return { message, views: readDiscoveryResponse(message).bodies.map((body, i) => ({ name: resources[i]!.name, body })) };
  };
  for (const c of cases) {
    it(`${c.name} (searching the message once)`, () => {
      const { message, views } = inMessage(c.resources, 'v1');
      assert.equal(findMarkerIn(message, () => views, te.encode(c.marker)), c.want);
    });
  }

  it('given the marker outside every resource (in the version) and then inside one should name the one that holds it', () => {
    const { message, views } = inMessage([cluster('outbound|80||a'), cluster('outbound|80||bmse-abc-0.ns')], 'bmse-abc-0');
    assert.equal(findMarkerIn(message, () => views, te.encode('bmse-abc-0')), 'outbound|80||bmse-abc-0.ns');
    const only = inMessage([cluster('outbound|80||a')], 'bmse-abc-0');
    assert.equal(findMarkerIn(only.message, () => only.views, te.encode('bmse-abc-0')), undefined, 'found in the version, which is no resource');
  });

  it('given any resources and marker should name what the one-by-one search names', () => {
    const text = fc.string({ unit: fc.constantFrom(...'abqvz-.019'), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), text, text, (names, marker, version) => {
        const { message, views } = inMessage(names.map((n) => cluster(n)), version);
        const m = te.encode(marker);
        assert.equal(findMarkerIn(message, () => views, m), findMarker(views, m));
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  it('given resources that are not views of a message holding the marker should search them one by one', () => {
    const r = [cluster('outbound|80||a'), cluster('outbound|80||bmsub-abc-1')];
    assert.equal(findMarkerIn(Buffer.from('bmsub-abc-1'), () => r, te.encode('bmsub-abc-1')), 'outbound|80||bmsub-abc-1');
  });

  it('given encoded listeners, clusters, routes and endpoints should read each name from field 1', () => {
    const listener = encode(TYPES.lds, { name: 'svc-0.ns-0.svc.cluster.local:8080', apiListener: {} });
    assert.equal(leadingName(listener), 'svc-0.ns-0.svc.cluster.local:8080');
    assert.equal(leadingName(cluster('outbound|8080||h').body), 'outbound|8080||h');
    assert.equal(leadingName(route('r9', 'x').body), 'r9');
    assert.equal(leadingName(endpoints('outbound|8080|v1|h', '10.1.0.1').body), 'outbound|8080|v1|h');
  });

  const pct: { name: string; values: number[]; p: number; want: number | undefined }[] = [
    { name: 'given 1..100 p50 should be 50', values: Array.from({ length: 100 }, (_, i) => i + 1), p: 50, want: 50 },
    { name: 'given 1..100 p99 should be 99', values: Array.from({ length: 100 }, (_, i) => 100 - i), p: 99, want: 99 },
    { name: 'given one value p99 should be it', values: [7], p: 99, want: 7 },
    { name: 'given no values should be undefined', values: [], p: 50, want: undefined },
  ];
  for (const c of pct) it(c.name, () => assert.equal(percentile(c.values, c.p), c.want));
});
