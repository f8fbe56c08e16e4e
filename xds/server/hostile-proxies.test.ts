import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import { pushRequest } from '../../core/index.js';
import { Connection, WatchState } from './connection.js';
import { TYPE_URL } from './contracts.js';
import { AdsMetrics } from './metrics.js';
import { recordNack } from './protocol-common.js';
import type { StreamHost } from './stream-host.js';
import { streamLimits } from './stream-limits.js';
import { createMetrics, ManualClock } from '../../core/index.js';
import { AdsClient, edsCluster, eventually, FakeGenerator, startAdsHarness, type AdsHarness, type FakeProxy } from '../testing/index.js';

const CDS = TYPE_URL.cluster;
const nodeId = (pod: string): string => `sidecar~10.0.0.1~${pod}.default~default.svc.cluster.local`;

/** A pino logger writing JSON lines into `lines`. */
function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(l);
      cb();
    },
  });
  return pino({ level: 'debug' }, sink);
}

const levelOf = (line: string): number => (JSON.parse(line) as { level: number }).level;
const WARN = 40;

describe('ADS against hostile proxies (issue 12, section 4)', function () {
  this.timeout(60_000);
  let h: AdsHarness<FakeProxy> | undefined;
  const clients: AdsClient[] = [];
  const connect = (pod: string, metadata?: Record<string, unknown>): AdsClient => {
    const c = new AdsClient({ address: h!.address, node: { id: nodeId(pod), ...(metadata ? { metadata } : {}) }, autoAck: true });
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
    h = undefined;
  });

  it('given 30 NACKs with 1 MB error details, should keep and log a truncated detail and warn once for the connection', async () => {
    const gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    const lines: string[] = [];
    const log = capturingLogger(lines);
    h = await startAdsHarness({ generator: gen, loggers: { ads: log, delta: log }, limits: { nackLogIntervalMs: 3_600_000 } });
    const c = new AdsClient({ address: h.address, node: { id: nodeId('nacker') } });
    clients.push(c);
    c.subscribe(CDS);
    await c.nextResponse(CDS, 0);
    const detail = 'e'.repeat(1024 * 1024);
    for (let i = 0; i < 30; i++) c.nack(CDS, `${i}:${detail}`);
    const nack = await eventually('the 30th NACK', () => {
      const n = h!.ads.connections()[0]?.types[0]?.lastNack;
      return n?.message.startsWith('29:') ? n : undefined;
    });
    assert.ok(nack.message.length < 4200, `lastNack kept ${nack.message.length} characters`);
    const total = 3 + detail.length;
    assert.ok(nack.message.endsWith(`... [truncated ${total - 4096} of ${total} characters]`), nack.message.slice(4090));
    const nackLines = lines.filter((l) => l.includes('NACK'));
    assert.equal(nackLines.length, 30, 'every NACK is still logged (29 at debug)');
    assert.equal(nackLines.filter((l) => levelOf(l) === WARN).length, 1, 'one warning for the connection');
    const logBytes = lines.reduce((n, l) => n + l.length, 0);
    assert.ok(logBytes < 300_000, `30 NACKs wrote ${logBytes} bytes of log`);
  });

  it('given NACKs past the interval, should warn again with the count of those held back', () => {
    const lines: string[] = [];
    const log = capturingLogger(lines);
    const limits = streamLimits({ nackLogIntervalMs: 1000 });
    const emitted: unknown[] = [];
    const clock = new ManualClock();
    const host = { metrics: new AdsMetrics(createMetrics('pilot-discovery', { processMetrics: false })), limits, clock, emit: (e: unknown) => emitted.push(e) } as unknown as StreamHost<unknown>;
    const conn = new Connection('n-1', { id: nodeId('a') } as never, undefined, 'peer', 'sotw');
    const w = new WatchState(CDS);
    for (const t of [0, 10, 20, 999, 1000, 1500, 2000]) {
      clock.advanceSync(t - clock.now());
      recordNack(host, conn, w, `nonce-${t}`, 13, 'bad', log);
    }
    const warns = lines.map((l) => JSON.parse(l) as { level: number; nonce: string; suppressedNacks?: number }).filter((l) => l.level === WARN);
    assert.deepEqual(
      warns.map((l) => [l.nonce, l.suppressedNacks]),
      [
        ['nonce-0', undefined],
        ['nonce-1000', 3],
        ['nonce-2000', 1],
      ],
    );
    assert.equal(emitted.length, 7);
  });

  it('given a stream asking for more distinct unknown type URLs than the limit, should end it with RESOURCE_EXHAUSTED naming the limit and keep pushing to others', async () => {
    const gen = new FakeGenerator();
    gen.set(CDS, 'c1', edsCluster('c1'));
    h = await startAdsHarness({ generator: gen, limits: { maxTypesPerStream: 16 } });
    const good = connect('good');
    good.subscribe(CDS);
    await good.nextResponse(CDS, 0);
    const bad = connect('typer');
    for (let i = 0; i < 200; i++) bad.request({ typeUrl: `type.googleapis.com/attack.T${i}` });
    const s = await bad.status;
    assert.equal(s.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(s.details, /too many type URLs on one stream: the limit is 16/);
    assert.ok(bad.responses.length <= 16, `answered ${bad.responses.length} types`);
    await eventually('the refused stream to be gone', () => h!.ads.connections().length === 1);
    gen.set(CDS, 'c2', edsCluster('c2'));
    h.ads.push(pushRequest('config', { full: true }));
    await good.waitFor('the push after the refusal', () => good.latest(CDS)?.resources.some((r) => r.name === 'c2') || undefined);
  });

  it('given a type URL longer than the limit, should end the stream with INVALID_ARGUMENT naming it', async () => {
    h = await startAdsHarness({ generator: new FakeGenerator() });
    const bad = connect('longtype');
    bad.request({ typeUrl: `type.googleapis.com/${'x'.repeat(100_000)}` });
    const s = await bad.status;
    assert.equal(s.code, grpc.status.INVALID_ARGUMENT);
    assert.match(s.details, /type_url of 100020 characters is longer than the limit of 512/);
  });

  const hugeId = `sidecar~10.0.0.1~pod.default~default.svc.${'x'.repeat(1024 * 1024)}`;
  const absurd = [
    { name: 'a 1 MB node id', id: hugeId, metadata: undefined, message: new RegExp(`node id is ${hugeId.length} bytes, over the limit of 1024 bytes`) },
    { name: 'a 1 MB metadata label', id: nodeId('meta'), metadata: { LABELS: { big: 'y'.repeat(1024 * 1024) } }, message: /node metadata \(as JSON\) is \d+ bytes, over the limit of 524288 bytes/ },
  ];
  for (const a of absurd) {
    it(`given ${a.name}, should refuse the stream with INVALID_ARGUMENT naming the field and limit, and log a bounded line`, async () => {
      const lines: string[] = [];
      const log = capturingLogger(lines);
      h = await startAdsHarness({ generator: new FakeGenerator(), loggers: { ads: log, delta: log } });
      const c = new AdsClient({ address: h.address, node: { id: a.id, ...(a.metadata ? { metadata: a.metadata } : {}) } });
      clients.push(c);
      c.subscribe(CDS);
      const s = await c.status;
      assert.equal(s.code, grpc.status.INVALID_ARGUMENT);
      assert.match(s.details, a.message);
      assert.equal(h.ads.connections().length, 0);
      assert.ok(lines.every((l) => l.length < 8192), `longest log line ${Math.max(...lines.map((l) => l.length))} bytes`);
    });
  }
});
