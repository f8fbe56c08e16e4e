/**
 * One host, two namespace-private ServiceEntries, on one meshd over real ADS streams: the sidecars (and proxyless
 * gRPC clients) of each namespace get the same cluster name with their own namespace's load assignment, as
 * istiod's per-namespace SidecarScope and EDS shards per (host, namespace) give; an endpoint change of one team
 * reaches that team's proxies only, and the generator's cache never hands one team's bytes to the other.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { ENVOY } from '../sidecar/sidecar-names.js';
import { MeshHarness, until } from '../testing/mesh-harness.js';

const HOST = 'api.stripe.com';
const CLUSTER = `outbound|443||${HOST}`;

function entry(ns: string, created: string, address: string): string {
  return `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: stripe, namespace: ${ns}, creationTimestamp: "${created}" }
spec:
  hosts: [${HOST}]
  exportTo: ["."]
  location: MESH_EXTERNAL
  ports: [{ number: 443, name: tls, protocol: TLS }]
  resolution: STATIC
  endpoints: [{ address: ${address} }]
`;
}

const TEAMS = [entry('team-a', '2026-01-01T00:00:00Z', '127.0.1.1'), entry('team-b', '2026-02-01T00:00:00Z', '127.0.2.1')].join('---\n');

function node(ns: string, ip: string, proxyless: boolean): { id: string; metadata: Record<string, unknown> } {
  return { id: `sidecar~${ip}~client-1.${ns}~${ns}.svc.cluster.local`, metadata: { NAMESPACE: ns, LABELS: { app: 'client' }, ...(proxyless ? { GENERATOR: 'grpc' } : {}) } };
}

/** The addresses of the held load assignment of CLUSTER ([] when not held). */
function addresses(c: AdsClient): string[] {
  const held = c.held(TYPE_URL.endpoint).get(CLUSTER);
  if (!held) return [];
  const cla = decode(ENVOY.endpoint, held.body) as { endpoints?: { lbEndpoints?: { endpoint: { address: { socketAddress: { address: string } } } }[] }[] };
  return (cla.endpoints ?? []).flatMap((l) => (l.lbEndpoints ?? []).map((e) => e.endpoint.address.socketAddress.address)).sort();
}

describe('one host declared privately by two namespaces, over real ADS streams', function () {
  this.timeout(60_000);
  let mesh: MeshHarness | undefined;
  const clients: AdsClient[] = [];

  before(() => protoRoot());
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await mesh?.close();
    mesh = undefined;
  });

  it('given sidecars and proxyless clients of team-a and team-b on one meshd should give each the same cluster name with its own namespace\'s load assignment, and follow an endpoint change of team-b only', async () => {
    mesh = await MeshHarness.start();
    mesh.apply(TEAMS);
    const open = (ns: string, ip: string, proxyless: boolean): AdsClient => {
      const c = new AdsClient({ address: mesh!.xdsAddress, node: node(ns, ip, proxyless), autoAck: true });
      clients.push(c);
      // NOTE: a sidecar asks for CDS (wildcard) then the EDS names its clusters reference; a proxyless client asks
      // for the listener of its target, then the cluster and assignment by name.
      if (proxyless) c.subscribe(TYPE_URL.listener, [`${HOST}:443`]);
      c.subscribe(TYPE_URL.cluster, proxyless ? [CLUSTER] : []);
      c.subscribe(TYPE_URL.endpoint, [CLUSTER]);
      return c;
    };
    const sidecarA = open('team-a', '10.1.0.1', false);
    const sidecarB = open('team-b', '10.2.0.1', false);
    const grpcA = open('team-a', '10.1.0.2', true);
    const grpcB = open('team-b', '10.2.0.2', true);
    const all = (): string[][] => [sidecarA, sidecarB, grpcA, grpcB].map(addresses);
    const proxyless = [grpcA, grpcB];
    await until(
      () =>
        all().every((a) => a.length > 0) &&
        [sidecarA, sidecarB, ...proxyless].every((c) => c.held(TYPE_URL.cluster).has(CLUSTER)) &&
        proxyless.every((c) => c.held(TYPE_URL.listener).has(`${HOST}:443`)),
      'every client holds the cluster and its load assignment, every proxyless client its listener',
    );
    assert.deepEqual(all(), [['127.0.1.1'], ['127.0.2.1'], ['127.0.1.1'], ['127.0.2.1']]);

    mesh.apply(entry('team-b', '2026-02-01T00:00:00Z', '127.0.2.9'));
    await until(() => addresses(sidecarB)[0] === '127.0.2.9' && addresses(grpcB)[0] === '127.0.2.9', 'team-b\'s clients follow its endpoint change');
    assert.deepEqual(all(), [['127.0.1.1'], ['127.0.2.9'], ['127.0.1.1'], ['127.0.2.9']]);
  });
});
