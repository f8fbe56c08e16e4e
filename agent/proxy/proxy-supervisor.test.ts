// NOTE: the data-plane proxy cannot run here; these tests supervise real processes (sh, node) that
// exit, crash or wait for SIGTERM the way a proxy would, on a manual clock for the backoff and drain.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ManualClock } from '../../core/index.js';
import { waitFor } from '../testing/stand-in-proxy-binary.js';
import { ProxySupervisor, type RestartBackoff } from './proxy-supervisor.js';

const logger = pino({ level: 'silent' });
const backoff: RestartBackoff = { initialMs: 100, maxMs: 250, maxRestarts: 3 };

/** Drives the supervisor's backoff timers until it ends; returns the delays it waited. */
async function runToEnd(s: ProxySupervisor, clock: ManualClock): Promise<number[]> {
  const delays: number[] = [];
  let ended = false;
  void s.exited.then(() => (ended = true));
  for (;;) {
    await waitFor(() => ended || clock.pendingTimers > 0, 'a backoff timer or the end');
    if (ended) return delays;
    delays.push(...clock.timersDueIn());
    await clock.advance(clock.timersDueIn()[0]!);
  }
}

describe('ProxySupervisor', () => {
  const cases: { name: string; should: string; script: string; code: number; signal?: string; delays: number[]; restarts: number }[] = [
    { name: 'a proxy that always crashes with 7', should: 'restart it with capped doubling backoff, then give up with 7', script: 'exit 7', code: 7, delays: [100, 200, 250], restarts: 3 },
    { name: 'a proxy that exits cleanly', should: 'end with 0 without restarting it', script: 'exit 0', code: 0, delays: [], restarts: 0 },
    { name: 'a proxy killed by SIGKILL', should: 'restart it with backoff, then give up with 137 (128 + 9)', script: 'kill -9 $$', code: 137, signal: 'SIGKILL', delays: [100, 200, 250], restarts: 3 },
  ];
  for (const c of cases) {
    it(`given ${c.name} should ${c.should}`, async () => {
      const clock = new ManualClock();
      const s = new ProxySupervisor({ binaryPath: '/bin/sh', args: ['-c', c.script], adminPort: 1, terminationDrainMs: 0, backoff, clock, logger });
      s.start();
      assert.deepEqual(await runToEnd(s, clock), c.delays);
      const exit = await s.exited;
      assert.deepEqual(exit, { code: c.code, ...(c.signal ? { signal: c.signal } : {}), restarts: c.restarts });
      assert.equal(s.starts, c.restarts + 1);
    });
  }

  it('given a proxy that crashes twice then stays up should restart it and keep it running', async () => {
    const clock = new ManualClock();
    // NOTE: the marker file counts runs; the third run stays up until SIGTERM.
    const dir = mkdtempSync(join(tmpdir(), 'proxy-supervisor-'));
    const marker = join(dir, 'runs');
    const script = `n=$(cat ${marker} 2>/dev/null || echo 0); echo $((n+1)) > ${marker}; [ "$n" -ge 2 ] || exit 3; trap 'exit 0' TERM; touch ${marker}.up; while :; do sleep 0.1; done`;
    const s = new ProxySupervisor({ binaryPath: '/bin/sh', args: ['-c', script], adminPort: 1, terminationDrainMs: 0, backoff, clock, logger });
    s.start();
    for (const delay of [100, 200]) {
      await waitFor(() => clock.pendingTimers > 0, `backoff of ${delay}ms`);
      assert.deepEqual(clock.timersDueIn(), [delay]);
      await clock.advance(delay);
    }
    await waitFor(() => existsSync(`${marker}.up`), 'the third run to be up');
    assert.equal(s.starts, 3);
    const stopped = s.stop();
    await waitFor(() => clock.pendingTimers > 0, 'the drain wait');
    await clock.advance(clock.timersDueIn()[0]!);
    assert.deepEqual(await stopped, { code: 0, restarts: 2 });
    rmSync(dir, { recursive: true, force: true });
  });

  describe('stop', () => {
    let admin: Server | undefined;
    afterEach(async () => {
      if (admin) await new Promise((res) => admin!.close(res));
      admin = undefined;
    });

    it('given a running proxy should ask its admin API to drain, wait terminationDrainDuration, then SIGTERM it', async () => {
      const seen: string[] = [];
      admin = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(200).end('OK');
      });
      await new Promise<void>((res) => admin!.listen(0, '127.0.0.1', res));
      const adminPort = (admin.address() as AddressInfo).port;
      const clock = new ManualClock();
      const up = join(mkdtempSync(join(tmpdir(), 'proxy-supervisor-')), 'up');
      const child = `process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000); require('node:fs').writeFileSync(${JSON.stringify(up)}, '')`;
      const s = new ProxySupervisor({ binaryPath: process.execPath, args: ['-e', child], adminPort, terminationDrainMs: 5_000, backoff, clock, logger });
      s.start();
      await waitFor(() => existsSync(up), 'the proxy to be up');
      let ended = false;
      const stopped = s.stop().then((e) => ((ended = true), e));
      await waitFor(() => seen.length === 1 && clock.pendingTimers > 0, 'the drain request and the drain wait');
      assert.deepEqual(seen, ['POST /drain_listeners?inboundonly&graceful']);
      assert.deepEqual(clock.timersDueIn(), [5_000]);
      await clock.advance(4_999);
      assert.equal(ended, false, 'stopped before the drain duration passed');
      await clock.advance(1);
      assert.deepEqual(await stopped, { code: 0, restarts: 0 });
      assert.equal(s.starts, 1);
      rmSync(dirname(up), { recursive: true, force: true });
    });

    it('given a stop during the backoff wait should end without starting the proxy again', async () => {
      const clock = new ManualClock();
      const s = new ProxySupervisor({ binaryPath: '/bin/sh', args: ['-c', 'exit 5'], adminPort: 1, terminationDrainMs: 0, backoff, clock, logger });
      s.start();
      await waitFor(() => clock.pendingTimers > 0, 'the first backoff');
      assert.deepEqual(await s.stop(), { code: 5, restarts: 0 });
      assert.equal(s.starts, 1);
    });
  });
});
