import assert from 'node:assert/strict';
import { pushRequest } from '../../core/index.js';
import { TYPE_URL } from './contracts.js';
import { AdsClient, edsCluster, eventually, FakeGenerator, metricValue, startAdsHarness, StuckClient, type AdsHarness, type FakeProxy } from '../testing/index.js';

const CDS = TYPE_URL.cluster;
const GOOD = 'sidecar~10.0.0.1~good.default~default.svc.cluster.local';
const stuckNode = (i: number): { id: string } => ({ id: `sidecar~10.0.1.${i}~stuck-${i}.default~default.svc.cluster.local` });

/** 100 clusters of ~4 KB: a ~400 KB CDS response, far beyond a 64 KiB HTTP/2 window. */
function bigMesh(gen: FakeGenerator): void {
  for (let i = 0; i < 100; i++) gen.set(CDS, `svc-${i}`, { ...edsCluster(`svc-${i}`), altStatName: `${i}-`.padEnd(4000, 'x') });
}

describe('ADS with proxies that never read (issue 12, section 1)', function () {
  this.timeout(60_000);
  let h: AdsHarness<FakeProxy> | undefined;
  const stuck: StuckClient[] = [];
  const clients: AdsClient[] = [];
  afterEach(async () => {
    for (const s of stuck.splice(0)) s.close();
    for (const c of clients.splice(0)) c.close();
    await h?.close();
    h = undefined;
  });

  const cases = [
    { when: 'on their first response', bigFirst: true },
    // Their first response fits the window, so they look drained: the push that stalls holds its slot
    // until the slot-hold bound, then runs on without it.
    { when: 'on a later push', bigFirst: false },
  ];
  for (const { when, bigFirst } of cases) it(`given more stuck proxies than PILOT_PUSH_THROTTLE, stuck ${when}, should keep pushing every change to a well-behaved proxy, and go on after the stuck ones leave`, async () => {
    const gen = new FakeGenerator();
    if (bigFirst) bigMesh(gen);
    else gen.set(CDS, 'small', edsCluster('small'));
    // NOTE: no send timeout and a stall cut-off far beyond the test, so that only the push queue's
    // handling of stuck connections keeps the well-behaved proxy served.
    h = await startAdsHarness({ generator: gen, pushThrottle: 4, sendTimeoutMs: 0, limits: { stallTimeoutMs: 600_000 } });
    const good = new AdsClient({ address: h.address, node: { id: GOOD }, autoAck: true });
    clients.push(good);
    good.subscribe(CDS);
    await good.nextResponse(CDS, 0);
    for (let i = 0; i < 8; i++) {
      const s = new StuckClient(h.address, stuckNode(i));
      stuck.push(s);
      s.request({ typeUrl: CDS });
    }
    await eventually('the stuck proxies to connect', () => h!.ads.connections().length === 9);
    if (!bigFirst) {
      await eventually('their first responses', () => gen.calls.length === 9 || undefined);
      await h.ads.idle();
      bigMesh(gen);
    }

    const change = async (n: number): Promise<void> => {
      gen.set(CDS, `change-${n}`, edsCluster(`change-${n}`));
      h!.ads.push(pushRequest('config', { full: true }));
      await good.waitFor(`change ${n} at the well-behaved proxy`, () => good.latest(CDS)?.resources.some((r) => r.name === `change-${n}`) || undefined, 15_000);
    };
    for (let n = 0; n < 25; n++) await change(n);
    // Memory and work per stuck proxy stay bounded: while a response has not drained it gets no further
    // pushes (each would be another ~400 KB response buffered for it).
    for (let i = 0; i < 8; i++) {
      const generated = gen.calls.filter((c) => c.nodeId === stuckNode(i).id).length;
      assert.ok(generated <= 3, `stuck proxy ${i} had ${generated} responses generated over 25 changes`);
    }

    for (const s of stuck.splice(0)) s.close();
    await eventually('the stuck proxies to be gone', () => h!.ads.connections().length === 1, 15_000);
    for (let n = 25; n < 30; n++) await change(n);
    // A proxy that connects now is served, and pushed to.
    const late = new AdsClient({ address: h.address, node: { id: 'sidecar~10.0.0.2~late.default~default.svc.cluster.local' }, autoAck: true });
    clients.push(late);
    late.subscribe(CDS);
    await late.nextResponse(CDS, 0);
    await change(30);
    await late.waitFor('change 30 at the late proxy', () => late.latest(CDS)?.resources.some((r) => r.name === 'change-30') || undefined, 15_000);
  });

  it('given a stuck proxy that keeps sending requests, should stop reading them past maxPendingRequests so that flow control holds the rest at the proxy', async () => {
    const gen = new FakeGenerator();
    bigMesh(gen);
    h = await startAdsHarness({ generator: gen, sendTimeoutMs: 0, limits: { stallTimeoutMs: 600_000, maxPendingRequests: 8 } });
    const s = new StuckClient(h.address, stuckNode(1));
    stuck.push(s);
    s.request({ typeUrl: CDS });
    await eventually('its first response to stall', () => (h!.ads.connections()[0]?.unflushedWrites ?? 0) > 0 || undefined);
    // 200 requests of ~10 KB (2 MB) while the first answer waits for a proxy that reads nothing.
    for (let i = 0; i < 200; i++) s.request({ typeUrl: TYPE_URL.endpoint, resourceNames: [`${i}-`.padEnd(10_000, 'n')] });
    await eventually('meshd to hold 8 requests and the proxy the rest', () => {
      const c = h!.ads.connections()[0];
      return c?.pendingRequests === 8 && s.unsentBytes > 1_000_000 ? true : undefined;
    });
  });

  it('given a stuck proxy and no PILOT_XDS_SEND_TIMEOUT, should cut it off after the stall bound and count pilot_xds_write_timeout', async () => {
    const gen = new FakeGenerator();
    bigMesh(gen);
    h = await startAdsHarness({ generator: gen, sendTimeoutMs: 0, limits: { stallTimeoutMs: 300 } });
    const good = new AdsClient({ address: h.address, node: { id: GOOD }, autoAck: true });
    clients.push(good);
    good.subscribe(CDS);
    await good.nextResponse(CDS, 0);
    const s = new StuckClient(h.address, stuckNode(1));
    stuck.push(s);
    s.request({ typeUrl: CDS });
    await eventually('the stuck proxy to be cut off', async () => ((await metricValue(h!.metrics, 'pilot_xds_write_timeout')) === 1 ? true : undefined));
    await eventually('its connection to close', () => h!.ads.connections().length === 1);
    await eventually('its stream to end', () => s.closed);
    gen.set(CDS, 'after', edsCluster('after'));
    h.ads.push(pushRequest('config', { full: true }));
    await good.waitFor('the push after the cut-off', () => good.latest(CDS)?.resources.some((r) => r.name === 'after') || undefined);
  });
});
