import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { createCsrPem, decodeCsrPem, type DecodedCsr } from '../pki/csr.js';
import { fromPemAll } from '../pki/der.js';
import { ClientCertificateAuthenticator } from '../server/client-certificate-authenticator.js';
import { CertificateService } from '../server/certificate-service.js';
import { waitFor } from '../testing/wait-for.js';
import { createTestCaMetrics } from '../testing/test-ca-metrics.js';
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '../../core/index.js';
import { MemoryCaKeyStore } from './ca-key-store.js';
import { createMeshCa, type CaOptions } from './create-mesh-ca.js';
import { RootRotator, inGracePeriod } from './root-rotator.js';

const HOUR = 3600_000;
const ID = 'spiffe://cluster.local/ns/default/sa/sleep';
const options = (checkIntervalMs: number, enableJitter = false): CaOptions => ({
  trustDomain: 'cluster.local',
  rootCaDir: '/nonexistent/mesh-ca-test',
  selfSigned: { rootTtlMs: 10 * HOUR, rsaKeySize: 2048, checkIntervalMs, enableJitter, gracePeriodPercentile: 20, useCacertsSecret: false },
  workload: { defaultTtlMs: HOUR, maxTtlMs: 24 * HOUR },
});
const csr = (): DecodedCsr => decodeCsrPem(createCsrPem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, { uris: [ID] }));

describe('inGracePeriod', () => {
  const from = new Date(0);
  const to = new Date(100 * HOUR);
  const cases = [
    { name: 'given 50% of the lifetime left should be false', now: 50 * HOUR, want: false },
    { name: 'given exactly 20% left should be true', now: 80 * HOUR, want: true },
    { name: 'given 21% left should be false', now: 79 * HOUR, want: false },
    { name: 'given an expired certificate should be true', now: 101 * HOUR, want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(inGracePeriod(from, to, 20, new Date(c.now)), c.want));
});

describe('RootRotator', () => {
  let rotators: RootRotator[] = [];
  afterEach(() => {
    for (const r of rotators) r.stop();
    rotators = [];
  });

  it('given a short-lived root and an injected clock should rotate in the grace period, keep the old root trusted until it expires, then prune it', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const store = new MemoryCaKeyStore();
    const { ca, rotator } = await createMeshCa(options(HOUR), { selfSignedStore: store, clock });
    assert.ok(rotator);
    rotators.push(rotator);
    const metrics = createTestCaMetrics();
    const service = new CertificateService({ trustDomain: 'cluster.local', trustedNodeAccounts: [] }, { ca, authenticators: [], metrics });
    const oldRoot = ca.authority.root;
    rotator.start();
    assert.deepEqual(clock.timersDueIn(), [HOUR], 'no jitter: first check after one interval');

    assert.equal(clock.advanceSync(7 * HOUR), 1, 'the first check ran'); // 30% left: outside the 20% grace period
    assert.equal(await rotator.checkNow(), 'unchanged');
    assert.equal(ca.authority.root.fingerprint256, oldRoot.fingerprint256);
    await waitFor(() => clock.pendingTimers === 1, 'the next check is scheduled');
    assert.deepEqual(clock.timersDueIn(), [HOUR], 'the next check one interval later');
    const oldLeaf = new X509Certificate((await ca.signWorkload(csr(), [ID], 2 * HOUR))[0]!);

    assert.equal(clock.advanceSync(HOUR + 60_000), 1, 'the scheduled check ran'); // 19% left: rotate
    const outcome = await rotator.checkNow();
    assert.ok(outcome === 'rotated' || outcome === 'unchanged', outcome); // the scheduled check may have done it
    const newRoot = ca.authority.root;
    assert.notEqual(newRoot.fingerprint256, oldRoot.fingerprint256, 'a new root is active');
    assert.deepEqual(ca.authority.trustedRoots.map((r) => r.fingerprint256), [newRoot.fingerprint256, oldRoot.fingerprint256]);
    assert.equal(fromPemAll((await store.load())!.rootCertPem, 'CERTIFICATE').length, 2, 'root-cert.pem holds both roots');
    assert.equal(await metrics.value('certauth_server_root_cert_expiry_timestamp'), Math.floor(new Date(newRoot.validTo).getTime() / 1000));

    const newLeafChain = await ca.signWorkload(csr(), [ID], 0);
    const newLeaf = new X509Certificate(newLeafChain[0]!);
    assert.equal(newLeafChain[newLeafChain.length - 1], newRoot.toString(), 'new chains end at the new root');
    assert.ok(newLeaf.verify(newRoot.publicKey));
    assert.ok(!newLeaf.verify(oldRoot.publicKey));
    assert.ok(oldLeaf.verify(ca.authority.trustedRoots[1]!.publicKey), 'old leaf verifies against the bundle');
    const metadata = new grpc.Metadata();
    const oldCaller = await new ClientCertificateAuthenticator(ca, 'cluster.local').authenticate({ metadata, peerCertificate: oldLeaf.raw });
    assert.deepEqual(oldCaller?.identities, [ID], 'an old-root identity still authenticates within the grace period');

    await waitFor(() => clock.pendingTimers === 1, 'the check after the rotation is scheduled');
    rotator.stop();
    assert.equal(clock.pendingTimers, 0, 'stop cancels the next check');
    clock.advanceSync(2 * HOUR); // the old root has expired
    assert.equal(await rotator.checkNow(), 'pruned');
    assert.deepEqual(ca.authority.trustedRoots.map((r) => r.fingerprint256), [newRoot.fingerprint256]);
    service.close();
  });

  it('given two replicas sharing a store should adopt the root the other replica rotated', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const store = new MemoryCaKeyStore();
    const a = await createMeshCa(options(HOUR), { selfSignedStore: store, clock });
    const b = await createMeshCa(options(HOUR), { selfSignedStore: store, clock });
    assert.equal(a.ca.authority.root.fingerprint256, b.ca.authority.root.fingerprint256, 'second replica loads the stored root');
    clock.advanceSync(9 * HOUR);
    assert.equal(await a.rotator!.checkNow(), 'rotated');
    assert.equal(await b.rotator!.checkNow(), 'adopted-stored');
    assert.equal(b.ca.authority.root.fingerprint256, a.ca.authority.root.fingerprint256);
  });

  const startCases = [
    { name: 'given jitter should schedule the first check at a random point below the interval', interval: HOUR, jitter: true, want: [HOUR / 4] },
    { name: 'given a zero interval should schedule nothing', interval: 0, jitter: true, want: [] },
    { name: 'given a negative interval should schedule nothing', interval: -HOUR, jitter: false, want: [] },
  ];
  for (const c of startCases) {
    it(c.name, async () => {
      const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
      const { ca } = await createMeshCa(options(HOUR), { selfSignedStore: new MemoryCaKeyStore(), clock });
      const rotator = new RootRotator(
        { checkIntervalMs: c.interval, enableJitter: c.jitter, gracePeriodPercentile: 20, rootTtlMs: 10 * HOUR, rsaKeySize: 2048, trustDomain: 'cluster.local' },
        { ca, store: new MemoryCaKeyStore(), random: () => 0.25 },
      );
      rotators.push(rotator);
      rotator.start();
      assert.deepEqual(clock.timersDueIn(), c.want);
    });
  }
});
