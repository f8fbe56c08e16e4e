/**
 * Delta CDS and service-scoped EDS for Envoy sidecars over real delta ADS streams (MESH_DELTA_XDS on), as
 * istiod's delta CDS: a push that changes only ServiceEntries and DestinationRules sends the clusters of the
 * services they shape (and the proxy's own, when they change), and removes the clusters those services no
 * longer have; EDS sends those services' assignments alone. After each edit (a new subset, a rule moved to
 * another host, the rule deleted, a service deleted) the proxy holds exactly what a fresh meshd serves.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { DeltaAdsClient, type DeltaResponse } from '../../testing/delta-ads-client.js';
import { ENVOY } from '../sidecar/sidecar-names.js';
import { edsNamesOf, rdsNamesOf, SIDECAR_MESH } from '../sidecar/testing/sidecar-mesh.js';
import { MeshHarness } from '../testing/mesh-harness.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const DB = 'db.data.svc.cluster.local';
const TYPES = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route] as const;
const MESSAGE: Readonly<Record<string, string>> = {
  [TYPE_URL.cluster]: ENVOY.cluster,
  [TYPE_URL.endpoint]: ENVOY.endpoint,
  [TYPE_URL.listener]: ENVOY.listener,
  [TYPE_URL.route]: ENVOY.route,
};
const NODE = { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', LABELS: { app: 'productpage' } } };

/** The mesh's DestinationRule for `host` with subsets v1-v3 (a new subset when `host` is reviews). */
function rule(host: string, generation: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default, generation: ${generation} }
spec:
  host: ${host}
  trafficPolicy: { tls: { mode: MESH_MUTUAL } }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v2, labels: { version: v2 } }
  - { name: v3, labels: { version: v3 } }
