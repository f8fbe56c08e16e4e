/**
 * Sidecar pushes under churn: Envoy sidecars in two namespaces on real gRPC, rapid edits to a
 * VirtualService (weights), a DestinationRule (a subset and a connection pool field) and WorkloadEntries
 * while generation yields mid-push (the sidecar generator caches CDS/EDS/RDS bytes in the shared XdsCache,
 * which must refuse stale writes). Once the edits stop, every sidecar must hold exactly what a fresh
 * meshd serves for the final config, byte for byte. No timing assertions: the end state is polled for.
 */
import assert from 'node:assert/strict';
import { nextTurn } from '../../../core/index.js';
import { decode } from '../../protos/codec.js';
import { protoRoot } from '../../protos/root.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient, type SotwResponse } from '../../testing/ads-client.js';
import { eventually } from '../../testing/eventually.js';
import { ENVOY } from '../sidecar/sidecar-names.js';
import { edsNamesOf, rdsNamesOf, SIDECAR_MESH } from '../sidecar/testing/sidecar-mesh.js';
import { MeshHarness } from '../testing/mesh-harness.js';

const REVIEWS = 'reviews.default.svc.cluster.local';
const TYPES = [TYPE_URL.listener, TYPE_URL.cluster, TYPE_URL.route, TYPE_URL.endpoint] as const;

function virtualService(v1: number, v2: number, v3: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: reviews, namespace: default }
spec:
  hosts: [reviews]
  http:
  - name: split
    route:
    - { destination: { host: reviews, subset: v1 }, weight: ${v1} }
    - { destination: { host: reviews, subset: v2 }, weight: ${v2} }
    - { destination: { host: reviews, subset: v3 }, weight: ${v3} }
`;
}

function destinationRule(maxConnections: number, withV3: boolean): string {
  return `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: reviews, namespace: default }
spec:
  host: ${REVIEWS}
  trafficPolicy:
    connectionPool: { tcp: { maxConnections: ${maxConnections}, connectTimeout: 3s } }
    tls: { mode: MESH_MUTUAL }
  subsets:
  - { name: v1, labels: { version: v1 } }
  - { name: v2, labels: { version: v2 } }
${withV3 ? '  - { name: v3, labels: { version: v3 } }\n' : ''}`;
}

function workload(version: string, address: string, weight: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: reviews-${version}, namespace: default }
spec: { address: ${address}, weight: ${weight}, labels: { app: reviews, version: ${version}, security.mesh.io/tlsMode: mesh }, serviceAccount: reviews }
`;
}

/** What a sidecar holds now, per type, name -> bytes (hex). */
type Held = Map<string, Map<string, string>>;

/** A sidecar under test: its identity and what it holds now (undefined until it has every type). */
interface Sidecar {
  readonly pod: string;
  readonly namespace: string;
  held(): Held | undefined;
  close(): void;
}

/** Names referenced by a response (RDS names of an LDS response, EDS names of a CDS response), decoded once per response. */
const referenced = new WeakMap<SotwResponse, string>();
function namesIn(r: SotwResponse): string[] {
  let names = referenced.get(r);
  if (names === undefined) {
    const listeners = r.typeUrl === TYPE_URL.listener;
    const decoded = r.resources.map((x) => decode(listeners ? ENVOY.listener : ENVOY.cluster, x.body));
    names = JSON.stringify(listeners ? rdsNamesOf(decoded) : edsNamesOf(decoded));
    referenced.set(r, names);
  }
  return JSON.parse(names) as string[];
}

/**
 * A sidecar that subscribes as Envoy does: LDS and CDS wildcard, then the RDS and EDS names they
 * reference, following them as LDS and CDS change (each call to `held` re-subscribes when they have).
 */
function sidecar(address: string, pod: string, namespace: string, ip: string): Sidecar {
  const c = new AdsClient({
    address,
    node: { id: `sidecar~${ip}~${pod}.${namespace}~${namespace}.svc.cluster.local`, metadata: { NAMESPACE: namespace, LABELS: { app: pod } } },
    autoAck: true,
  });
  c.subscribe(TYPE_URL.listener);
  c.subscribe(TYPE_URL.cluster);
  const following = new Map<string, string>();
  const follow = (from: string, to: string): void => {
    const r = c.latest(from);
    if (!r) return;
    const names = namesIn(r);
    // NOTE: an empty RDS/EDS subscription would be a wildcard; the mesh always references some.
    if (names.length === 0 || following.get(to) === JSON.stringify(names)) return;
    following.set(to, JSON.stringify(names));
    c.subscribe(to, names);
  };
  return {
    pod,
    namespace,
    held: () => {
      follow(TYPE_URL.listener, TYPE_URL.route);
      follow(TYPE_URL.cluster, TYPE_URL.endpoint);
      const out: Held = new Map();
      for (const t of TYPES) {
        if (!c.latest(t)) return undefined;
        // NOTE: what the sidecar holds, not the last response: an endpoint push sends only the changed assignments.
        out.set(t, new Map([...c.held(t).values()].map((x) => [x.name, Buffer.from(x.body).toString('hex')])));
      }
      return out;
    },
    close: () => c.close(),
  };
}

