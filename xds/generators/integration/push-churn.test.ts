/**
 * Pushes under churn (issue 11): many proxies on real gRPC, rapid edits to one VirtualService and its
 * endpoints while pushes are in flight; once the edits stop, every proxy must hold exactly what a fresh
 * meshd serves for the final config, byte for byte. No timing assertions: the generator yields at every
 * other resource so that edits land mid-push, and the end state is polled for with a deadline.
 */
import assert from 'node:assert/strict';
import { nextTurn } from '../../../core/index.js';
import { TYPE_URL } from '../../server/contracts.js';
import { AdsClient } from '../../testing/ads-client.js';
import { DeltaAdsClient } from '../../testing/delta-ads-client.js';
import { eventually } from '../../testing/eventually.js';
import { MeshHarness } from '../testing/mesh-harness.js';
import { ECHO_HOST, ECHO_SERVICE_ENTRY_YAML } from '../testing/model-fixtures.js';

const HOST = ECHO_HOST;
const CLUSTERS = ['', 'v1', 'v2', 'v3'].map((s) => `outbound|50051|${s}|${HOST}`);
/** What every proxy watches: type -> names (empty: wildcard). */
const WATCH: readonly (readonly [string, readonly string[]])[] = [
  [TYPE_URL.cluster, []],
  [TYPE_URL.endpoint, CLUSTERS],
  [TYPE_URL.listener, [`${HOST}:50051`]],
  [TYPE_URL.route, [CLUSTERS[0]!]],
];

const SERVICE = `${ECHO_SERVICE_ENTRY_YAML}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }, { name: v3, labels: { version: v3 } }]
`;

function split(v1: number, v2: number, v3: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http:
  - route:
    - { destination: { host: ${HOST}, subset: v1 }, weight: ${v1} }
    - { destination: { host: ${HOST}, subset: v2 }, weight: ${v2} }
    - { destination: { host: ${HOST}, subset: v3 }, weight: ${v3} }
`;
}

function workload(name: string, address: string, weight: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${name}, namespace: qs }
spec: { address: ${address}, weight: ${weight}, labels: { app: echo, version: ${name} } }
`;
}

/** A proxy under test: its identity and what it holds now, per type, name -> bytes (hex). */
interface Proxy {
  readonly pod: string;
  readonly namespace: string;
  held(): Map<string, Map<string, string>> | undefined;
  close(): void;
}

function nodeOf(pod: string, namespace: string): { id: string; metadata: Record<string, unknown> } {
  return { id: `sidecar~10.0.1.1~${pod}.${namespace}~${namespace}.svc.cluster.local`, metadata: { GENERATOR: 'grpc', NAMESPACE: namespace } };
}

function sotwProxy(address: string, pod: string, namespace: string): Proxy {
  const c = new AdsClient({ address, node: nodeOf(pod, namespace), autoAck: true });
  for (const [t, names] of WATCH) c.subscribe(t, names);
  return {
    pod,
    namespace,
    held: () => {
      const out = new Map<string, Map<string, string>>();
      for (const [t] of WATCH) {
        if (!c.latest(t)) return undefined;
        // NOTE: what the proxy holds, not the last response: an endpoint push sends only the changed assignments.
        out.set(t, new Map([...c.held(t).values()].map((x) => [x.name, Buffer.from(x.body).toString('hex')])));
      }
      return out;
    },
    close: () => c.close(),
  };
}

function deltaProxy(address: string, pod: string, namespace: string): Proxy {
  const c = new DeltaAdsClient({ address, node: nodeOf(pod, namespace), autoAck: true });
  for (const [t, names] of WATCH) c.subscribe(t, names);
  return {
    pod,
    namespace,
    held: () => {
      const out = new Map<string, Map<string, string>>();
      for (const [t] of WATCH) {
        if (!c.responses.some((r) => r.typeUrl === t)) return undefined;
        out.set(t, new Map([...c.held(t)].map(([n, x]) => [n, Buffer.from(x.body).toString('hex')])));
      }
      return out;
    },
    close: () => c.close(),
  };
}

