/**
 * A rejected edit must not take the last good config away, against a real API server: a real meshd child
 * process (`--orchconfig`, `--registries Orchestrator`) reads a VirtualService from the CRDs; an update
 * only meshd's semantic checks refuse (weights 0/0; the API server's schema takes it) leaves the previous
 * version served, listed in `/debug/rejectedz` with the resourceVersion still served and counted once;
 * a fixed version replaces it; a new object that was never valid is not served; a delete removes it.
 */
import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { KINDS, renderCrds } from '../crds/index.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';
import { MeshdProcess } from './orch-meshd-harness.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const VS = KINDS.VirtualService;

interface VirtualServiceObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: Record<string, unknown>;
}

interface Rejected {
  readonly object: string;
  readonly location: string;
  readonly reason: string;
  readonly served: string | null;
}

describe('e2e: meshd keeps serving the last valid version of a CRD whose update it rejects', function () {
  this.timeout(180_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  let namespace: string;
  let meshd: MeshdProcess | undefined;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
    await applyCrds(client, renderCrds());
    namespace = await createTestNamespace(core, 'e2e-last-good');
    meshd = await MeshdProcess.start(e2eCluster().kubeconfigPath, namespace, { ENABLE_CA_SERVER: 'false', PILOT_DEBOUNCE_AFTER: '10ms' });
  });

  after(async () => {
    await meshd?.stop();
    if (namespace) await deleteNamespaceFully(core, namespace);
  });

  async function explained<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- meshd output (tail) ---\n${meshd?.log.slice(-4000) ?? ''}`);
    }
  }

  const collection = (): string => `/apis/${VS.group}/${VS.storageVersion}/namespaces/${namespace}/${VS.plural}`;
  const body = (name: string, weights: [number, number]): VirtualServiceObject => ({
    apiVersion: `${VS.group}/${VS.storageVersion}`,
    kind: 'VirtualService',
    metadata: { name, namespace },
    spec: {
      hosts: ['reviews.example.com'],
      http: [{ route: [{ destination: { host: 'reviews.example.com', subset: 'v1' }, weight: weights[0] }, { destination: { host: 'reviews.example.com', subset: 'v2' }, weight: weights[1] }] }],
    },
  });
  /** The weights meshd serves for `name` (`none` when it serves no such VirtualService). */
  const served = async (name: string): Promise<string> => {
    const configs = await meshd!.debug<{ kind: string; metadata: { name: string; namespace: string }; spec: { http?: { route: { weight: number }[] }[] } }[]>('/debug/configz');
    const vs = configs.find((c) => c.kind === 'VirtualService' && c.metadata.name === name && c.metadata.namespace === namespace);
    return vs?.spec.http?.[0]?.route.map((r) => r.weight).join('/') ?? 'none';
  };
  const waitServed = (name: string, want: string): Promise<true> =>
    explained(() => waitFor(`${name} served as ${want}`, async () => ((await served(name)) === want ? true : undefined), 60_000, 100));
  const rejectedz = async (): Promise<Rejected[]> => (await meshd!.debug<{ rejected: Rejected[] }>('/debug/rejectedz')).rejected;
  const rejectedCount = async (): Promise<number> =>
    [...(await meshd!.metrics()).matchAll(/^pilot_total_rejected_configs\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  const put = async (name: string, weights: [number, number]): Promise<VirtualServiceObject> => {
    const current = await client.request<VirtualServiceObject>('GET', `${collection()}/${name}`);
    return client.request<VirtualServiceObject>('PUT', `${collection()}/${name}`, { body: { ...current, spec: body(name, weights).spec } });
  };

  it('given an update meshd rejects should keep serving the previous version, list it in /debug/rejectedz, count it once, and replace it when fixed', async () => {
    const name = uniqueName('vs');
    const created = await client.request<VirtualServiceObject>('POST', collection(), { body: body(name, [30, 80]) });
    await waitServed(name, '30/80');

    const bad = await put(name, [0, 0]);
    const entry = await explained(() =>
      waitFor('the rejection in /debug/rejectedz', async () => (await rejectedz()).find((r) => r.object === `VirtualService ${namespace}/${name}`), 60_000, 100),
    );
    assert.equal(entry.location, `resourceVersion ${bad.metadata.resourceVersion}`);
    assert.equal(entry.reason, 'spec.http[0].route: total destination weight = 0');
    assert.equal(entry.served, `resourceVersion ${created.metadata.resourceVersion}`);
    assert.equal(await served(name), '30/80', 'the last valid version is still served');
    assert.match(meshd!.log, new RegExp(`config rejected: VirtualService ${namespace}/${name} .*still serving resourceVersion ${created.metadata.resourceVersion}`));
    const counted = await rejectedCount();

    // NOTE: the same bad content again is not a new bad version (whether or not the API server records the no-op PUT).
    await put(name, [0, 0]);
    await put(name, [20, 80]);
    await waitServed(name, '20/80');
    assert.equal(await rejectedCount(), counted, 'one bad version is counted once');
    assert.deepEqual((await rejectedz()).filter((r) => r.object.endsWith(`/${name}`)), []);
    await explained(() => waitFor('the recovery log line', async () => (/config recovered/.test(meshd!.log) ? true : undefined), 30_000, 100));

    await put(name, [0, 0]);
    await explained(() => waitFor('the second rejection', async () => ((await rejectedz()).some((r) => r.object.endsWith(`/${name}`)) ? true : undefined), 60_000, 100));
    await client.request('DELETE', `${collection()}/${name}`);
    await waitServed(name, 'none');
    assert.deepEqual((await rejectedz()).filter((r) => r.object.endsWith(`/${name}`)), [], 'a deleted object has no rejection');
  });

  it('given a new object that was never valid should not serve it', async () => {
    const name = uniqueName('vs-never');
    await client.request<VirtualServiceObject>('POST', collection(), { body: body(name, [0, 0]) });
    const entry = await explained(() =>
      waitFor('the rejection in /debug/rejectedz', async () => (await rejectedz()).find((r) => r.object === `VirtualService ${namespace}/${name}`), 60_000, 100),
    );
    assert.equal(entry.served, null);
    assert.equal(await served(name), 'none');
  });
});
