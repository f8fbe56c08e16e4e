/**
 * meshd's config status on a real API server: a real meshd child process (`--orchconfig`, `--registries
 * Orchestrator`, PILOT_ENABLE_STATUS=true) writes a `Reconciled` condition on the VirtualServices it reads
 * from the CRDs: True with the object's generation when accepted (and again after an update), False with
 * the validation message naming the field when only the semantic checks refuse it.
 */
import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { KINDS, renderCrds, validateConfig } from '../crds/index.js';
import type { StatusCondition } from '../reconcilers/index.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';
import { MeshdProcess } from './orch-meshd-harness.js';
import { type VirtualServiceObject } from './harness/meshd-objects.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const VS = KINDS.VirtualService;

describe('e2e: meshd writes config status (PILOT_ENABLE_STATUS) from the CRD config source', function () {
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
    namespace = await createTestNamespace(core, 'e2e-meshd-status');
    meshd = await MeshdProcess.start(e2eCluster().kubeconfigPath, namespace, {
      PILOT_ENABLE_STATUS: 'true',
      ENABLE_CA_SERVER: 'false',
      ENABLE_LEADER_ELECTION: 'true',
    });
  });

  after(async () => {
    await meshd?.stop();
    if (namespace) await deleteNamespaceFully(core, namespace);
  });

  /** Adds meshd's output to a failure, so a test that times out says what meshd did. */
  async function explained<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- meshd output (tail) ---\n${meshd?.log.slice(-4000) ?? ''}`);
    }
  }

  const collection = (): string => `/apis/${VS.group}/${VS.storageVersion}/namespaces/${namespace}/${VS.plural}`;
  const read = (name: string): Promise<VirtualServiceObject> => client.request<VirtualServiceObject>('GET', `${collection()}/${name}`);
  const reconciled = async (name: string): Promise<StatusCondition | undefined> =>
    (await read(name)).status?.conditions?.find((c) => c.type === 'Reconciled');

  /** Polls until the object's Reconciled condition has `status` for exactly `generation`. */
  const condition = (name: string, status: 'True' | 'False', generation: number): Promise<StatusCondition> =>
    explained(() =>
      waitFor(`${name}: Reconciled=${status} for generation ${generation}`, async () => {
        const c = await reconciled(name);
        return c?.status === status && Number(c.observedGeneration) === generation ? c : undefined;
      }, 60_000, 100),
    );

  function virtualService(name: string, hosts: string[]): VirtualServiceObject {
    return {
      apiVersion: `${VS.group}/${VS.storageVersion}`,
      kind: 'VirtualService',
      metadata: { name, namespace },
      spec: { hosts, http: [{ route: [{ destination: { host: 'reviews' } }] }] },
    };
  }

  it('given a valid VirtualService, should set Reconciled=True with its generation; given an update, observedGeneration should follow', async () => {
    const created = await client.request<VirtualServiceObject>('POST', collection(), { body: virtualService(uniqueName('vs-ok'), ['reviews.example.com']) });
    const name = created.metadata.name;
    assert.equal(created.metadata.generation, 1);
    const first = await condition(name, 'True', 1);
    assert.equal(first.reason, 'Accepted');

    const updated = await client.request<VirtualServiceObject>('PUT', `${collection()}/${name}`, {
      body: { ...(await read(name)), spec: virtualService(name, ['ratings.example.com']).spec },
    });
    assert.equal(updated.metadata.generation, 2, 'a spec change bumps the generation');
    await condition(name, 'True', 2);
    const after = await read(name);
    assert.equal(Number(after.status?.observedGeneration), 2);
    assert.equal(after.metadata.generation, 2, 'the status writes must not bump the generation');
  });

  it('given a VirtualService only the semantic checks refuse, should set Reconciled=False with a message naming the field', async () => {
    const body = virtualService(uniqueName('vs-bad'), ['reviews.example.com', 'bad host!']);
    // NOTE: the API server's schema takes it; meshd's semantic validation is what refuses it.
    const local = validateConfig({ ...body, metadata: { ...body.metadata } });
    assert.equal(local.ok, false, 'the test object must fail the semantic checks');
    const created = await client.request<VirtualServiceObject>('POST', collection(), { body });
    const rejected = await condition(created.metadata.name, 'False', created.metadata.generation ?? 1);
    assert.equal(rejected.reason, 'Rejected');
    assert.match(rejected.message ?? '', /spec\.hosts\[1\]/, `the message must name the field, got: ${rejected.message}`);

    // Fixing it flips the condition for the new generation.
    const fixed = await client.request<VirtualServiceObject>('PUT', `${collection()}/${created.metadata.name}`, {
      body: { ...(await read(created.metadata.name)), spec: virtualService(created.metadata.name, ['reviews.example.com']).spec },
    });
    await condition(created.metadata.name, 'True', fixed.metadata.generation ?? 2);
  });
});
