/**
 * Incremental EDS over real ADS streams: an endpoint-only change of one service sends only that
 * service's ClusterLoadAssignments (SotW: a response with a subset of the watched names, which EDS
 * allows; delta: only the changed resources, nothing removed), a DestinationRule change sends a sidecar its
 * services' assignments (a proxyless client every watched one), a new EDS subscription is answered with the new names alone
 * (SotW too: EDS is not full-state), and afterwards the proxy holds exactly what a fresh meshd serves
 * for the final config. Envoy sidecars (LDS/CDS wildcard, then the RDS and EDS names they reference)
 * and proxyless gRPC nodes (EDS by name), on both protocols.
 */
import assert from 'node:assert/strict';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { DeltaAdsClient } from '../../testing/delta-ads-client.js';
import { ENVOY } from '../sidecar/sidecar-names.js';
import { edsNamesOf, rdsNamesOf, SIDECAR_MESH } from '../sidecar/testing/sidecar-mesh.js';
import { MeshHarness } from '../testing/mesh-harness.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const DB = 'db.data.svc.cluster.local';
const REVIEWS_CLAS = [`outbound|9080||${REVIEWS}`, `outbound|9080|v1|${REVIEWS}`, `outbound|9080|v2|${REVIEWS}`];
const DB_CLAS = [`outbound|5432||${DB}`];
const TYPES = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.listener, TYPE_URL.route] as const;
const MESSAGE: Readonly<Record<string, string>> = {
  [TYPE_URL.cluster]: ENVOY.cluster,
  [TYPE_URL.endpoint]: ENVOY.endpoint,
  [TYPE_URL.listener]: ENVOY.listener,
  [TYPE_URL.route]: ENVOY.route,
};

function workload(name: string, address: string, labels: string): string {
  return `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${name}, namespace: default }
spec: { address: ${address}, labels: { ${labels} }, locality: r1/z1, serviceAccount: reviews }
`;
}

const NEW_REVIEWS_V1 = workload('reviews-v1b', '127.0.0.23', 'app: reviews, version: v1');
const NEW_DB = workload('db-2', '127.0.0.32', 'app: db').replace('namespace: default', 'namespace: data');
const RATINGS = 'ratings.default.svc.cluster.local';
/** A new service: a full push that names only a ServiceEntry (its own host). */
const NEW_RATINGS = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: ratings, namespace: default }
spec:
  hosts: [${RATINGS}]
  addresses: [10.96.0.40]
  location: MESH_INTERNAL
  ports: [{ number: 9080, name: http, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: ratings } }
---
${workload('ratings-1', '127.0.0.41', 'app: ratings')}`;
const MOVED_DB = NEW_DB.replace('127.0.0.32', '127.0.0.33');
/** The mesh's DestinationRule with a third subset: a full push that adds a cluster and its assignment. */
const DR_WITH_V3 = `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default, generation: 3 }
spec:
  host: ${REVIEWS}
  trafficPolicy: { tls: { mode: MESH_MUTUAL } }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v2, labels: { version: v2 } }
  - { name: v3, labels: { version: v3 } }