`;
}

/** A converging delta sidecar: CDS and LDS wildcard, then the EDS and RDS names they reference, as Envoy. */
class Sidecar {
  readonly client: DeltaAdsClient;
  #eds = new Set<string>();
  #rds = new Set<string>();
  constructor(address: string) {
    this.client = new DeltaAdsClient({ address, node: NODE, autoAck: true });
    this.client.subscribe(TYPE_URL.cluster, []);
    this.client.subscribe(TYPE_URL.listener, []);
  }

  /** What the proxy holds of a type; of EDS and RDS only the names it watches (Envoy drops what it unsubscribes). */
  held(t: string): Map<string, Uint8Array> {
    const watched = t === TYPE_URL.endpoint ? this.#eds : t === TYPE_URL.route ? this.#rds : undefined;
    return new Map([...this.client.held(t)].filter(([n]) => !watched || watched.has(n)).map(([n, r]) => [n, r.body]));
  }

  #follow(t: string, want: readonly string[], had: Set<string>): Set<string> {
    const add = want.filter((n) => !had.has(n));
    const drop = [...had].filter((n) => !want.includes(n));
    if (add.length > 0) this.client.subscribe(t, add);
    if (drop.length > 0) this.client.unsubscribe(t, drop);
    return new Set(want);
  }

  /** Resolves once the proxy holds everything CDS and LDS reference and `want` holds for its EDS names. */
  converge(want: (eds: readonly string[]) => boolean): Promise<readonly string[]> {
    return this.client.waitFor('a converged sidecar', () => {
      const clusters = [...this.held(TYPE_URL.cluster).values()].map((b) => decode(ENVOY.cluster, b));
      const listeners = [...this.held(TYPE_URL.listener).values()].map((b) => decode(ENVOY.listener, b));
      if (clusters.length === 0 || listeners.length === 0) return undefined;
      const e = edsNamesOf(clusters);
      const r = rdsNamesOf(listeners);
      this.#eds = this.#follow(TYPE_URL.endpoint, e, this.#eds);
      this.#rds = this.#follow(TYPE_URL.route, r, this.#rds);
      const complete = e.every((n) => this.held(TYPE_URL.endpoint).has(n)) && r.every((n) => this.held(TYPE_URL.route).has(n));
      return complete && want(e) ? e : undefined;
    }, 20_000);
  }
}

/** The pushes of one type after response `from`: names sent and removed. */
function pushed(c: DeltaAdsClient, from: number, t: string): { names: string[]; removed: string[] } {
  const rs = c.responses.slice(from).filter((r: DeltaResponse) => r.typeUrl === t);
  return { names: [...new Set(rs.flatMap((r) => r.resources.map((x) => x.name)))].sort(), removed: [...new Set(rs.flatMap((r) => r.removedResources))].sort() };
}

const decodeAll = (t: string, held: Map<string, Uint8Array>): Record<string, unknown>[] => [...held.keys()].sort().map((n) => decode(MESSAGE[t]!, held.get(n)!));

describe('delta CDS for sidecars over real delta ADS streams', function () {
  this.timeout(60_000);
  const meshes: MeshHarness[] = [];
  const clients: DeltaAdsClient[] = [];
  before(() => protoRoot());
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const m of meshes.splice(0)) await m.close();
  });

  /** Asserts the sidecar holds what a fresh meshd serves after `edit` on the base mesh. */
  async function assertFresh(p: Sidecar, edit: (m: MeshHarness) => void, want: (eds: readonly string[]) => boolean, step: string): Promise<void> {
    const fresh = await MeshHarness.start({}, { deltaXds: true });
    meshes.push(fresh);
    fresh.apply(SIDECAR_MESH);
    edit(fresh);
    const ref = new Sidecar(fresh.xdsAddress);
    clients.push(ref.client);
    await ref.converge(want);
    for (const t of TYPES) assert.deepEqual(decodeAll(t, p.held(t)), decodeAll(t, ref.held(t)), `${step}: ${t} equals a fresh meshd's`);
  }

  it('given ServiceEntry and DestinationRule edits should send only the changed services\' clusters and assignments, remove what they lost, and end as a fresh meshd', async () => {
    const mesh = await MeshHarness.start({}, { deltaXds: true });
    meshes.push(mesh);
    mesh.apply(SIDECAR_MESH);
    const p = new Sidecar(mesh.xdsAddress);
    clients.push(p.client);
    await p.converge((eds) => eds.includes(`outbound|9080|v1|${REVIEWS}`));

    // 1. A third subset: reviews' clusters alone, nothing removed; EDS: reviews' assignments alone.
    let from = p.client.responses.length;
    mesh.apply(rule(REVIEWS, 3));
    await p.converge((eds) => eds.includes(`outbound|9080|v3|${REVIEWS}`));
    let cds = pushed(p.client, from, TYPE_URL.cluster);
    assert.ok(cds.names.includes(`outbound|9080|v3|${REVIEWS}`), `the new subset's cluster is sent (got ${cds.names.join(', ')})`);
    assert.deepEqual(cds.names.filter((n) => !n.endsWith(`|${REVIEWS}`)), [], 'no other service\'s cluster is sent');
    assert.deepEqual(cds.removed, [], 'nothing is removed');
    assert.deepEqual(pushed(p.client, from, TYPE_URL.endpoint).names.filter((n) => !n.endsWith(`|${REVIEWS}`)), [], 'no other service\'s assignment is sent');
    await assertFresh(p, (m) => m.apply(rule(REVIEWS, 3)), (eds) => eds.includes(`outbound|9080|v3|${REVIEWS}`), 'new subset');

    // 2. The rule moves to db: reviews loses its subsets (removed) and its policy (its cluster again), db gains them.
    from = p.client.responses.length;
    mesh.apply(rule(DB, 4));
    await p.converge((eds) => eds.includes(`outbound|5432|v1|${DB}`) && !eds.some((n) => n.includes(`|v1|${REVIEWS}`)));
    cds = pushed(p.client, from, TYPE_URL.cluster);
    assert.deepEqual(cds.removed, ['v1', 'v2', 'v3'].map((s) => `outbound|9080|${s}|${REVIEWS}`), 'reviews\' subset clusters are removed');
    assert.ok(cds.names.includes(`outbound|9080||${REVIEWS}`) && cds.names.includes(`outbound|5432|v3|${DB}`), `both services' clusters are sent (got ${cds.names.join(', ')})`);
    assert.deepEqual(cds.names.filter((n) => !n.endsWith(`|${REVIEWS}`) && !n.endsWith(`|${DB}`)), [], 'no third service\'s cluster is sent');
    await assertFresh(p, (m) => m.apply(rule(DB, 4)), (eds) => eds.includes(`outbound|5432|v1|${DB}`), 'rule moved');

    // 3. The rule is deleted: db's subsets go.
    from = p.client.responses.length;
    mesh.remove('DestinationRule', 'default', 'reviews');
    await p.converge((eds) => !eds.some((n) => n.includes(`|v1|${DB}`)));
    cds = pushed(p.client, from, TYPE_URL.cluster);
    assert.deepEqual(cds.removed, ['v1', 'v2', 'v3'].map((s) => `outbound|5432|${s}|${DB}`), 'db\'s subset clusters are removed');
    await assertFresh(p, (m) => m.remove('DestinationRule', 'default', 'reviews'), (eds) => !eds.some((n) => n.includes('|v1|')), 'rule deleted');

    // 4. The db service is deleted: its cluster goes.
    from = p.client.responses.length;
    mesh.remove('ServiceEntry', 'data', 'db');
    await p.converge((eds) => !eds.includes(`outbound|5432||${DB}`));
    cds = pushed(p.client, from, TYPE_URL.cluster);
    assert.deepEqual(cds.removed, [`outbound|5432||${DB}`], 'db\'s cluster is removed');
    assert.deepEqual(cds.names.filter((n) => n.startsWith('outbound|')), [], 'no outbound cluster is sent again');
    await assertFresh(
      p,
      (m) => {
        m.remove('DestinationRule', 'default', 'reviews');
        m.remove('ServiceEntry', 'data', 'db');
      },
      (eds) => !eds.includes(`outbound|5432||${DB}`),
      'service deleted',
    );
  });
});
