/**
 * Record and replay under churn (issue 11): a real meshd pipeline on real time (system clock, debounce on,
 * one push at a time) serves SotW and delta proxies over real gRPC while a VirtualService and an endpoint
 * change as fast as the loop allows and the proxies change their subscriptions meanwhile. Live, debounce
 * windows close late, the push queue merges pushes that wait behind a busy proxy, and requests are
 * answered while pushes wait; the replay of the log must still write every response to every proxy byte
 * for byte as it received it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pino } from 'pino';
import { createMetrics, nextTurn, readEventLog } from '../../core/index.js';
import { CLUSTERS, HOST, node, SERVICE, split, workload } from './testing/replay-fixtures.js';
import { useRecordingMeshd } from './testing/recording-meshd.js';
import { TYPE_URL } from '../server/contracts.js';
import { AdsClient } from '../testing/ads-client.js';
import { DeltaAdsClient } from '../testing/delta-ads-client.js';
import { eventually } from '../testing/eventually.js';
import { formatReplay, replayEvents } from './event-replay.js';

describe('event log record and replay under churn (MeshDiscovery, real time)', function () {
  this.timeout(120_000);
  const run = useRecordingMeshd('mesh-replay-churn-');

  it('given edits and subscription changes while pushes are queued and merged should replay every response byte for byte', async () => {
    const path = join(run.dir, 'events.jsonl');
    const silent = pino({ level: 'silent' });
    const { discovery: d, address, apply } = await run.start({
      model: { domain: 'cluster.local', drainingLabel: '', debounceAfter: 2, debounceMax: 10, enableEdsDebounce: false },
      generator: { enableCache: true, enableCdsCache: true, enableRdsCache: true, sendUnhealthyEndpoints: false, cacheSize: 1000 },
      // NOTE: one push at a time, so pushes wait (and merge) behind each other.
      transport: { pushThrottle: 1, maxRequestsPerSecond: 10_000, sendTimeoutMs: 0, deltaXds: true },
      metrics: createMetrics('pilot-discovery', { processMetrics: false }),
      loggers: { ads: silent, delta: silent, model: silent },
      controlPlaneId: 'meshd-churn',
      record: { path },
    });
    apply(SERVICE + '---\n' + split(50, 50) + '---\n' + workload('v1', '10.0.0.1') + '---\n' + workload('v2', '10.0.0.2'));

    const sotw = Array.from({ length: 6 }, (_, i) => new AdsClient({ address, node: node(`s${i}`), autoAck: true }));
    const delta = Array.from({ length: 2 }, (_, i) => new DeltaAdsClient({ address, node: node(`d${i}`), autoAck: true }));
    const byNode = new Map<string, AdsClient | DeltaAdsClient>([...sotw.map((c, i) => [node(`s${i}`).id, c] as const), ...delta.map((c, i) => [node(`d${i}`).id, c] as const)]);
    run.closers.push(...sotw.map((c) => () => c.close()), ...delta.map((c) => () => c.close()));
    /** The endpoint names each proxy subscribed to last, by node id (to tell when meshd has read them all). */
    const eds = new Map<string, Set<string>>();
    const subscribeEds = (c: AdsClient | DeltaAdsClient, names: readonly string[]): void => {
      const id = [...byNode].find(([, cl]) => cl === c)![0];
      if (c instanceof AdsClient) eds.set(id, new Set(names));
      else for (const n of names) (eds.get(id) ?? eds.set(id, new Set()).get(id)!).add(n);
      c.subscribe(TYPE_URL.endpoint, names);
    };
    for (const c of sotw) {
      c.subscribe(TYPE_URL.cluster);
      c.subscribe(TYPE_URL.listener, [`${HOST}:50051`]);
      c.subscribe(TYPE_URL.route, [CLUSTERS[0]!]);
      subscribeEds(c, CLUSTERS.slice(0, 1));
    }
    for (const c of delta) {
      c.subscribe(TYPE_URL.cluster);
      subscribeEds(c, CLUSTERS.slice(0, 1));
    }
    // Churn: route edits and endpoint moves back to back, with subscription changes in between, while the
    // first answers are still going out.
    for (let i = 0; i < 120; i++) {
      if (i % 3 === 0) apply(workload('v2', `10.0.1.${i % 250}`));
      else apply(split(i % 100, 100 - (i % 100)));
      if (i % 20 === 10) {
        const k = (i / 20) | 0;
        subscribeEds(sotw[k % sotw.length]!, CLUSTERS.slice(0, 1 + (k % 3)));
        subscribeEds(delta[k % delta.length]!, [CLUSTERS[1 + (k % 2)]!]);
      }
      if (i % 4 === 0) await nextTurn();
    }
    // Quiet: meshd has read every subscription and every connection holds the last response sent it of each type.
    await eventually('every proxy caught up', async () => {
      await d.ads.idle();
      if (d.model.unpublished > 0 || d.ads.connections().length !== byNode.size) return undefined;
      for (const conn of d.ads.connections()) {
        const cl = byNode.get(conn.nodeId)!;
        const want = [...eds.get(conn.nodeId)!].sort().join();
        if ([...(conn.types.find((t) => t.typeUrl === TYPE_URL.endpoint)?.names ?? [])].sort().join() !== want) return undefined;
        for (const t of conn.types) {
          if (t.nonceSent !== '' && [...cl.responses].reverse().find((r) => r.typeUrl === t.typeUrl)?.nonce !== t.nonceSent) return undefined;
        }
      }
      return true;
    }, 30_000);
    await d.recorder!.close();
    const received = new Map([...byNode].map(([id, cl]) => [id, cl.responses.map((r) => ({ typeUrl: r.typeUrl, hex: r.raw.toString('hex') }))]));

    const result = await replayEvents(readEventLog(path));
    assert.deepEqual(result.warnings, [], formatReplay(result).slice(-3000));
    for (const [id, live] of received) {
      const replayed = result.responses.filter((r) => r.nodeId === id).map((r) => r.message.toString('hex'));
      assert.ok(live.length >= 3, `${id} got responses (${live.length})`);
      assert.equal(replayed.length, live.length, `${id}: as many responses replayed as received`);
      for (let i = 0; i < live.length; i++) assert.equal(replayed[i], live[i]!.hex, `${id}: response ${i} (${live[i]!.typeUrl}) byte for byte`);
    }
  });
});