function differences(want: Held, got: Held | undefined): string[] {
  if (!got) return ['no response of every type yet'];
  const out: string[] = [];
  for (const [t, names] of want) {
    const have = got.get(t) ?? new Map<string, string>();
    for (const [n, bytes] of names) if (have.get(n) !== bytes) out.push(`${t.split('.').pop()} ${n} ${have.has(n) ? 'differs' : 'missing'}`);
    for (const n of have.keys()) if (!names.has(n)) out.push(`${t.split('.').pop()} ${n} extra`);
  }
  return out;
}

describe('given sidecars in two namespaces and rapid edits to a VirtualService, a DestinationRule and WorkloadEntries', function () {
  this.timeout(120_000);
  const meshes: MeshHarness[] = [];
  const sidecars: Sidecar[] = [];

  before(() => protoRoot());
  afterEach(async () => {
    for (const p of sidecars.splice(0)) p.close();
    for (const m of meshes.splice(0)) await m.close();
  });

  it('given pushes in flight during the edits should leave every sidecar with exactly what a fresh meshd serves for the final config', async () => {
    let checks = 0;
    // NOTE: yield at every other resource, so that edits land between the resources of one push (and
    // between a cache miss's build and its write).
    const mesh = await MeshHarness.start({ slicer: { overBudget: () => ++checks % 2 === 0 } });
    meshes.push(mesh);
    const current = new Map<string, string>([
      ['vs', virtualService(80, 20, 0)],
      ['dr', destinationRule(100, false)],
      ['v1', workload('v1', '127.0.0.21', 1)],
      ['v2', workload('v2', '127.0.0.22', 3)],
    ]);
    mesh.apply(SIDECAR_MESH);
    mesh.apply([...current.values()].join('---\n'));
    for (let i = 0; i < 8; i++) {
      const ns = i % 2 === 0 ? 'default' : 'other';
      sidecars.push(sidecar(mesh.xdsAddress, `app${i}-1`, ns, `10.0.2.${i + 1}`));
    }
    await eventually('every sidecar has a first answer of every type', () => sidecars.every((p) => p.held() !== undefined), 30_000);

    for (let i = 1; i <= 60; i++) {
      const edit = i % 5;
      let key: string;
      if (edit === 0) current.set((key = 'vs'), virtualService(i % 100, 100 - (i % 100), i % 7));
      else if (edit === 1) current.set((key = 'dr'), destinationRule(50 + i, i % 3 !== 0));
      else if (edit === 2) current.set((key = 'v1'), workload('v1', `127.0.0.${40 + (i % 50)}`, 1 + (i % 3)));
      else if (edit === 3) current.set((key = 'v2'), workload('v2', `127.0.0.${100 + (i % 50)}`, 1 + (i % 5)));
      else if (current.has('v3')) {
        current.delete('v3');
        mesh.remove('WorkloadEntry', 'default', 'reviews-v3');
        await nextTurn();
        continue;
      } else current.set((key = 'v3'), workload('v3', `127.0.0.${160 + (i % 50)}`, 2));
      mesh.apply(current.get(key)!);
      // NOTE: one edit per turn of the event loop: pushes of earlier edits are mid-flight when the next lands.
      await nextTurn();
    }

    const fresh = await MeshHarness.start();
    meshes.push(fresh);
    fresh.apply(SIDECAR_MESH);
    fresh.apply([...current.values()].join('---\n'));
    const reference = sidecars.map((p, i) => sidecar(fresh.xdsAddress, p.pod, p.namespace, `10.0.2.${i + 1}`));
    const want = new Map<string, Held>();
    try {
      // NOTE: the fresh meshd gets no edits, so its first complete answer (RDS/EDS following LDS/CDS) is final.
      await eventually(
        'the fresh meshd answered every type for the names LDS and CDS reference',
        () => reference.every((r) => {
          const h = r.held();
          return h !== undefined && followed(h);
        }),
        30_000,
      );
      for (const [i, r] of reference.entries()) want.set(sidecars[i]!.pod, r.held()!);
    } finally {
      for (const r of reference) r.close();
    }
    assert.ok([...want.values()].every((h) => h.get(TYPE_URL.endpoint)!.has(`outbound|9080|v1|${REVIEWS}`)), 'the final config reaches the reviews subsets');
    let last: string[] = [];
    try {
      await eventually(
        'every sidecar to hold the final config',
        () => {
          last = sidecars.flatMap((p) => differences(want.get(p.pod)!, p.held()).map((d) => `${p.pod}: ${d}`));
          return last.length === 0;
        },
        30_000,
      );
    } catch (e) {
      assert.fail(`${(e as Error).message}; still different: ${last.slice(0, 10).join('; ')}${last.length > 10 ? ` (+${last.length - 10})` : ''}`);
    }
    assert.ok(checks > 100, `generation yielded during the churn (${checks} checks)`);
  });
});

/** Whether the RDS and EDS a sidecar holds are exactly the names its LDS and CDS reference. */
function followed(h: Held): boolean {
  const same = (a: Iterable<string>, b: readonly string[]): boolean => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  const decodeAll = (t: string, typeName: string): Record<string, unknown>[] =>
    [...h.get(t)!.values()].map((hex) => decode(typeName, Buffer.from(hex, 'hex')));
  return (
    same(h.get(TYPE_URL.route)!.keys(), rdsNamesOf(decodeAll(TYPE_URL.listener, ENVOY.listener))) &&
    same(h.get(TYPE_URL.endpoint)!.keys(), edsNamesOf(decodeAll(TYPE_URL.cluster, ENVOY.cluster)))
  );
}