function differences(want: Map<string, Map<string, string>>, got: Map<string, Map<string, string>> | undefined): string[] {
  if (!got) return ['no response yet'];
  const out: string[] = [];
  for (const [t, names] of want) {
    const have = got.get(t) ?? new Map<string, string>();
    for (const [n, bytes] of names) if (have.get(n) !== bytes) out.push(`${t.split('.').pop()} ${n} ${have.has(n) ? 'differs' : 'missing'}`);
    for (const n of have.keys()) if (!names.has(n)) out.push(`${t.split('.').pop()} ${n} extra`);
  }
  return out;
}

describe('given many proxies and rapid edits to one VirtualService and its endpoints', function () {
  this.timeout(120_000);
  const meshes: MeshHarness[] = [];
  const proxies: Proxy[] = [];

  afterEach(async () => {
    for (const p of proxies.splice(0)) p.close();
    for (const m of meshes.splice(0)) await m.close();
  });

  it('given pushes in flight during the edits should leave every proxy with exactly what a fresh meshd serves for the final config', async () => {
    let checks = 0;
    // NOTE: yield at every other resource, so that edits land between the resources of one push.
    const mesh = await MeshHarness.start({ slicer: { overBudget: () => ++checks % 2 === 0 } });
    meshes.push(mesh);
    const current = new Map<string, string>([
      ['service', SERVICE],
      ['vs', split(50, 50, 0)],
      ['v1', workload('v1', '127.0.0.31', 1)],
      ['v2', workload('v2', '127.0.0.32', 1)],
    ]);
    mesh.apply([...current.values()].join('---\n'));
    for (let i = 0; i < 24; i++) {
      const ns = i % 4 === 3 ? 'other' : 'qs';
      proxies.push(i % 3 === 2 ? deltaProxy(mesh.xdsAddress, `d${i}`, ns) : sotwProxy(mesh.xdsAddress, `s${i}`, ns));
    }
    await eventually('every proxy has a first answer of every type', () => proxies.every((p) => p.held() !== undefined), 30_000);

    for (let i = 1; i <= 60; i++) {
      const edit = i % 4;
      if (edit === 0) current.set('vs', split(i % 100, 100 - (i % 100), i % 7));
      else if (edit === 1) current.set('v1', workload('v1', `127.0.0.${40 + (i % 50)}`, 1 + (i % 3)));
      else if (edit === 2) current.set('v2', workload('v2', `127.0.0.${100 + (i % 50)}`, 1 + (i % 5)));
      else if (current.has('v3')) {
        current.delete('v3');
        mesh.remove('WorkloadEntry', 'qs', 'v3');
        await nextTurn();
        continue;
      } else current.set('v3', workload('v3', `127.0.0.${160 + (i % 50)}`, 2));
      const key = edit === 0 ? 'vs' : edit === 1 ? 'v1' : edit === 2 ? 'v2' : 'v3';
      mesh.apply(current.get(key)!);
      // NOTE: one edit per turn of the event loop: pushes of earlier edits are mid-flight when the next lands.
      await nextTurn();
    }

    const fresh = await MeshHarness.start();
    meshes.push(fresh);
    fresh.apply([...current.values()].join('---\n'));
    const want = new Map<string, Map<string, Map<string, string>>>();
    const reference = proxies.map((p) => sotwProxy(fresh.xdsAddress, p.pod, p.namespace));
    try {
      await eventually('the fresh meshd answered every type', () => reference.every((r) => r.held() !== undefined), 30_000);
      for (const [i, r] of reference.entries()) want.set(proxies[i]!.pod, r.held()!);
    } finally {
      for (const r of reference) r.close();
    }
    let last: string[] = [];
    try {
      await eventually(
        'every proxy to hold the final config',
        () => {
          last = proxies.flatMap((p) => differences(want.get(p.pod)!, p.held()).map((d) => `${p.pod}: ${d}`));
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
