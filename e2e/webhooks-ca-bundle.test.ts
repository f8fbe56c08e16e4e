import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { injectionWebhookConfiguration, validationWebhookConfiguration } from '../webhooks/index.js';
import { caSecretRoot, SecureMeshd } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const HOOKS = '/apis/admissionregistration.k8s.io/v1';

type Json = Record<string, unknown>;
interface WebhookConfig {
  webhooks: { clientConfig: { caBundle?: string }; failurePolicy?: string }[];
}

const certs = (bundle: string): X509Certificate[] => bundle.split(/(?=-----BEGIN CERTIFICATE-----)/).filter((p) => p.includes('BEGIN')).map((p) => new X509Certificate(p));
const fingerprints = (bundle: string): string[] => certs(bundle).map((c) => c.fingerprint256);

describe('e2e: meshd keeps its webhook configurations\' caBundle on its CA roots (patcher, root rotation)', function () {
  this.timeout(300_000);
  let core: CoreV1Api;
  let client: OrchClient;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  const run = uniqueName('whca');
  const injName = `mesh-sidecar-injector-${run}`;
  const valName = `mesh-validator-${run}`;

  const confine = (cfg: Json): Json => {
    for (const wh of cfg['webhooks'] as Json[]) {
      const sel = (wh['namespaceSelector'] ?? {}) as { matchExpressions?: unknown[] };
      wh['namespaceSelector'] = { ...sel, matchExpressions: [...(sel.matchExpressions ?? []), { key: 'mesh.io/e2e-webhooks', operator: 'In', values: [run] }] };
    }
    return cfg;
  };
  const caBundleOf = async (kind: string, name: string): Promise<{ bundle: string; failurePolicy: string | undefined }> => {
    const cfg = await client.request<WebhookConfig>('GET', `${HOOKS}/${kind}/${name}`);
    return { bundle: Buffer.from(cfg.webhooks[0]!.clientConfig.caBundle ?? '', 'base64').toString(), failurePolicy: cfg.webhooks[0]!.failurePolicy };
  };

  before(async () => {
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    client = new OrchClient(e2eCluster().kubeConfig(), CLIENT_OPTIONS);
    meshNs = await createTestNamespace(core, 'e2e-whca-mesh');
    appNs = await createTestNamespace(core, 'e2e-whca-app');
    await client.request('PATCH', `/api/v1/namespaces/${appNs}`, { body: { metadata: { labels: { 'mesh-injection': 'enabled', 'mesh.io/e2e-webhooks': run } } }, contentType: 'application/merge-patch+json' });
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, {
      MESHD_CUSTOM_HOST: 'localhost',
      INJECTION_WEBHOOK_CONFIG_NAME: injName,
      VALIDATION_WEBHOOK_CONFIG_NAME: valName,
      CERTAUTH_SELF_SIGNED_CA_CERT_TTL: '60s',
      CERTAUTH_SELF_SIGNED_ROOT_CERT_CHECK_INTERVAL: '1s',
      CERTAUTH_SELF_SIGNED_ROOT_CERT_GRACE_PERIOD_PERCENTILE: '50',
      CERTAUTH_ENABLE_JITTER_FOR_ROOT_CERT_ROTATOR: 'false',
    });
    // NOTE: installed as an installer would before meshd runs: no caBundle yet, validation failing open.
    await client.request('POST', `${HOOKS}/mutatingwebhookconfigurations`, { body: confine(injectionWebhookConfiguration({ revision: 'default', name: injName, target: { url: `https://localhost:${meshd.ports.https}` }, caBundlePem: '' })) });
    await client.request('POST', `${HOOKS}/validatingwebhookconfigurations`, { body: confine(validationWebhookConfiguration({ name: valName, revision: 'default', target: { url: `https://localhost:${meshd.ports.https}` }, caBundlePem: '', failurePolicy: 'Ignore' })) });
  });

  after(async () => {
    await client?.request('DELETE', `${HOOKS}/mutatingwebhookconfigurations/${injName}`).catch(() => undefined);
    await client?.request('DELETE', `${HOOKS}/validatingwebhookconfigurations/${valName}`).catch(() => undefined);
    await meshd?.stop();
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given configurations without a caBundle, should patch in the CA roots, move validation to Fail, and re-patch after a root rotation so injection keeps working', async () => {
    const oldBundle = await caSecretRoot(core, meshNs);
    await waitFor('the injection caBundle patched to the CA roots', async () => (await caBundleOf('mutatingwebhookconfigurations', injName)).bundle === oldBundle, 60_000, 250);
    await waitFor('the validation caBundle patched and failurePolicy Fail', async () => {
      const v = await caBundleOf('validatingwebhookconfigurations', valName);
      return v.bundle === oldBundle && v.failurePolicy === 'Fail';
    }, 60_000, 250);
    assert.ok((await meshd.metric('webhook_patch_attempts_total')) >= 1);
    assert.ok((await meshd.metric('webhook_validation_config_updates')) >= 1);

    const oldRoot = fingerprints(oldBundle)[0]!;
    const newBundle = await waitFor('a rotated root in mesh-ca-secret', async () => {
      const bundle = await caSecretRoot(core, meshNs);
      return fingerprints(bundle)[0] !== oldRoot ? bundle : undefined;
    }, 120_000, 500);
    const newRoot = fingerprints(newBundle)[0]!;
    await waitFor('the injection caBundle re-patched with the new root', async () => {
      const fps = fingerprints((await caBundleOf('mutatingwebhookconfigurations', injName)).bundle);
      return fps.includes(newRoot) && fps.includes(oldRoot);
    }, 60_000, 250);

    // The serving certificate follows the root; the API server, trusting the patched bundle, still calls meshd.
    // NOTE: ENABLE_NATIVE_SIDECARS is unset and the test cluster is 1.34: the proxy is a native sidecar.
    const pod = await waitFor('a pod injected after the rotation', async () => {
      const p = await client.request<{ metadata: { annotations?: Record<string, string> }; spec: { containers: { name: string }[]; initContainers?: { name: string; restartPolicy?: string }[] } }>('POST', `/api/v1/namespaces/${appNs}/pods`, {
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: uniqueName('after') }, spec: { serviceAccountName: 'default', containers: [{ name: 'app', image: 'example/app:1' }] } },
      });
      return p.metadata.annotations?.['sidecar.mesh.io/status'] !== undefined ? p : undefined;
    }, 60_000, 500);
    assert.deepEqual(pod.spec.containers.map((c) => c.name), ['app']);
    assert.deepEqual(pod.spec.initContainers?.map((c) => [c.name, c.restartPolicy]), [['mesh-init', undefined], ['mesh-proxy', 'Always']]);
  });
});
