/**
 * Readiness gate of new ADS streams: a meshd (MeshDiscovery on real gRPC, debounce on a ManualClock) refuses
 * SotW and delta streams with UNAVAILABLE until its sources synced AND the model published a snapshot of
 * what they delivered, so a proxy never gets the empty initial config after a restart.
 */
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { Subject, type Subscription } from 'rxjs';
import { closeGrpcServer, createMetrics, ManualClock, type ModelInput } from '../../core/index.js';
import { configEvent, configsFromYaml } from '../generators/testing/model-fixtures.js';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient } from '../testing/ads-client.js';
import { DeltaAdsClient } from '../testing/delta-ads-client.js';
import { MeshDiscovery } from './mesh-discovery.js';

const HOST = 'echo.qs.svc.cluster.local';
const CLUSTER = `outbound|50051||${HOST}`;
const SERVICE = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
`;
const VS = `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http: [{ route: [{ destination: { host: ${HOST} } }] }]
`;
const node = (pod: string): { id: string; metadata: Record<string, unknown> } => ({
  id: `sidecar~10.0.1.1~${pod}.qs~qs.svc.cluster.local`,
  metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' },
});
const added = (yaml: string): ModelInput[] => configsFromYaml(yaml).map((c) => configEvent(c, 'added'));

describe('MeshDiscovery readiness gate (new ADS streams)', function () {
  this.timeout(30_000);
  let server: grpc.Server | undefined;
  let sub: Subscription | undefined;
  let discovery: MeshDiscovery | undefined;
  const closers: (() => void)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    sub?.unsubscribe();
    discovery?.ads.close();
    if (server) await closeGrpcServer(server, 2000);
    server = undefined;
  });

  /** A pipeline gated on `waiting` (the sources not synced yet), on a ManualClock with a 100 ms debounce. */
  async function start(waiting: Set<string>): Promise<{ d: MeshDiscovery; address: string; clock: ManualClock; inputs: Subject<readonly ModelInput[]> }> {
    const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
    const silent = pino({ level: 'silent' });
    const d = (discovery = new MeshDiscovery({
      model: { domain: 'cluster.local', drainingLabel: '', debounceAfter: 100, debounceMax: 1000, enableEdsDebounce: true },
      generator: { enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, cacheSize: 1000 },
      transport: { pushThrottle: 10, maxRequestsPerSecond: 1000, sendTimeoutMs: 0, deltaXds: true },
      metrics: createMetrics('pilot-discovery', { processMetrics: false }),
      loggers: { ads: silent, delta: silent, model: silent },
      clock,
      unsynced: () => [...waiting],
    }));
    const s = (server = new grpc.Server());
    d.ads.register(s);
    const port = await new Promise<number>((resolve, reject) =>
      s.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const inputs = new Subject<readonly ModelInput[]>();
    sub = d.connect(inputs);
    return { d, address: `127.0.0.1:${port}`, clock, inputs };
  }

  /** Opens a SotW and a delta stream asking for clusters; resolves with their final statuses (they must be refused). */
  async function refusals(address: string, pod: string): Promise<grpc.StatusObject[]> {
    const sotw = new AdsClient({ address, node: node(`${pod}-sotw`) });
    const delta = new DeltaAdsClient({ address, node: node(`${pod}-delta`) });
    closers.push(() => sotw.close(), () => delta.close());
    sotw.subscribe(TYPE_URL.cluster);
    delta.subscribe(TYPE_URL.cluster);
    return Promise.all([sotw.status, delta.status]);
  }

  it('given sources not synced yet, should refuse SotW and delta streams with UNAVAILABLE naming the sources', async () => {
    const { d, address } = await start(new Set(['file-config', 'mock-registry']));
    for (const s of await refusals(address, 'early')) {
      assert.equal(s.code, grpc.status.UNAVAILABLE);
      assert.equal(s.details, 'meshd is not ready to serve discovery information: waiting for the first sync of file-config, mock-registry');
    }
    assert.equal(d.ads.connections().length, 0);
    assert.equal(d.notReady(), 'waiting for the first sync of file-config, mock-registry');
  });

  it('given synced sources whose config waits in the debouncer, should refuse streams until the push publishes it, then serve the full config', async () => {
    const waiting = new Set(['file-config']);
    const { d, address, clock, inputs } = await start(waiting);
    // The source's first full read: applied to the model at once, published only with the debounced push.
    inputs.next(added(SERVICE + '---\n' + VS));
    waiting.clear();
    assert.equal(d.model.snapshot.token, 0, 'nothing published yet');
    for (const s of await refusals(address, 'window')) {
      assert.equal(s.code, grpc.status.UNAVAILABLE);
      assert.match(s.details, /^meshd is not ready to serve discovery information: waiting for the first push of the synced config \(1 input batches applied/);
    }
    assert.match(d.notReady() ?? '', /waiting for the first push/);
    clock.advanceSync(150);
    await d.ads.idle();
    assert.equal(d.notReady(), undefined);
    const sotw = new AdsClient({ address, node: node('after-sotw'), autoAck: true });
    const delta = new DeltaAdsClient({ address, node: node('after-delta'), autoAck: true });
    closers.push(() => sotw.close(), () => delta.close());
    sotw.subscribe(TYPE_URL.cluster);
    delta.subscribe(TYPE_URL.cluster);
    const [first, firstDelta] = await Promise.all([sotw.nextResponse(TYPE_URL.cluster, 0), delta.nextResponse(TYPE_URL.cluster, 0)]);
    assert.ok(first.resources.some((r) => r.name === CLUSTER), `SotW clusters: ${first.resources.map((r) => r.name).join(', ')}`);
    assert.ok(firstDelta.resources.some((r) => r.name === CLUSTER), `delta clusters: ${firstDelta.resources.map((r) => r.name).join(', ')}`);
  });

  it('given synced sources that delivered no config, should be ready at once (the initial snapshot is complete)', async () => {
    const waiting = new Set(['file-config']);
    const { d, address, inputs } = await start(waiting);
    inputs.next([]);
    waiting.clear();
    assert.equal(d.notReady(), undefined);
    const sotw = new AdsClient({ address, node: node('empty'), autoAck: true });
    closers.push(() => sotw.close());
    sotw.subscribe(TYPE_URL.cluster);
    const first = await sotw.nextResponse(TYPE_URL.cluster, 0);
    assert.equal(first.resources.length, 0);
  });

  it('given meshd became ready, should stay ready while later config waits in the debouncer', async () => {
    const waiting = new Set(['file-config']);
    const { d, clock, inputs } = await start(waiting);
    inputs.next(added(SERVICE));
    waiting.clear();
    clock.advanceSync(150);
    assert.equal(d.notReady(), undefined);
    inputs.next(added(VS));
    assert.equal(d.model.unpublished, 1);
    assert.equal(d.notReady(), undefined);
  });
});
