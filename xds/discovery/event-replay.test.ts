/**
 * Record and replay (issue 11): a real meshd pipeline (MeshDiscovery on real gRPC, SotW and delta proxies,
 * debounce on) driven by a ManualClock records its event log; the replay of that log must write every
 * response to every proxy byte for byte as the proxies received it, version_info and nonce included.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { createMetrics, ManualClock, readEventLog } from '../../core/index.js';
import { CLUSTERS, HOST, node, SERVICE, split, workload } from './testing/replay-fixtures.js';
import { useRecordingMeshd } from './testing/recording-meshd.js';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient } from '../testing/ads-client.js';
import { DeltaAdsClient } from '../testing/delta-ads-client.js';
import { eventually } from '../testing/eventually.js';
import { formatReplay, replayEvents, ReplayError } from './event-replay.js';

describe('event log record and replay (MeshDiscovery)', function () {
  this.timeout(60_000);
  const run = useRecordingMeshd('mesh-replay-');

  it('given a recorded run with several debounce windows, subscriptions and a disconnect, should replay every response byte for byte', async () => {
    const path = join(run.dir, 'events.jsonl');
    const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
    const silent = pino({ level: 'silent' });
    const { discovery: d, address, apply } = await run.start({
      model: { domain: 'cluster.local', drainingLabel: '', debounceAfter: 100, debounceMax: 1000, enableEdsDebounce: true },
      generator: { enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, cacheSize: 1000 },
      transport: { pushThrottle: 10, maxRequestsPerSecond: 1000, sendTimeoutMs: 0, deltaXds: true },
      metrics: createMetrics('pilot-discovery', { processMetrics: false }),
      loggers: { ads: silent, delta: silent, model: silent },
      controlPlaneId: 'meshd-test',
      clock,
      record: { path },
    });
    const a = new AdsClient({ address, node: node('a'), autoAck: true });
    const b = new AdsClient({ address, node: node('b'), autoAck: true });
    const c = new DeltaAdsClient({ address, node: node('c'), autoAck: true });
    run.closers.push(() => a.close(), () => b.close(), () => c.close());
    const pods = new Map<AdsClient | DeltaAdsClient, string>([[a, 'a'], [b, 'b'], [c, 'c']]);
    const byNode = new Map([...pods].map(([cl, pod]) => [node(pod).id, cl]));
    /** Waits until every live connection holds the latest response meshd sent it of each type. */
    const caughtUp = async (what: string): Promise<void> => {
      await d.ads.idle();
      await eventually(what, () => {
        for (const conn of d.ads.connections()) {
          const cl = byNode.get(conn.nodeId)!;
          for (const t of conn.types) {
            if (t.nonceSent !== '' && [...cl.responses].reverse().find((r) => r.typeUrl === t.typeUrl)?.nonce !== t.nonceSent) return undefined;
          }
        }
        return true;
      });
    };
    /** Moves the virtual clock, letting each push that fires run out. */
    const advance = async (ms: number): Promise<void> => {
      const end = clock.now() + ms;
      for (;;) {
        const next = clock.timersDueIn()[0];
        if (next === undefined || clock.now() + next > end) break;
        clock.advanceSync(next);
        await d.ads.idle();
      }
      clock.advanceSync(end - clock.now());
    };

    // Window 1: the service and two workloads, before any proxy.
    apply(SERVICE + '---\n' + workload('v1', '10.0.0.1') + '---\n' + workload('v2', '10.0.0.2'));
    await advance(150);
    // Proxies connect and subscribe (SotW a, b; delta c).
    for (const cl of [a, b]) {
      cl.subscribe(TYPE_URL.cluster);
      cl.subscribe(TYPE_URL.endpoint, CLUSTERS.slice(0, 2));
      cl.subscribe(TYPE_URL.listener, [`${HOST}:50051`]);
      cl.subscribe(TYPE_URL.route, [CLUSTERS[0]!]);
    }
    c.subscribe(TYPE_URL.cluster);
    c.subscribe(TYPE_URL.endpoint, CLUSTERS);
    await eventually('every proxy answered for every type', () => ([a, b].every((x) => new Set(x.responses.map((r) => r.typeUrl)).size === 4) && new Set(c.responses.map((r) => r.typeUrl)).size === 2 ? true : undefined));
    await caughtUp('first answers');
    // Window 2: two edits of the route 30 ms apart: one full push.
    await advance(20);
    apply(split(70, 30));
    await advance(30);
    apply(split(10, 90));
    await advance(150);
    await caughtUp('window 2');
    // Window 3: an endpoint-only change (EDS push).
    apply(workload('v2', '10.0.0.3'));
    await advance(150);
    await caughtUp('window 3');
    // A new subscription (b asks for v2's endpoints) and a delta unsubscribe.
    b.subscribe(TYPE_URL.endpoint, CLUSTERS);
    c.unsubscribe(TYPE_URL.endpoint, [CLUSTERS[2]!]);
    await eventually('b got v2 endpoints', () => (b.responses.some((r) => r.typeUrl === TYPE_URL.endpoint && r.resources.some((x) => x.name === CLUSTERS[2])) ? true : undefined));
    await caughtUp('subscriptions');
    // Window 4: edits every 80 ms for 1.2 s; the window closes at debounceMax (1 s), another follows.
    for (let i = 0; i < 15; i++) {
      apply(split(i + 1, 99 - i));
      await advance(80);
    }
    await advance(1100);
    await caughtUp('window 4');
    // a leaves; window 5: the DestinationRule is deleted.
    a.close();
    await eventually('a to disconnect', () => (d.ads.connections().length === 2 ? true : undefined));
    apply(SERVICE.split('---')[1]!, 'deleted');
    await advance(150);
    await caughtUp('window 5');
    await d.recorder!.close();

    const log = readEventLog(path);
    const types = log.records.map((r) => r.type);
    assert.equal(types.filter((t) => t === 'connect').length, 3);
    assert.equal(types.filter((t) => t === 'disconnect').length, 1);
    assert.ok(types.filter((t) => t === 'request').length >= 12, 'first requests and subscription changes are recorded');
    const result = await replayEvents(log);
    assert.deepEqual(result.warnings, []);
    const fullPushes = result.pushes.filter((p) => p.cause === 'push' && p.full).length;
    assert.ok(fullPushes >= 4, `several debounce windows made full pushes (${fullPushes})\n${formatReplay(result)}`);
    assert.ok(result.pushes.some((p) => p.cause === 'push' && !p.full), 'an EDS-only push');
    assert.deepEqual([result.pushes[0]!.cause, result.pushes[0]!.responses.length], ['push', 0], 'window 1 pushed before any proxy connected');
    assert.match(formatReplay(result), /^\+100\.0ms push full \(snapshot 1; reasons config=1 service=1; configs DestinationRule\/qs\/echo, ServiceEntry\/qs\/echo[^)]*\)\n {2}\(no proxy needed it\)/);
    assert.ok(result.pushes.some((p) => p.configs.includes('VirtualService/qs/echo') && (p.reasons['config'] ?? 0) >= 2), 'the merged route edits name their config');
    for (const [cl, pod] of pods) {
      const live = cl.responses.map((r) => r.raw.toString('hex'));
      const replayed = result.responses.filter((r) => r.nodeId === node(pod).id).map((r) => r.message.toString('hex'));
      assert.ok(live.length >= 4, `${pod} got responses (${live.length})`);
      assert.equal(replayed.length, live.length, `${pod}: as many responses replayed as received`);
      for (let i = 0; i < live.length; i++) assert.equal(replayed[i], live[i], `${pod}: response ${i} (${cl.responses[i]!.typeUrl}) byte for byte`);
    }
    assert.match(formatReplay(result), /sidecar~10\.0\.1\.1~b\.qs~qs\.svc\.cluster\.local EDS version \d+ nonce [0-9a-f]+-\d+: \[/);
  });

  it('given a log of version 2 (no timing decisions recorded) should refuse to replay it, saying why', async () => {
    const path = join(run.dir, 'old.jsonl');
    writeFileSync(path, '{"type":"start","version":2,"wallStart":0,"meta":{"model":{},"generator":{},"transport":{},"nonceSeed":"ab"}}\n{"type":"disconnect","connection":"a","at":0,"seq":1}\n');
    await assert.rejects(replayEvents(readEventLog(path)), (e: unknown) => e instanceof ReplayError && /version 2 .*lacks when debounce windows closed.*record it again/.test(e.message));
  });
});
