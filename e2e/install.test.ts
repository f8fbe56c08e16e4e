import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { COMPONENT_LABEL, ManifestApplier, OWNING_RESOURCE_LABEL, resolveMeshOperator, TAG_LABEL } from '../install/index.js';
import { bufferIo, FlagValues, runCli } from '../cli/framework/index.js';
import { readInstallSpec, renderInstallObjects } from '../cli/meshctl/install-spec.js';
import { meshctlCommand } from '../cli/meshctl/meshctl-command.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, waitFor, markDeploymentsAvailable } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const NS = 'mesh-system';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

interface Deployment {
  metadata: { name: string; generation?: number; managedFields?: { manager: string }[] };
  spec: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number; updatedReplicas?: number };
}

async function meshctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(meshctlCommand(), [...args, '--orchconfig', e2eCluster().kubeconfigPath], io);
  return { code, out: io.out(), err: io.err() };
}

async function exists(client: OrchClient, path: string): Promise<boolean> {
  try {
    await client.request('GET', path);
    return true;
  } catch (e) {
    if (e instanceof OrchApiError && e.status === 404) return false;
    throw e;
  }
}

/** Every object of the installer's kinds carrying `selector`, as `Kind name` strings. */
async function labelled(client: OrchClient, selector: string): Promise<string[]> {
  const applier = new ManifestApplier(client, { readinessTimeoutMs: 0 });
  return (await applier.findLive(selector)).map((l) => `${l.info.kind} ${l.namespace}/${l.name}`);
}

