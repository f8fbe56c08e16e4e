/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
/**
 * Two ServiceEntries of one host (istiod: EDS shards per host and namespace; the service a proxy sees is the
 * oldest, ports of a younger entry of its namespace merged in; endpoints matched by port number and name).
 */
import assert from 'node:assert/strict';
import { buildSidecarLoadAssignment } from './endpoint-builder.js';
import { allSidecarResources, externalEntryYaml, sidecarAt, sidecarModel, SIDECAR_MESH } from './testing/sidecar-mesh.js';

const HOST = 'api.partner.org';

function entry(name: string, ns: string, created: string, ports: string, resolution: string, addresses: string[]): string {
  return externalEntryYaml({ host: HOST, name, namespace: ns, created, ports, resolution, addresses });
}

const HTTP80 = '[{ number: 80, name: http, protocol: HTTP }]';

function build(yaml: string) {
  const { proxy, snap } = sidecarAt(sidecarModel(SIDECAR_MESH + yaml));
  const eds = (name: string): string[] =>
    (buildSidecarLoadAssignment(snap.pushContext, proxy, name, snap.endpoints, { sendUnhealthyEndpoints: false }) as any)?.endpoints.flatMap((l: any) =>
      l.lbEndpoints.map((e: any) => `${e.endpoint.address.socketAddress.address}:${e.endpoint.address.socketAddress.portValue}`),
    );
  return { snap, eds, cfg: () => allSidecarResources(proxy, snap) };
}

describe('two ServiceEntries of one host', () => {
  it('given entries in two namespaces should serve the endpoints of the older one\'s namespace only, both of its entries (EDS shards per host and namespace, as istiod)', () => {
    const { eds } = build(
      entry('api', 'ns-b', '2026-01-02T00:00:00Z', HTTP80, 'STATIC', ['127.0.0.53']) +
        entry('api-1', 'ns-a', '2026-01-01T00:00:00Z', HTTP80, 'STATIC', ['127.0.0.51']) +
        entry('api-2', 'ns-a', '2026-01-03T00:00:00Z', HTTP80, 'STATIC', ['127.0.0.52']),
    );
    assert.deepEqual(eds(`outbound|80||${HOST}`), ['127.0.0.51:80', '127.0.0.52:80']);
  });

  it('given DNS entries in two namespaces should resolve only the endpoints of the older one', () => {
    const { cfg } = build(entry('api', 'ns-a', '2026-01-02T00:00:00Z', HTTP80, 'DNS', ['a.example.org']) + entry('api', 'ns-b', '2026-01-01T00:00:00Z', HTTP80, 'DNS', ['b.example.org']));
    const c: any = cfg().clusters.find((x) => x['name'] === `outbound|80||${HOST}`);
    assert.deepEqual(
      c.loadAssignment.endpoints.flatMap((l: any) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.address)),
      ['b.example.org'],
    );
  });

  it('given a younger entry of the namespace with another port should add that port to the service, with its endpoints (not one with another resolution: istiod canMergeServices)', () => {
    const { eds, snap, cfg } = build(
      entry('api-1', 'ns-a', '2026-01-01T00:00:00Z', HTTP80, 'STATIC', ['127.0.0.51']) +
        entry('api-2', 'ns-a', '2026-01-02T00:00:00Z', '[{ number: 8443, name: tls, protocol: TLS }]', 'STATIC', ['127.0.0.52']) +
        entry('api-3', 'ns-a', '2026-01-03T00:00:00Z', '[{ number: 9443, name: tls2, protocol: TLS }]', 'DNS', ['c.example.org']),
    );
    assert.deepEqual(snap.pushContext.service(HOST)?.ports.map((p) => p.port), [80, 8443]);
    assert.deepEqual(eds(`outbound|8443||${HOST}`), ['127.0.0.52:8443']);
    assert.deepEqual(eds(`outbound|80||${HOST}`), ['127.0.0.51:80']);
    assert.ok(cfg().clusters.some((c) => c['name'] === `outbound|8443||${HOST}`));
  });

  it('given a younger entry of the namespace naming the same port otherwise should leave its endpoints out (istiod matches port names)', () => {
    const { eds } = build(
      entry('api-1', 'ns-a', '2026-01-01T00:00:00Z', HTTP80, 'STATIC', ['127.0.0.51']) + entry('api-2', 'ns-a', '2026-01-02T00:00:00Z', '[{ number: 80, name: web, protocol: HTTP }]', 'STATIC', ['127.0.0.52']),
    );
    assert.deepEqual(eds(`outbound|80||${HOST}`), ['127.0.0.51:80']);
  });
});
