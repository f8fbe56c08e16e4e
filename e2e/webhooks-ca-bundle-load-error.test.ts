import assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { createMetrics } from '../core/index.js';
import { InformerFactory, OrchClient } from '../controllers/index.js';
import { caBundleProblem, WebhookCaBundleReconciler } from '../reconcilers/index.js';
import { validationWebhookConfiguration } from '../webhooks/index.js';
import { createSelfSignedRoot } from '../ca/index.js';
import { e2eCluster, uniqueName, waitFor } from './harness/index.js';

const HOOKS = '/apis/admissionregistration.k8s.io/v1';

describe('e2e: the webhook caBundle patcher refuses a root bundle that does not load', function () {
  this.timeout(120_000);
  let root = '';
  before(async () => {
    root = (await createSelfSignedRoot({ trustDomain: 'cluster.local', ttlMs: 3_600_000, rsaKeySize: 2048, now: new Date() })).certPem;
  });

  it('given bundles without a certificate or with a corrupt one, should name the problem; a good bundle passes', () => {
    assert.equal(caBundleProblem('not a certificate'), 'the CA bundle holds no PEM certificate');
    assert.match(caBundleProblem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') ?? '', /^certificate 1 of the CA bundle does not parse: /);
    assert.equal(caBundleProblem(root), undefined);
  });

  it('given a garbage root bundle, should count webhook_validation_config_load_error once and leave the configuration alone; the next good bundle is patched in', async () => {
    const client = new OrchClient(e2eCluster().kubeConfig(), { qps: 50, burst: 100, contentType: 'json' });
    const name = uniqueName('mesh-validator-load');
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    const roots = new Subject<string>();
    await client.request('POST', `${HOOKS}/validatingwebhookconfigurations`, {
      body: validationWebhookConfiguration({ name, revision: 'default', target: { url: 'https://localhost:1' }, caBundlePem: '', failurePolicy: 'Ignore' }),
    });
    const patcher = new WebhookCaBundleReconciler({
      client, informers: new InformerFactory(client), rootCert$: roots, injectionConfigName: `${name}-injector`, validationConfigName: name, revision: 'default', metrics,
    });
    const loadErrors = async (): Promise<number> => (await metrics.counter('webhook_validation_config_load_error').get()).values[0]?.value ?? 0;
    const current = async (): Promise<{ caBundle?: string; failurePolicy?: string }> => {
      const cfg = await client.request<{ webhooks: { clientConfig: { caBundle?: string }; failurePolicy?: string }[] }>('GET', `${HOOKS}/validatingwebhookconfigurations/${name}`);
      return { caBundle: cfg.webhooks[0]!.clientConfig.caBundle, failurePolicy: cfg.webhooks[0]!.failurePolicy };
    };
    try {
      patcher.start();
      roots.next('-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
      await waitFor('the load error counted', async () => (await loadErrors()) === 1, 30_000, 100);
      const good = root;
      roots.next(good);
      await waitFor('the good bundle patched in', async () => (await current()).caBundle === Buffer.from(good).toString('base64'), 30_000, 100);
      assert.equal(await loadErrors(), 1);
      assert.equal((await current()).failurePolicy, 'Fail');
    } finally {
      await patcher.stop();
      await client.request('DELETE', `${HOOKS}/validatingwebhookconfigurations/${name}`).catch(() => undefined);
    }
  });
});
