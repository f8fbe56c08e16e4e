// Chaos: wall-clock jumps (a stepped system time, a resumed VM) against the workload certificate's rotation, and a consumer of it that fails.
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { ManualClock } from '../../core/index.js';
import { ROTATION_RECHECK_MS, SecretCache } from './secret-cache.js';
import type { CertificateProvider, WorkloadSecret } from './workload-secret.js';

const HOUR = 3600_000;

/** Issues secrets valid for one hour from the clock's wall time (a narrow fake: no keys, no CA). */
class HourProvider implements CertificateProvider {
  readonly name = 'test provider';
  readonly issuedAt: number[] = [];
  constructor(readonly clock: ManualClock) {}
  issue(): Promise<WorkloadSecret> {
    const now = this.clock.wallNow();
    this.issuedAt.push(now);
    return Promise.resolve({ certChainPem: `cert-${this.issuedAt.length}`, keyPem: 'key', rootCertPem: 'root', notBeforeMs: now, notAfterMs: now + HOUR });
  }
}

describe('SecretCache under wall-clock jumps and failing consumers', () => {
  let cache: SecretCache | undefined;
  afterEach(() => cache?.close());

  const start = async (): Promise<{ clock: ManualClock; provider: HourProvider; first: WorkloadSecret }> => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const provider = new HourProvider(clock);
    cache = new SecretCache({ provider, gracePeriodRatio: 0.5, logger: pino({ level: 'silent' }), clock });
    return { clock, provider, first: await cache.ready() };
  };

  it('given the wall clock jumps a day forward (a VM resumed) should rotate at the next check, within a minute, not after the old wait', async () => {
    const { clock, provider, first } = await start();
    clock.jumpWall(24 * HOUR);
    assert.ok(clock.wallNow() > first.notAfterMs, 'the certificate has expired by the wall clock');
    await clock.advance(ROTATION_RECHECK_MS);
    assert.equal(provider.issuedAt.length, 2, 'rotated at the first check after the jump');
    assert.ok(cache!.current!.notAfterMs > clock.wallNow(), 'the new certificate is valid now');
    process.stdout.write(`      survived: a 24 h forward jump, rotated ${ROTATION_RECHECK_MS / 1000} s (monotonic) later\n`);
  });

  it('given the wall clock jumps a day back should not rotate early, keep checking, and rotate when the wall clock reaches the grace period', async () => {
    const { clock, provider, first } = await start();
    clock.jumpWall(-24 * HOUR);
    await clock.advance(HOUR);
    assert.equal(provider.issuedAt.length, 1, 'no rotation: by the wall clock the grace period is a day away');
    assert.equal(clock.pendingTimers, 1, 'one check pending, no busy loop');
    assert.ok(clock.timersDueIn()[0]! <= ROTATION_RECHECK_MS);
    const left = cache!.rotationAtMs(first) - clock.wallNow();
    await clock.advance(left - ROTATION_RECHECK_MS);
    assert.equal(provider.issuedAt.length, 1);
    await clock.advance(ROTATION_RECHECK_MS);
    assert.equal(provider.issuedAt.length, 2, 'rotated once the wall clock reached the grace period');
    process.stdout.write(`      survived: a 24 h backward jump, rotated at the grace period by the wall clock\n`);
  });

  it('given no jump should rotate half-way through the lifetime, once', async () => {
    const { clock, provider } = await start();
    await clock.advance(HOUR / 2 - 1000);
    assert.equal(provider.issuedAt.length, 1);
    await clock.advance(1000);
    assert.equal(provider.issuedAt.length, 2);
  });

  it('given a consumer of the new secret that throws (certificate files on a full disk) should still hand it to the others and keep rotating, without requesting another', async () => {
    const { clock, provider } = await start();
    const seen: string[] = [];
    cache!.subscribe(() => {
      throw new Error('cannot write /etc/certs/cert-chain.pem: ENOSPC: no space left on device, write');
    });
    cache!.subscribe((s) => seen.push(s.certChainPem));
    await clock.advance(HOUR / 2 + ROTATION_RECHECK_MS);
    assert.deepEqual(seen, ['cert-2'], 'the consumer after the failing one got the rotated secret');
    assert.equal(provider.issuedAt.length, 2, 'the failure is not taken for a failed issue (no extra request)');
    assert.equal(cache!.current!.certChainPem, 'cert-2');
    await clock.advance(HOUR / 2 + ROTATION_RECHECK_MS);
    assert.deepEqual(seen, ['cert-2', 'cert-3'], 'and the next rotation comes on time');
  });
});