describe('e2e: meshctl install, upgrade, tag, verify-install and uninstall on a real API server', function () {
  this.timeout(300_000);
  let kc: KubeConfig;
  let client: OrchClient;
  let kubelet: Subscription | undefined;
  let userNs: string | undefined;

  before(() => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, CLIENT_OPTIONS);
    // NOTE: a stand-in for the kubelet and the deployment controller (the harness runs neither) marks Deployments available.
    kubelet = markDeploymentsAvailable(client, DEPLOYMENTS);
  });

  after(async () => {
    kubelet?.unsubscribe();
    if (userNs) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), userNs);
    // NOTE: uninstall --purge removed the mesh CRDs; later e2e files of the same run expect them.
    const crds = renderCrds();
    await waitFor('the purged CRDs to be gone', async () => {
      for (const c of crds) if (await exists(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${c.metadata.name}`)) return false;
      return true;
    }, 240_000);
    await applyCrds(client, crds);
  });

  it('given no -y and no terminal, install should refuse to change the cluster and create nothing', async () => {
    const r = await meshctl('install');
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /pass -y \(--skip-confirmation\)/);
    assert.equal(await exists(client, `${DEPLOYMENTS}/meshd`), false);
  });

  it('given --dry-run, install should list every object as a create and create nothing', async () => {
    const r = await meshctl('install', '--dry-run');
    assert.equal(r.code, 0, r.err);
    const objects = renderInstallObjects(readInstallSpec(new FlagValues([], new Map(), new Set()), []));
    // NOTE: earlier e2e files of the run may have applied the mesh CRDs (without the install's labels): those
    // are updates (labels added); every other object is a create, and nothing is deleted.
    const lines = r.out.split('\n').filter((l) => /^ {2}[+~-] /.test(l));
    const updates = lines.filter((l) => l.startsWith('  ~ '));
    assert.ok(updates.every((l) => l.startsWith('  ~ CustomResourceDefinition ')), `only CRDs may be updates:\n${updates.join('\n')}`);
    assert.equal(lines.filter((l) => l.startsWith('  - ')).length, 0);
    assert.equal(lines.length, objects.length, r.out);
    assert.match(r.out, new RegExp(`${objects.length - updates.length} to create, ${updates.length} to update, 0 to delete`));
    assert.equal(await exists(client, `${DEPLOYMENTS}/meshd`), false);
  });

  it('given install -y, should create every object, labelled and applied by meshctl, and verify-install should pass', async () => {
    const r = await meshctl('install', '-y', '--readiness-timeout', '120s');
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, /✔ Pilot installed/);
    assert.match(r.out, /✔ Installation complete/);
    const objects = renderInstallObjects(readInstallSpec(new FlagValues([], new Map(), new Set()), []));
    const live = new Set(await labelled(client, `${OWNING_RESOURCE_LABEL}=installed-state`));
    for (const o of objects) assert.ok(live.has(`${o.kind} ${o.namespace}/${o.name}`), `${o.kind} ${o.namespace}/${o.name} missing or unlabelled`);
    const d = await client.request<Deployment>('GET', `${DEPLOYMENTS}/meshd`);
    assert.ok(d.metadata.managedFields?.some((m) => m.manager === 'meshctl'), 'the Deployment has no field manager meshctl');
    const v = await meshctl('verify-install');
    assert.equal(v.code, 0, v.out);
    assert.match(v.out, new RegExp(`verified successfully \\(${objects.length} objects\\)`));
  });

  it('given an installed control plane, install --dry-run should show nothing to change', async () => {
    const r = await meshctl('install', '--dry-run');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /0 to create, 0 to update, 0 to delete/);
  });

  it('given upgrade with autoscaling off and 2 replicas, should patch the Deployment and prune the HPA', async () => {
    const plan = await meshctl('upgrade', '--dry-run', '--set', 'values.pilot.autoscaleEnabled=false', '--set', 'values.pilot.replicaCount=2');
    assert.match(plan.out, /~ Deployment mesh-system\/meshd \(Pilot\): spec/);
    assert.match(plan.out, /- HorizontalPodAutoscaler mesh-system\/meshd \(Pilot\)/);
    const r = await meshctl('upgrade', '-y', '--verify', '--set', 'values.pilot.autoscaleEnabled=false', '--set', 'values.pilot.replicaCount=2');
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, /Removed HorizontalPodAutoscaler mesh-system\/meshd/);
    assert.match(r.out, /✔ Mesh is installed and verified successfully/);
    const d = await client.request<Deployment>('GET', `${DEPLOYMENTS}/meshd`);
    assert.equal(d.spec.replicas, 2);
    assert.equal(await exists(client, `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/meshd`), false);
  });

  it('given an install interrupted part way, running it again should finish it', async () => {
    const spec = resolveMeshOperator({ revision: 'canary' }).spec;
    const objects = renderInstallObjects({ ...readInstallSpec(new FlagValues([], new Map(), new Set()), []), spec, owner: { name: 'installed-state', namespace: NS, revision: 'canary' } });
    const webhookAt = objects.findIndex((o) => o.kind === 'MutatingWebhookConfiguration' && o.name === 'mesh-sidecar-injector-canary');
    assert.ok(webhookAt > 2, 'the canary webhook configuration is rendered');
    const controller = new AbortController();
    let applied = 0;
    const applier = new ManifestApplier(client, {
      readinessTimeoutMs: 60_000,
      signal: controller.signal,
      onProgress: (p) => {
        // NOTE: stop two objects before the canary's injection webhook configuration (gateways may follow it).
        if (p.phase === 'applied' && ++applied === webhookAt - 2) controller.abort(new Error('interrupted by the test'));
      },
    });
    await assert.rejects(applier.apply(objects), /interrupted by the test/);
    assert.equal(await exists(client, `${MWC}/mesh-sidecar-injector-canary`), false, 'the last objects must not be applied yet');
    const r = await meshctl('install', '-y', '--revision', 'canary', '--readiness-timeout', '120s');
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.ok(await exists(client, `${MWC}/mesh-sidecar-injector-canary`));
    assert.ok(await exists(client, `${DEPLOYMENTS}/meshd-canary`));
  });

  it('given tag set prod --revision canary, should create the tag webhook pointing at the canary meshd', async () => {
    const r = await meshctl('tag', 'set', 'prod', '--revision', 'canary');
    assert.equal(r.code, 0, r.err);
    const wh = await client.request<{ metadata: { labels: Record<string, string> }; webhooks: { clientConfig: { service: { name: string } } }[] }>('GET', `${MWC}/mesh-revision-tag-prod`);
    assert.equal(wh.metadata.labels['mesh.io/rev'], 'canary');
    assert.equal(wh.metadata.labels[TAG_LABEL], 'prod');
    assert.ok(wh.webhooks.length > 0 && wh.webhooks.every((w) => w.clientConfig.service.name === 'meshd-canary'));
    const list = await meshctl('tag', 'list');
    assert.match(list.out, /^prod\s+canary/m);
  });

  it('given an existing tag, tag set without --overwrite should refuse, and with a revision name as tag should refuse', async () => {
    const again = await meshctl('tag', 'set', 'prod', '--revision', 'default');
    assert.equal(again.code, 1);
    assert.match(again.err, /revision tag "prod" already exists, and --overwrite is false/);
    const clash = await meshctl('tag', 'set', 'canary', '--revision', 'default');
    assert.equal(clash.code, 1);
    assert.match(clash.err, /found existing control plane revision with same name/);
    const missing = await meshctl('tag', 'set', 'qa', '--revision', 'nosuch');
    assert.match(missing.err, /cannot find MutatingWebhookConfiguration with revision "nosuch"/);
  });

  it('given a namespace using tag prod, tag remove should refuse without -y and remove it with -y', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    userNs = await createTestNamespace(core, 'e2e-tag');
    await client.request('PATCH', `/api/v1/namespaces/${userNs}`, { body: { metadata: { labels: { 'mesh.io/rev': 'prod' } } }, contentType: 'application/merge-patch+json' });
    const refused = await meshctl('tag', 'remove', 'prod');
    assert.equal(refused.code, 1);
    assert.match(refused.err, new RegExp(`in use by 1 object\\(s\\): namespace ${userNs}`));
    assert.ok(await exists(client, `${MWC}/mesh-revision-tag-prod`));
    const removed = await meshctl('tag', 'remove', 'prod', '-y');
    assert.equal(removed.code, 0, removed.err);
    assert.equal(await exists(client, `${MWC}/mesh-revision-tag-prod`), false);
  });

  it('given tag set default --revision canary, should take over the default validation', async () => {
    const r = await meshctl('tag', 'set', 'default', '--revision', 'canary');
    assert.equal(r.code, 0, r.err);
    const vwc = await client.request<{ webhooks: { clientConfig: { service: { name: string } } }[] }>('GET', `${VWC}/mesh-validator-canary-${NS}`);
    assert.equal(vwc.webhooks[0]?.clientConfig.service.name, 'meshd-canary');
    assert.equal(await exists(client, `${VWC}/mesh-validator-default-${NS}`), false);
  });

  it('given uninstall without a revision, file or purge, should refuse', async () => {
    const r = await meshctl('uninstall', '-y');
    assert.equal(r.code, 1);
    assert.match(r.err, /at least one of the --revision/);
  });

  it('given uninstall --revision canary, should remove the canary control plane and keep the shared base', async () => {
    const r = await meshctl('uninstall', '--revision', 'canary', '-y');
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.equal(await exists(client, `${DEPLOYMENTS}/meshd-canary`), false);
    assert.ok(await exists(client, `${DEPLOYMENTS}/meshd`));
    assert.ok(await exists(client, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/virtualservices.networking.mesh.io'));
  });

  it('given uninstall --purge, should leave no mesh object behind', async () => {
    const r = await meshctl('uninstall', '--purge', '-y');
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    // NOTE: a CRD whose instances the API server is still deleting stays (terminating) for a while.
    await waitFor('no labelled mesh object', async () => (await labelled(client, `${COMPONENT_LABEL}`)).length === 0 && (await labelled(client, TAG_LABEL)).length === 0, 240_000);
    const crds = await client.request<{ items: { metadata: { name: string } }[] }>('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    assert.deepEqual(crds.items.map((c) => c.metadata.name).filter((n) => n.endsWith('.mesh.io')), []);
    await waitFor('no mesh webhook configuration', async () => {
      const m = await client.request<{ items: { metadata: { name: string } }[] }>('GET', MWC);
      const v = await client.request<{ items: { metadata: { name: string } }[] }>('GET', VWC);
      return [...m.items, ...v.items].every((w) => !w.metadata.name.startsWith('mesh')) || undefined;
    });
  });
});
