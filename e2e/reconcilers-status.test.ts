import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { OrchClient } from '../controllers/index.js';
import { KINDS, renderCrds } from '../crds/index.js';
import { ConfigStatusReconciler, type ConfigStatusReport, type StatusCondition } from '../reconcilers/index.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster, uniqueName, waitFor } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;
const VS = KINDS.VirtualService;

interface VirtualServiceObject {
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec: Record<string, unknown>;
  status?: { conditions?: StatusCondition[]; observedGeneration?: number | string };
}

describe('e2e: config status writer over a real API server', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let client: OrchClient;
  let namespace: string;
  let reports: Subject<ConfigStatusReport>;
  let writer: ConfigStatusReconciler;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    client = new OrchClient(kc, CLIENT_OPTIONS);
    const crd = renderCrds().find((c) => c.spec.names.kind === 'VirtualService');
    assert.ok(crd, 'renderCrds() must include VirtualService');
    await applyCrds(client, [crd]);
  });

  beforeEach(async () => {
    namespace = await createTestNamespace(core, 'e2e-status');
    reports = new Subject();
    writer = new ConfigStatusReconciler({ client, reports$: reports, qps: 100, burst: 500, maxWorkers: 10 });
    writer.attach();
  });

  afterEach(async () => {
    writer.detach();
    await writer.stop();
    await deleteNamespaceFully(core, namespace);
  });

  const collection = (): string => `/apis/${VS.group}/${VS.storageVersion}/namespaces/${namespace}/${VS.plural}`;
  const read = (name: string): Promise<VirtualServiceObject> => client.request<VirtualServiceObject>('GET', `${collection()}/${name}`);
  const reconciled = async (name: string): Promise<StatusCondition | undefined> =>
    (await read(name)).status?.conditions?.find((c) => c.type === 'Reconciled');

  async function createVirtualService(): Promise<VirtualServiceObject> {
    const name = uniqueName('vs');
    const body = {
      apiVersion: `${VS.group}/${VS.storageVersion}`,
      kind: 'VirtualService',
      metadata: { name, namespace },
      spec: { hosts: ['reviews.example.com'], http: [{ route: [{ destination: { host: 'reviews' } }] }] },
    };
    return client.request<VirtualServiceObject>('POST', collection(), { body });
  }

  const report = (vs: VirtualServiceObject, outcome: ConfigStatusReport['outcome'], generation = vs.metadata.generation ?? 1): ConfigStatusReport => ({
    key: { kind: 'VirtualService', namespace, name: vs.metadata.name },
    generation,
    outcome,
  });

  it('given an accepted report, should set Reconciled True with the observed generation through the status subresource', async () => {
    const vs = await createVirtualService();
    writer.start();
    reports.next(report(vs, { accepted: true }));
    const condition = await waitFor('the Reconciled condition', () => reconciled(vs.metadata.name));
    assert.equal(condition.status, 'True');
    assert.equal(Number(condition.observedGeneration), vs.metadata.generation);
    assert.match(condition.lastTransitionTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const after = await read(vs.metadata.name);
    assert.deepEqual(after.spec, vs.spec, 'the spec must be untouched');
    assert.equal(after.metadata.generation, vs.metadata.generation, 'a status write must not bump the generation');
  });

  it('given a rejection after an acceptance, should flip to False with the message and keep other conditions', async () => {
    const vs = await createVirtualService();
    await client.request('PATCH', `${collection()}/${vs.metadata.name}/status`, {
      contentType: 'application/merge-patch+json',
      body: { status: { conditions: [{ type: 'Other', status: 'True', reason: 'SetByTest', message: 'not ours' }] } },
    });
    writer.start();
    reports.next(report(vs, { accepted: true }));
    await waitFor('Reconciled True', async () => (await reconciled(vs.metadata.name))?.status === 'True');
    reports.next(report(vs, { accepted: false, message: 'spec.http[0].route[0].destination.host: reviews is not a known service' }));
    const condition = await waitFor('Reconciled False', async () => {
      const c = await reconciled(vs.metadata.name);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(condition.reason, 'Rejected');
    assert.equal(condition.message, 'spec.http[0].route[0].destination.host: reviews is not a known service');
    const other = (await read(vs.metadata.name)).status?.conditions?.find((c) => c.type === 'Other');
    assert.equal(other?.message, 'not ours');
  });

  it('given reports while not leading, should write them when started', async () => {
    const one = await createVirtualService();
    const two = await createVirtualService();
    reports.next(report(one, { accepted: true }));
    reports.next(report(two, { accepted: false, message: 'bad' }));
    assert.equal(writer.runner, undefined, 'not started: no runner writes');
    writer.start();
    await waitFor('both conditions', async () => (await reconciled(one.metadata.name))?.status === 'True' && (await reconciled(two.metadata.name))?.status === 'False');
  });

  it('given a report older than the object, should skip it and write the newer one', async () => {
    const vs = await createVirtualService();
    const updated = await client.request<VirtualServiceObject>('PUT', `${collection()}/${vs.metadata.name}`, {
      body: { ...vs, spec: { ...vs.spec, hosts: ['ratings.example.com'] } },
    });
    assert.equal(updated.metadata.generation, 2);
    writer.start();
    reports.next(report(vs, { accepted: false, message: 'stale' }, 1));
    await writer.runner!.idle();
    assert.equal(await reconciled(vs.metadata.name), undefined, 'a stale report must not be written');
    reports.next(report(updated, { accepted: true }));
    const condition = await waitFor('the condition for generation 2', () => reconciled(vs.metadata.name));
    assert.equal(Number(condition.observedGeneration), 2);
  });
});
