import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { BehaviorSubject } from 'rxjs';
import { InformerFactory, ORCH_RESOURCES, OrchClient, type LabelSelector } from '../controllers/index.js';
import { MESH_CONFIG_LABEL, ROOT_CERT_CONFIGMAP, ROOT_CERT_KEY, RootCertReconciler } from '../reconcilers/index.js';
import { deleteNamespaceFully, e2eCluster, httpStatusOf, uniqueName, waitFor } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const pem = (text: string): string => `-----BEGIN CERTIFICATE-----\n${Buffer.from(text).toString('base64')}\n-----END CERTIFICATE-----\n`;

describe('e2e: root-certificate ConfigMap distribution over a real API server', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  /** A label value unique to this run: the discovery selectors select only namespaces carrying it. */
  let run: string;
  let selectors: LabelSelector[];
  const namespaces: string[] = [];
  const reconcilers: RootCertReconciler[] = [];

  before(() => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
  });

  beforeEach(() => {
    run = uniqueName('run');
    selectors = [{ matchLabels: { 'mesh.io/e2e-root-cert': run } }];
  });

  afterEach(async () => {
    for (const r of reconcilers.splice(0)) await r.stop();
    for (const ns of namespaces.splice(0)) await deleteNamespaceFully(core, ns);
  });

  async function namespace(selected: boolean): Promise<string> {
    const name = uniqueName(selected ? 'e2e-rootcert-in' : 'e2e-rootcert-out');
    const labels: Record<string, string> = { 'mesh.io/e2e': 'true' };
    if (selected) labels['mesh.io/e2e-root-cert'] = run;
    await core.createNamespace({ body: { metadata: { name, labels } } });
    namespaces.push(name);
    return name;
  }

  function startReconciler(bundle$: BehaviorSubject<string>, enhancedResourceScoping = true): RootCertReconciler {
    const informers = new InformerFactory(client, { backoff: { initialMs: 50, maxMs: 1000, jitter: 0 } });
    const reconciler = new RootCertReconciler({
      client, informers, rootCert$: bundle$, discoverySelectors$: new BehaviorSubject(selectors), enhancedResourceScoping,
    });
    reconcilers.push(reconciler);
    reconciler.start();
    return reconciler;
  }

  async function readConfigMap(ns: string): Promise<V1ConfigMap | undefined> {
    try {
      return await core.readNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: ns });
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    }
  }

  async function hasBundle(ns: string, bundle: string): Promise<V1ConfigMap | false> {
    const cm = await readConfigMap(ns);
    return cm?.data?.[ROOT_CERT_KEY] === bundle && cm.metadata?.labels?.[MESH_CONFIG_LABEL] === 'true' ? cm : false;
  }

  /** Waits until the reconciler has nothing queued or running (every event so far handled). */
  async function settled(reconciler: RootCertReconciler): Promise<void> {
    await waitFor('the reconciler to run', () => reconciler.runner !== undefined);
    await reconciler.runner!.idle();
  }

  it('given namespaces created before and after start, should give each selected one the ConfigMap and one outside the selectors none', async () => {
    const before = await namespace(true);
    const outside = await namespace(false);
    const bundle$ = new BehaviorSubject(pem('root-1'));
    const reconciler = startReconciler(bundle$);
    const after = await namespace(true);
    await waitFor(`the ConfigMap in ${before}`, () => hasBundle(before, pem('root-1')));
    await waitFor(`the ConfigMap in ${after}`, () => hasBundle(after, pem('root-1')));
    await settled(reconciler);
    assert.equal(await readConfigMap(outside), undefined, 'a namespace outside the discovery selectors gets no ConfigMap');
  });

  it('given a deleted ConfigMap, should recreate it; given an edited one, should restore it and keep other keys', async () => {
    const ns = await namespace(true);
    startReconciler(new BehaviorSubject(pem('root-1')));
    const first = await waitFor('the ConfigMap', () => hasBundle(ns, pem('root-1')));

    await core.deleteNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace: ns });
    const recreated = await waitFor('the ConfigMap to come back', () => hasBundle(ns, pem('root-1')));
    assert.notEqual(recreated.metadata?.uid, first.metadata?.uid, 'it must be a new object');

    await core.replaceNamespacedConfigMap({
      name: ROOT_CERT_CONFIGMAP,
      namespace: ns,
      body: { ...recreated, metadata: { ...recreated.metadata, labels: {} }, data: { [ROOT_CERT_KEY]: 'tampered', extra: 'kept' } },
    });
    const restored = await waitFor('the edited ConfigMap to be restored', () => hasBundle(ns, pem('root-1')));
    assert.equal(restored.data?.['extra'], 'kept');
  });

  it('given a new root bundle, should update the ConfigMap in every selected namespace', async () => {
    const a = await namespace(true);
    const b = await namespace(true);
    const bundle$ = new BehaviorSubject(pem('root-1'));
    startReconciler(bundle$);
    await waitFor('both ConfigMaps', async () => (await hasBundle(a, pem('root-1'))) && hasBundle(b, pem('root-1')));
    const rotated = pem('root-2') + pem('root-1');
    bundle$.next(rotated);
    await waitFor('both ConfigMaps to carry the new bundle', async () => (await hasBundle(a, rotated)) && hasBundle(b, rotated));
  });

  it('given enhanced resource scoping off, should give a namespace outside the discovery selectors the ConfigMap too, and the system namespaces none', async () => {
    const outside = await namespace(false);
    const reconciler = startReconciler(new BehaviorSubject(pem('root-1')), false);
    await waitFor(`the ConfigMap in ${outside}`, () => hasBundle(outside, pem('root-1')));
    await settled(reconciler);
    for (const system of ['kube-system', 'kube-public', 'kube-node-lease']) {
      assert.equal(await readConfigMap(system), undefined, `system namespace ${system} must get no ConfigMap`);
    }
  });

  it('given stop, should end its watches and its queue (leader-only work ends with leadership)', async () => {
    const ns = await namespace(true);
    const informers = new InformerFactory(client, { backoff: { initialMs: 50, maxMs: 1000, jitter: 0 } });
    const reconciler = new RootCertReconciler({
      client, informers, rootCert$: new BehaviorSubject(pem('root-1')), discoverySelectors$: new BehaviorSubject(selectors), enhancedResourceScoping: true,
    });
    reconcilers.push(reconciler);
    reconciler.start();
    await waitFor('the ConfigMap', () => hasBundle(ns, pem('root-1')));
    assert.equal(informers.informer(ORCH_RESOURCES.namespaces).running, true);
    await reconciler.stop();
    assert.equal(reconciler.runner, undefined);
    assert.equal(informers.informer(ORCH_RESOURCES.namespaces).running, false, 'the namespace watch must stop');
    assert.equal(
      informers.informer(ORCH_RESOURCES.configMaps, { fieldSelector: `metadata.name=${ROOT_CERT_CONFIGMAP}` }).running,
      false,
      'the ConfigMap watch must stop',
    );
  });
});
