import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { ManualClock } from '../../core/index.js';
import { MemoryCaKeyStore } from '../authority/ca-key-store.js';
import { createMeshCa } from '../authority/create-mesh-ca.js';
import { fromPemAll } from '../pki/der.js';
import { waitFor } from '../testing/wait-for.js';
import { ServingCertificateManager } from './serving-certificate.js';

const HOUR = 3600_000;

describe('ServingCertificateManager', () => {
  it('given a root rotation and a half-life timer should re-issue the serving certificate and follow the trust bundle', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const { ca, rotator } = await createMeshCa({
      trustDomain: 'cluster.local', rootCaDir: '/nonexistent/mesh-ca-test',
      selfSigned: { rootTtlMs: 10 * HOUR, rsaKeySize: 2048, checkIntervalMs: HOUR, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
      workload: { defaultTtlMs: HOUR, maxTtlMs: HOUR },
    }, { selfSignedStore: new MemoryCaKeyStore(), clock });
    const manager = new ServingCertificateManager(ca, { dnsNames: ['meshd.mesh-system.svc'], ttlMs: 2 * HOUR });
    const updates: { cert: string; ca: string }[] = [];
    const provider = await manager.start();
    provider.addIdentityCertificateListener((u) => updates.push({ cert: u!.certificate.toString(), ca: '' }));
    provider.addCaCertificateListener((u) => updates.push({ cert: '', ca: u!.caCertificate.toString() }));
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    const first = new X509Certificate(updates.find((u) => u.cert)!.cert);
    assert.equal(first.subjectAltName, 'DNS:meshd.mesh-system.svc');
    assert.deepEqual(clock.timersDueIn(), [HOUR], 'renewal at half the lifetime');
    const issued = (): number => updates.filter((u) => u.cert).length;
    await clock.advance(HOUR);
    await waitFor(() => issued() === 2, 'the half-life renewal');
    assert.deepEqual(clock.timersDueIn(), [HOUR], 'the next renewal at half the new lifetime');

    clock.advanceSync(8 * HOUR);
    assert.equal(await rotator!.checkNow(), 'rotated');
    await manager.renewNow(); // joins the renewal the rotation started
    const latestCert = new X509Certificate([...updates].reverse().find((u) => u.cert)!.cert);
    const latestBundle = fromPemAll([...updates].reverse().find((u) => u.ca)!.ca, 'CERTIFICATE');
    assert.ok(latestCert.verify(ca.authority.root.publicKey), 'serving certificate re-issued by the new root');
    assert.equal(latestBundle.length, 2, 'bundle holds new and old roots');
    manager.stop();
    assert.equal(clock.pendingTimers, 0, 'stop cancels the renewal timer');
  });
});
