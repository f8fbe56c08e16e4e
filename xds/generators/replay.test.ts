import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { EventLogRecorder, proxyFromNode, proxyRequestPush, replayEventLog, type MeshModel, type ModelInput } from '../../core/index.js';
import { protoRoot } from '../protos/root.js';
import { TYPE_URL } from '../server/contracts.js';
import { ProxylessGrpcGenerator } from './grpc-generator.js';
import { configEvent, configsFromYaml, grpcNode, testModel } from './testing/model-fixtures.js';

const STEPS = [
  `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  workloadSelector: { labels: { app: echo } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: a, namespace: qs }
spec: { address: 10.0.0.1, labels: { app: echo, version: v1 } }
---
apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: b, namespace: qs }
spec: { address: 10.0.0.2, labels: { app: echo, version: v2 }, locality: r/z }
`,
  `apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: echo.qs.svc.cluster.local
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]
---
apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [echo.qs.svc.cluster.local]
  http: [{ route: [{ destination: { host: echo.qs.svc.cluster.local, subset: v1 }, weight: 70 }, { destination: { host: echo.qs.svc.cluster.local, subset: v2 }, weight: 30 }] }]
`,
  `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: b, namespace: qs }
spec: { address: 10.0.0.3, labels: { app: echo, version: v2 }, locality: r/z }
`,
];

/** Every resource a proxyless client and server in `qs` would get, encoded. */
async function snapshot(model: MeshModel): Promise<Map<string, Buffer>> {
  const gen = new ProxylessGrpcGenerator({ enableCache: false, enableCdsCache: false, enableRdsCache: false, sendUnhealthyEndpoints: false });
  const state = proxyFromNode(grpcNode('qs'));
  const out = new Map<string, Buffer>();
  const want: [string, string[]][] = [
    [TYPE_URL.listener, ['echo.qs.svc.cluster.local:50051', 'xds.mesh.io/grpc/lds/inbound/10.0.0.1:50051']],
    [TYPE_URL.route, ['outbound|50051||echo.qs.svc.cluster.local']],
    [TYPE_URL.cluster, []],
    [TYPE_URL.endpoint, []],
  ];
  for (const [typeUrl, names] of want) {
    const res = (await gen.generate(state, { typeUrl, names: new Set(names), wildcard: names.length === 0 }, proxyRequestPush(model.snapshot)))!;
    for (const r of res.resources) out.set(`${typeUrl}|${r.name}`, Buffer.from(r.body));
  }
  return out;
}

describe('event log record and replay', () => {
  let dir: string;
  before(function () {
    this.timeout(60_000);
    protoRoot();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-eventlog-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a recorded log replayed into a fresh pipeline should yield byte-identical encoded resources', async () => {
    const path = join(dir, 'events.jsonl');
    const recorder = new EventLogRecorder(path, {});
    const live = testModel();
    const inputs = new Subject<readonly ModelInput[]>();
    const done = lastValueFrom(live.pushes(inputs.pipe(recorder.tap())).pipe(toArray()));
    const applied = new Set<string>();
    for (const step of STEPS) {
      inputs.next(
        configsFromYaml(step).map((c) => {
          const key = `${c.kind}/${c.metadata.namespace}/${c.metadata.name}`;
          const type = applied.has(key) ? 'updated' : 'added';
          applied.add(key);
          return configEvent(c, type);
        }),
      );
    }
    inputs.complete();
    const livePushes = await done;
    await recorder.close();
    assert.equal(readFileSync(path, 'utf8').trim().split('\n').length, STEPS.length + 1, 'a header, then one line per batch');

    const replayed = testModel();
    const replayPushes = await lastValueFrom(replayed.pushes(replayEventLog(path)).pipe(toArray()));
    assert.equal(replayPushes.length, livePushes.length, 'the same number of pushes');
    const a = await snapshot(live);
    const b = await snapshot(replayed);
    assert.ok(a.size >= 7, `a full set of resources (${a.size})`);
    assert.deepEqual([...b.keys()], [...a.keys()]);
    for (const [k, bytes] of a) assert.ok(bytes.equals(b.get(k)!), `${k} is byte-identical`);
    assert.equal(replayed.pushContext.version, live.pushContext.version);
  });
});
