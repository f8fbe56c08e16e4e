import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CoreV1Api } from '@kubernetes/client-node';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { bufferIo, runCli } from '../cli/framework/index.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { injectionWebhookConfiguration, validationWebhookConfiguration } from '../webhooks/index.js';
import { directDialer, type PodRef } from '../inspect/index.js';
import { caSecretRoot, SecureMeshd } from './ca-harness.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;

interface Pod {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { containers: { name: string; env?: { name: string; value?: string }[] }[]; initContainers?: { name: string }[] };
}

type Json = Record<string, unknown>;

/**
 * NOTE: the API server reaches meshd at https://localhost:<port>: the mesh CA issues DNS names only (no IP
 * SANs), so meshd's serving certificate names `localhost` (MESHD_CUSTOM_HOST) and the URL uses it; the
 * traffic stays on loopback.
 */
describe('e2e: the API server calls meshd\'s injection and validation webhooks over TLS', function () {
  this.timeout(300_000);
  let core: CoreV1Api;
  let client: OrchClient;
  let meshNs: string;
  const appNs: Record<string, string> = {};
  let meshd: SecureMeshd;
  let canary: SecureMeshd;
  const run = uniqueName('wh');
  const configs: { path: string }[] = [];

  /** Confines a webhook configuration to this test's namespaces (the cluster is shared by the run). */
  const confine = (cfg: Json): Json => {
    for (const wh of cfg['webhooks'] as Json[]) {
      const sel = (wh['namespaceSelector'] ?? {}) as { matchExpressions?: unknown[] };
      wh['namespaceSelector'] = { ...sel, matchExpressions: [...(sel.matchExpressions ?? []), { key: 'mesh.io/e2e-webhooks', operator: 'In', values: [run] }] };
    }
    return cfg;
  };
  const create = async (path: string, body: Json): Promise<void> => {
    await client.request('POST', path, { body });
    const name = (body['metadata'] as { name: string }).name;
    configs.push({ path: `${path}/${name}` });
  };
  const namespace = async (key: string, labels: Record<string, string>): Promise<void> => {
    appNs[key] = await createTestNamespace(core, `e2e-wh-${key}`);
    await client.request('PATCH', `/api/v1/namespaces/${appNs[key]}`, { body: { metadata: { labels: { ...labels, 'mesh.io/e2e-webhooks': run } } }, contentType: 'application/merge-patch+json' });
  };
  const createPod = (ns: string, name: string, meta: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): Promise<Pod> =>
    client.request<Pod>('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { serviceAccountName: 'default', containers: [{ name: 'app', image: 'example/app:1' }] } } });
  const names = (p: Pod): { containers: string[]; init: string[] } => ({ containers: p.spec.containers.map((c) => c.name), init: (p.spec.initContainers ?? []).map((c) => c.name) });

  before(async () => {
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    client = new OrchClient(e2eCluster().kubeConfig(), CLIENT_OPTIONS);
    await applyCrds(client, renderCrds());
    meshNs = await createTestNamespace(core, 'e2e-wh-mesh');
    const env = { MESHD_CUSTOM_HOST: 'localhost', ENABLE_NATIVE_SIDECARS: 'false' };
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, env);
    // NOTE: the canary revision shares the namespace and so the CA secret (one root), as revisions do.
    canary = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, { ...env, REVISION: 'canary' });
    const root = await caSecretRoot(core, meshNs);
    const hooks = '/apis/admissionregistration.k8s.io/v1';
    await create(`${hooks}/mutatingwebhookconfigurations`, confine(injectionWebhookConfiguration({ revision: 'default', name: `mesh-sidecar-injector-${run}`, target: { url: `https://localhost:${meshd.ports.https}` }, caBundlePem: root })));
    await create(`${hooks}/mutatingwebhookconfigurations`, confine(injectionWebhookConfiguration({ revision: 'canary', name: `mesh-sidecar-injector-canary-${run}`, target: { url: `https://localhost:${canary.ports.https}` }, caBundlePem: root })));
    await create(`${hooks}/validatingwebhookconfigurations`, confine(validationWebhookConfiguration({ name: `mesh-validator-${run}`, revision: 'default', target: { url: `https://localhost:${meshd.ports.https}` }, caBundlePem: root, failurePolicy: 'Fail' })));
    await namespace('enabled', { 'mesh-injection': 'enabled' });
    await namespace('disabled', {});
    await namespace('canary', { 'mesh.io/rev': 'canary' });
    // NOTE: the API server picks up new webhook configurations shortly after they are stored: wait for one injection.
    await waitFor('the injection webhook to be called', async () => {
      const p = await createPod(appNs['enabled']!, uniqueName('probe'));
      return names(p).containers.includes('mesh-proxy');
    }, 60_000);
  });

  after(async () => {
    for (const c of configs.splice(0)) await client.request('DELETE', c.path).catch(() => undefined);
    await meshd?.stop();
    await canary?.stop();
    for (const ns of [...Object.values(appNs), meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given a pod in a namespace labelled mesh-injection=enabled, should store it with mesh-init and mesh-proxy injected by the default revision', async () => {
    const pod = await createPod(appNs['enabled']!, 'web');
    assert.deepEqual(names(pod), { containers: ['app', 'mesh-proxy'], init: ['mesh-init'] });
    assert.equal(pod.metadata.annotations?.['mesh.io/rev'], 'default');
    assert.match(pod.metadata.annotations?.['sidecar.mesh.io/status'] ?? '', /"revision":"default"/);
    const stored = await client.request<Pod>('GET', `/api/v1/namespaces/${appNs['enabled']!}/pods/web`);
    assert.deepEqual(names(stored), names(pod));
    assert.ok((await meshd.metric('sidecar_injection_success_total')) >= 2);
  });

  it('given a pod in an unlabelled namespace, should store it unchanged', async () => {
    const pod = await createPod(appNs['disabled']!, 'plain');
    assert.deepEqual(names(pod), { containers: ['app'], init: [] });
    assert.equal(pod.metadata.annotations?.['sidecar.mesh.io/status'], undefined);
  });

  it('given sidecar.mesh.io/inject: "false" as a label (not sent) or an annotation (sent, skipped), should store the pods unchanged', async () => {
    const skipsBefore = await meshd.metric('sidecar_injection_skip_total');
    const byLabel = await createPod(appNs['enabled']!, 'opt-out-label', { labels: { 'sidecar.mesh.io/inject': 'false' } });
    const byAnnotation = await createPod(appNs['enabled']!, 'opt-out-annotation', { annotations: { 'sidecar.mesh.io/inject': 'false' } });
    assert.deepEqual(names(byLabel).containers, ['app']);
    assert.deepEqual(names(byAnnotation).containers, ['app']);
    assert.equal(await meshd.metric('sidecar_injection_skip_total'), skipsBefore + 1, 'only the annotated pod reached the webhook');
  });

  it('given a namespace labelled mesh.io/rev=canary, should be injected by the canary revision\'s webhook', async () => {
    const pod = await createPod(appNs['canary']!, 'canary-web');
    assert.deepEqual(names(pod), { containers: ['app', 'mesh-proxy'], init: ['mesh-init'] });
    assert.equal(pod.metadata.annotations?.['mesh.io/rev'], 'canary');
    const caAddr = pod.spec.containers.find((c) => c.name === 'mesh-proxy')!.env!.find((e) => e.name === 'CA_ADDR')?.value;
    assert.equal(caAddr, 'meshd-canary.mesh-system.svc:15012');
    assert.ok((await canary.metric('sidecar_injection_success_total')) >= 1);
  });

  it('given an invalid VirtualService create, should be refused with the field named; a valid one is stored', async () => {
    const path = `/apis/networking.mesh.io/v1/namespaces/${appNs['enabled']!}/virtualservices`;
    const vs = (name: string, host: string) => ({ apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name }, spec: { hosts: ['reviews'], http: [{ route: [{ destination: { host } }] }] } });
    const err = await client.request('POST', path, { body: vs('bad', '') }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof OrchApiError, `the invalid VirtualService was stored: ${String(err)}`);
    assert.match(err.message, /denied the request: configuration is invalid: .*spec\.http\[0\]\.route\[0\]\.destination\.host/);
    await client.request('POST', path, { body: vs('good', 'reviews') });
  });

  it('given meshctl x check-inject on the enabled namespace, should name the webhook and the namespace label that decided', async () => {
    const io = bufferIo({ HOME: '/nonexistent' });
    const code = await runCli(meshctlCommand(), ['x', 'check-inject', `web.${appNs['enabled']!}`, '--orchconfig', e2eCluster().kubeconfigPath], io);
    assert.equal(code, 0, io.err());
    assert.match(io.out(), new RegExp(`mesh-sidecar-injector-${run}/namespace.sidecar-injector.mesh.io\\s+default\\s+yes\\s+Namespace label mesh-injection=enabled`));
    assert.match(io.out(), new RegExp(`mesh-sidecar-injector-canary-${run}/rev.namespace.sidecar-injector.mesh.io\\s+canary\\s+no\\s+`));
    assert.match(io.out(), /already injected/);
  });

  it('given ConfigMaps mesh-sidecar-injector and mesh in meshd\'s namespace, should inject with them once they are stored', async () => {
    const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    await client.request('POST', `/api/v1/namespaces/${meshNs}/configmaps`, { body: cm('mesh-sidecar-injector', { config: 'injectedAnnotations:\n  e2e.mesh.io/from: configmap\n', values: '{"global": {"proxy": {"logLevel": "debug"}}}' }) });
    await client.request('POST', `/api/v1/namespaces/${meshNs}/configmaps`, { body: cm('mesh', { mesh: 'trustDomain: example.org\n' }) });
    const pod = await waitFor('a pod injected with the ConfigMaps\' settings', async () => {
      const p = await createPod(appNs['enabled']!, uniqueName('cm'));
      return p.metadata.annotations?.['e2e.mesh.io/from'] === 'configmap' ? p : undefined;
    }, 60_000, 250);
    const proxy = pod.spec.containers.find((c) => c.name === 'mesh-proxy')!;
    assert.equal(proxy.env!.find((e) => e.name === 'TRUST_DOMAIN')?.value, 'example.org');
    assert.ok((proxy as { args?: string[] }).args?.includes('--proxyLogLevel=debug'));

    // meshctl orch-inject gives the same proxy (the stored pod adds only server defaults) both ways: through the
    // cluster's injection webhook (no injector files, as istioctl), and with the injector run locally on the same
    // ConfigMaps (a revision without a webhook falls back to its ConfigMaps).
    const dir = mkdtempSync(join(tmpdir(), 'e2e-orch-inject-'));
    try {
      const file = join(dir, 'pod.yaml');
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod.metadata.name, namespace: appNs['enabled']! }, spec: { serviceAccountName: 'default', containers: [{ name: 'app', image: 'example/app:1' }] } }));
      const orchInject = async (...extra: string[]): Promise<{ pod: Pod; err: string }> => {
        const io = bufferIo({ HOME: '/nonexistent' });
        assert.equal(await runCli(meshctlCommand(), ['orch-inject', '-f', file, '--orchconfig', e2eCluster().kubeconfigPath, '--meshNamespace', meshNs, ...extra], io), 0, io.err());
        return { pod: parseYaml(io.out()) as Pod, err: io.err() };
      };
      const remote = await orchInject('--xds-address', `localhost:${meshd.ports.https}`);
      assert.equal(remote.err, '', 'the webhook was called, no fallback');
      const cmDir = join(dir, 'cm');
      mkdirSync(cmDir);
      const cm = await client.request<{ data: Record<string, string> }>('GET', `/api/v1/namespaces/${meshNs}/configmaps/mesh-sidecar-injector`);
      const cmFile = (name: string, key: string): string => {
        const path = join(cmDir, `${name}.yaml`);
        writeFileSync(path, cm.data[key] ?? '');
        return path;
      };
      const meshCm = await client.request<{ data: Record<string, string> }>('GET', `/api/v1/namespaces/${meshNs}/configmaps/mesh`);
      writeFileSync(join(cmDir, 'mesh.yaml'), meshCm.data['mesh'] ?? '');
      const local = await orchInject('--injectConfigFile', cmFile('config', 'config'), '--valuesFile', cmFile('values', 'values'), '--meshConfigFile', join(cmDir, 'mesh.yaml'));
      for (const offline of [remote.pod, local.pod]) {
        const cli = offline.spec.containers.find((c) => c.name === 'mesh-proxy')!;
        assert.deepEqual((cli as { args?: string[] }).args, (proxy as { args?: string[] }).args);
        assert.deepEqual(cli.env!.map((e) => [e.name, e.value]), proxy.env!.map((e) => [e.name, e.value]));
        assert.equal(offline.metadata.annotations?.['e2e.mesh.io/from'], 'configmap');
      }
      const io = bufferIo({ HOME: '/nonexistent' });
      assert.equal(await runCli(meshctlCommand(), ['orch-inject', '-f', file, '--orchconfig', e2eCluster().kubeconfigPath, '--meshNamespace', meshNs, '--revision', 'nosuch'], io), 1);
      assert.match(io.err(), /no injection webhook for revision nosuch \(a MutatingWebhookConfiguration labelled mesh.io\/rev=nosuch; --webhookConfig mesh-sidecar-injector\): injecting with the injector ConfigMaps/);
      assert.match(io.err(), new RegExp(`ConfigMap ${meshNs}/mesh-sidecar-injector-nosuch not found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given an injection webhook behind a Service, should have meshctl orch-inject call it on a running pod of the Service through the pod dialer, with TLS to the Service name', async () => {
    const rev = `svc-${run}`;
    const root = await caSecretRoot(core, meshNs);
    await client.request('POST', `/api/v1/namespaces/${meshNs}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'meshd' }, spec: { selector: { app: `meshd-${run}` }, ports: [{ name: 'https-webhook', port: 443, targetPort: 'https-webhook' }] } },
    });
    await client.request('POST', `/api/v1/namespaces/${meshNs}/pods`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'meshd-0', labels: { app: `meshd-${run}` } }, spec: { containers: [{ name: 'discovery', image: 'meshd:1', ports: [{ name: 'https-webhook', containerPort: 15017 }] }] } },
    });
    // NOTE: no kubelet here: the test marks the pod Running, and its dialer stands in for the API server's port-forward.
    const pod = await client.request<Json>('GET', `/api/v1/namespaces/${meshNs}/pods/meshd-0`);
    await client.request('PUT', `/api/v1/namespaces/${meshNs}/pods/meshd-0/status`, { body: { ...pod, status: { phase: 'Running', podIP: '10.0.0.9' } } });
    await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', confine(injectionWebhookConfiguration({ revision: rev, name: `mesh-sidecar-injector-${rev}`, target: { service: { name: 'meshd', namespace: meshNs } }, caBundlePem: root })));
    const dialed: string[] = [];
    const podDialer = directDialer((p: PodRef, port: number) => {
      dialed.push(`${p.namespace}/${p.name}:${port}`);
      return { host: '127.0.0.1', port: meshd.ports.https };
    });
    const dir = mkdtempSync(join(tmpdir(), 'e2e-orch-inject-svc-'));
    try {
      const file = join(dir, 'pod.yaml');
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: appNs['enabled']! }, spec: { containers: [{ name: 'app', image: 'example/app:1' }] } }));
      const io = bufferIo({ HOME: '/nonexistent' });
      const code = await runCli(meshctlCommand({ podDialer }), ['orch-inject', '-f', file, '--orchconfig', e2eCluster().kubeconfigPath, '--meshNamespace', meshNs, '--revision', rev], io);
      assert.equal(code, 0, io.err());
      assert.equal(io.err(), '', 'the webhook was called, no fallback');
      assert.deepEqual(dialed, [`${meshNs}/meshd-0:15017`]);
      const injected = parseYaml(io.out()) as Pod;
      assert.ok(injected.spec.containers.some((c) => c.name === 'mesh-proxy') || (injected.spec as { initContainers?: { name: string }[] }).initContainers?.some((c) => c.name === 'mesh-proxy'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given neverInjectSelector in the injector ConfigMap, should have meshctl x check-inject say the called webhook\'s injector skips matching pods, and why', async () => {
    const path = `/api/v1/namespaces/${meshNs}/configmaps/mesh-sidecar-injector`;
    const cm = await client.request<{ data: Record<string, string> }>('GET', path);
    await client.request('PATCH', path, { body: { data: { ...cm.data, config: `${cm.data['config'] ?? ''}neverInjectSelector:\n- matchLabels:\n    e2e-injection: never\n` } }, contentType: 'application/merge-patch+json' });
    const check = async (labels: string): Promise<string> => {
      const io = bufferIo({ HOME: '/nonexistent' });
      const code = await runCli(meshctlCommand(), ['x', 'check-inject', '-n', appNs['enabled']!, '-l', labels, '--meshNamespace', meshNs, '--orchconfig', e2eCluster().kubeconfigPath], io);
      assert.equal(code, 0, io.err());
      return io.out();
    };
    const webhook = `mesh-sidecar-injector-${run}/namespace.sidecar-injector.mesh.io`;
    assert.match(await check('e2e-injection=never'), new RegExp(`${webhook}\\s+default\\s+no\\s+Namespace label mesh-injection=enabled[^\\n]*; the injector skips the pod: the pod's labels match neverInjectSelector \\{e2e-injection=never\\}`));
    assert.match(await check('e2e-injection=other'), new RegExp(`${webhook}\\s+default\\s+yes\\s+Namespace label mesh-injection=enabled[^;\\n]*\n`));
  });
});
