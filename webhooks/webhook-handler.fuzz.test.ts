import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startWebhookFuzzSurface, type WebhookFuzzSurface } from './testing/webhook-fuzz-surface.js';

// NOTE: the seeded CI share of the webhook fuzz surface; `npm run fuzz -- --surface webhooks` is the big run.
describe('webhooks (/inject, /validate) under fuzzing (seeded share)', function () {
  this.timeout(180_000);
  let s: WebhookFuzzSurface | undefined;
  after(async () => {
    await s?.close();
  });

  it('given 300 seeded hostile AdmissionReviews should answer each with a patch that applies or a refusal naming why, and still inject a plain pod', async () => {
    s = await startWebhookFuzzSurface();
    const surface = s;
    const reasons = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(surface.arbitrary, async (input) => {
        const r = await surface.check(input);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }),
      { seed: 19_25, numRuns: 300 },
    );
    await surface.healthy();
    assert.ok((reasons.get('patched') ?? 0) > 0, `some pods were injected: ${[...reasons.keys()].join(' | ')}`);
    assert.ok(reasons.size > 8, `answers of many kinds: ${[...reasons.keys()].join(' | ')}`);
  });

  it('given a "garbage" envelope that is a valid review of an injectable pod (fuzz finding: the check patched no pod) should check the patch against the pod in the body', async () => {
    s ??= await startWebhookFuzzSurface();
    const pod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { generateName: 'web-', namespace: 'app', labels: { app: 'web' }, annotations: { 'sidecar.mesh.io/inject': 'true' } },
      spec: { serviceAccountName: 'web', containers: [{ name: 'web', image: 'nginx' }] },
    };
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'seed', object: pod } });
    assert.equal(await s.check({ path: '/inject', body }), 'patched');
  });
});