`;

/** One response as the test sees it: its type and the names it carries (and, for delta, removes). */
interface Seen {
  readonly typeUrl: string;
  readonly names: readonly string[];
  readonly removed: readonly string[];
}

/** A proxy on one protocol: what it subscribes to, what it holds, what it received. */
interface TestProxy {
  subscribe(typeUrl: string, names: readonly string[]): void;
  /** name -> bytes (hex) of what the proxy holds now. */
  held(typeUrl: string): Map<string, string>;
  responses(): readonly Seen[];
  close(): void;
}

function sotwProxy(address: string, node: { id: string; metadata: Record<string, unknown> }): TestProxy {
  const c = new AdsClient({ address, node, autoAck: true });
  const subscribed = new Map<string, string>();
  return {
    subscribe: (t, names) => {
      if (subscribed.get(t) === JSON.stringify(names)) return;
      subscribed.set(t, JSON.stringify(names));
      c.subscribe(t, names);
    },
    held: (t) => new Map([...c.held(t).values()].map((x) => [x.name, Buffer.from(x.body).toString('hex')])),
    responses: () => c.responses.map((r) => ({ typeUrl: r.typeUrl, names: r.resources.map((x) => x.name), removed: [] })),
    close: () => c.close(),
  };
}

function deltaProxy(address: string, node: { id: string; metadata: Record<string, unknown> }): TestProxy {
  const c = new DeltaAdsClient({ address, node, autoAck: true });
  const subscribed = new Map<string, Set<string>>();
  return {
    subscribe: (t, names) => {
      const had = subscribed.get(t);
      if (had && had.size === names.length && names.every((n) => had.has(n))) return;
      if (!had) {
        subscribed.set(t, new Set(names));
        c.subscribe(t, names);
        return;
      }
      const add = names.filter((n) => !had.has(n));
      const drop = [...had].filter((n) => !names.includes(n));
      subscribed.set(t, new Set(names));
      if (add.length > 0) c.subscribe(t, add);
      if (drop.length > 0) c.unsubscribe(t, drop);
    },
    held: (t) => new Map([...c.held(t)].map(([n, x]) => [n, Buffer.from(x.body).toString('hex')])),
    responses: () => c.responses.map((r) => ({ typeUrl: r.typeUrl, names: r.resources.map((x) => x.name), removed: r.removedResources })),
    close: () => c.close(),
  };
}

/** Polls `cond` until it gives a value or the deadline passes (no fixed sleeps). */
async function until<T>(what: string, cond: () => T | undefined, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = cond();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const decodeAll = (t: string, held: Map<string, string>): Record<string, unknown>[] =>
  [...held.keys()].sort().map((n) => decode(MESSAGE[t]!, Buffer.from(held.get(n)!, 'hex')));

/** Addresses in a held assignment. */
function addressesOf(held: Map<string, string>, name: string): string[] {
  const hex = held.get(name);
  if (hex === undefined) return [];
  const cla = decode(ENVOY.endpoint, Buffer.from(hex, 'hex')) as { endpoints?: { lbEndpoints?: { endpoint: { address: { socketAddress: { address: string } } } }[] }[] };
  return (cla.endpoints ?? []).flatMap((l) => (l.lbEndpoints ?? []).map((e) => e.endpoint.address.socketAddress.address));
}

interface Kind {
  readonly name: string;
  readonly node: { id: string; metadata: Record<string, unknown> };
  /** Subscribes as the proxy does and resolves once it holds a complete set (types it watches). */
  converge(p: TestProxy, want: (eds: readonly string[]) => boolean): Promise<readonly string[]>;
}

const SIDECAR: Kind = {
  name: 'an Envoy sidecar',
  node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', LABELS: { app: 'productpage' } } },
  converge: async (p, want) => {
    p.subscribe(TYPE_URL.cluster, []);
    p.subscribe(TYPE_URL.listener, []);
    // NOTE: as Envoy, follow what CDS and LDS reference until the EDS and RDS names stop changing.
    let eds: string[] = [];
    let rds: string[] = [];
    return until('a converged sidecar', () => {
      const clusters = decodeAll(TYPE_URL.cluster, p.held(TYPE_URL.cluster));
      const listeners = decodeAll(TYPE_URL.listener, p.held(TYPE_URL.listener));
      if (clusters.length === 0 || listeners.length === 0) return undefined;
      const e = edsNamesOf(clusters);
      const r = rdsNamesOf(listeners);
      if (JSON.stringify(e) !== JSON.stringify(eds)) p.subscribe(TYPE_URL.endpoint, (eds = e));
      if (JSON.stringify(r) !== JSON.stringify(rds)) p.subscribe(TYPE_URL.route, (rds = r));
      const complete = e.every((n) => p.held(TYPE_URL.endpoint).has(n)) && r.every((n) => p.held(TYPE_URL.route).has(n));
      return complete && want(e) ? e : undefined;
    });
  },
};

const PROXYLESS: Kind = {
  name: 'a proxyless gRPC client',
  node: { id: 'sidecar~10.0.0.2~client-1.default~default.svc.cluster.local', metadata: { GENERATOR: 'grpc', NAMESPACE: 'default' } },
  converge: async (p, want) => {
    const v3 = `outbound|9080|v3|${REVIEWS}`;
    const names = [...REVIEWS_CLAS, ...DB_CLAS, ...(want([v3]) ? [v3] : [])];
    p.subscribe(TYPE_URL.endpoint, names);
    const held = (): string[] => [...p.held(TYPE_URL.endpoint).keys()].sort();
    return until('the proxyless client holds every assignment', () => (names.every((n) => p.held(TYPE_URL.endpoint).has(n)) ? held() : undefined));
  },
};

const CASES = [
  { kind: SIDECAR, protocol: 'sotw' as const, make: sotwProxy },
  { kind: SIDECAR, protocol: 'delta' as const, make: deltaProxy },
  { kind: PROXYLESS, protocol: 'sotw' as const, make: sotwProxy },
  { kind: PROXYLESS, protocol: 'delta' as const, make: deltaProxy },
];

describe('incremental EDS over real ADS streams', function () {
  this.timeout(60_000);
  const meshes: MeshHarness[] = [];
  const proxies: TestProxy[] = [];

  before(() => protoRoot());
  afterEach(async () => {
    for (const p of proxies.splice(0)) p.close();
    for (const m of meshes.splice(0)) await m.close();
  });

  for (const c of CASES) {
    it(`given ${c.kind.name} on ${c.protocol} and an endpoint change of one service should send only that service's assignments, a new service's alone, a rule's services' (proxyless: all) on a rule change, a new subscription alone, and end as a fresh meshd`, async () => {
      const mesh = await MeshHarness.start();
      meshes.push(mesh);
      mesh.apply(SIDECAR_MESH);
      const p = c.make(mesh.xdsAddress, c.kind.node);
      proxies.push(p);
      const withV1 = (eds: readonly string[]): boolean => eds.includes(`outbound|9080|v1|${REVIEWS}`) && !eds.some((n) => n.includes('|v3|'));
      const watchedBefore = await c.kind.converge(p, withV1);

      // 1. An endpoint of reviews v1, then (as a sentinel that every earlier push has arrived) one of db.
      const from = p.responses().length;
      mesh.apply(NEW_REVIEWS_V1);
      await until('the new reviews endpoint', () => (addressesOf(p.held(TYPE_URL.endpoint), `outbound|9080|v1|${REVIEWS}`).includes('127.0.0.23') ? true : undefined));
      mesh.apply(NEW_DB);
      await until('the new db endpoint', () => (addressesOf(p.held(TYPE_URL.endpoint), DB_CLAS[0]!).includes('127.0.0.32') ? true : undefined));
      const pushed = p.responses().slice(from);
      assert.deepEqual(pushed.filter((r) => r.typeUrl !== TYPE_URL.endpoint).map((r) => r.typeUrl), [], 'endpoint changes push EDS only');
      assert.deepEqual(
        pushed.map((r) => [[...r.names].sort(), r.removed]),
        [[[...REVIEWS_CLAS].sort(), []], [DB_CLAS, []]],
        'each endpoint push carries the changed service\'s assignments only, and removes nothing',
      );
      assert.deepEqual([...p.held(TYPE_URL.endpoint).keys()].sort(), [...watchedBefore].sort(), 'the proxy still holds every assignment it watches');

      // 2. A new service (a full push naming only it), then a db endpoint as a sentinel: EDS carries neither reviews nor the old db assignments.
      const serviceFrom = p.responses().length;
      mesh.apply(NEW_RATINGS);
      if (c.kind === SIDECAR) await c.kind.converge(p, (eds) => eds.includes(`outbound|9080||${RATINGS}`));
      mesh.apply(MOVED_DB);
      await until('the moved db endpoint', () => (addressesOf(p.held(TYPE_URL.endpoint), DB_CLAS[0]!).includes('127.0.0.33') ? true : undefined));
      const edsNames = p.responses().slice(serviceFrom).filter((r) => r.typeUrl === TYPE_URL.endpoint).flatMap((r) => r.names);
      assert.deepEqual(edsNames.filter((n) => !n.endsWith(`|${RATINGS}`) && !DB_CLAS.includes(n)), [], 'a new service pushes no other service\'s assignments');

      // 3. A DestinationRule change (full push): a new subset cluster; a sidecar gets the rule's service's assignments,
      //    a proxyless client every watched one again.
      const fullFrom = p.responses().length;
      mesh.apply(DR_WITH_V3);
      const withV3 = (eds: readonly string[]): boolean => eds.includes(`outbound|9080|v3|${REVIEWS}`) && (c.kind !== SIDECAR || eds.includes(`outbound|9080||${RATINGS}`));
      await c.kind.converge(p, withV3);
      const afterFull = p.responses().slice(fullFrom).filter((r) => r.typeUrl === TYPE_URL.endpoint);
      if (c.kind === SIDECAR) {
        // NOTE: a sidecar's EDS follows the rule to its services (changedServiceHosts); a proxyless client's resends all.
        assert.ok(afterFull[0], 'the full push carries EDS');
        assert.deepEqual(afterFull.flatMap((r) => r.names).filter((n) => !n.endsWith(`|${REVIEWS}`)), [], 'the rule\'s push sends its service\'s assignments alone');
      } else if (c.protocol === 'sotw') {
        assert.ok(afterFull[0], 'the full push carries EDS');
        assert.ok(watchedBefore.every((n) => afterFull[0]!.names.includes(n)), `the full push resends every watched assignment (got ${afterFull[0]!.names.join(', ')})`);
      }
      const v3 = `outbound|9080|v3|${REVIEWS}`;
      assert.ok(
        afterFull.some((r) => r.names.length === 1 && r.names[0] === v3),
        `the new subscription is answered with the new assignment alone (EDS responses: ${afterFull.map((r) => `[${r.names.length}]`).join(' ')})`,
      );

      // 4. What the proxy holds equals what a fresh meshd on the final config serves.
      const fresh = await MeshHarness.start();
      meshes.push(fresh);
      fresh.apply(SIDECAR_MESH);
      fresh.apply([NEW_REVIEWS_V1, NEW_RATINGS, MOVED_DB, DR_WITH_V3].join('---\n'));
      const ref = c.make(fresh.xdsAddress, c.kind.node);
      proxies.push(ref);
      await c.kind.converge(ref, withV3);
      for (const t of TYPES) assert.deepEqual(decodeAll(t, p.held(t)), decodeAll(t, ref.held(t)), `${t} equals a fresh meshd's`);
    });
  }
});
