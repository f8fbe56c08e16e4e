import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { Observable, type Subscription } from 'rxjs';
import {
  InformerFactory,
  ORCH_RESOURCES,
  OrchClient,
  type Informer,
  type InformerError,
  type InformerEvent,
  type OrchQuery,
  type OrchRequestOptions,
  type RawWatchEvent,
} from '../controllers/index.js';
import {
  createTestNamespace,
  deleteNamespaceFully,
  e2eCluster,
  httpStatusOf,
  TcpProxy,
  waitFor,
  type TestControlPlane,
} from './harness/index.js';

const CLIENT_OPTIONS = { qps: 50, burst: 100, contentType: 'json' } as const;
/** Short backoff so that recovery after an outage is quick; the tests never assert timings. */
const FAST_BACKOFF = { initialMs: 50, maxMs: 1000, jitter: 0 } as const;

/** A real client that counts the watches it has open. */
class CountingClient extends OrchClient {
  openWatches = 0;
  watchesStarted = 0;
  listPages = 0;
  override request<T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> {
    if (method === 'GET' && options.query?.['limit'] !== undefined) this.listPages += 1;
    return super.request<T>(method, path, options);
  }
  override watch(path: string, query: OrchQuery): Observable<RawWatchEvent> {
    const inner = super.watch(path, query);
    return new Observable<RawWatchEvent>((subscriber) => {
      this.openWatches += 1;
      this.watchesStarted += 1;
      const subscription = inner.subscribe(subscriber);
      return () => {
        this.openWatches -= 1;
        subscription.unsubscribe();
      };
    });
  }
}

/** Folds informer events into `key -> data.value`, the way a consumer would. */
class EventRecorder {
  readonly events: InformerEvent<V1ConfigMap>[] = [];
  readonly state = new Map<string, string | undefined>();
  readonly subscription: Subscription;

  constructor(informer: Informer<V1ConfigMap>) {
    this.subscription = informer.subscribe((event) => {
      this.events.push(event);
      if (event.type === 'deleted') this.state.delete(event.key);
      else this.state.set(event.key, event.object.data?.['value']);
    });
  }

  of(key: string): InformerEvent<V1ConfigMap>[] {
    return this.events.filter((e) => e.key === key);
  }
}

async function truth(core: CoreV1Api, namespace: string): Promise<Map<string, string | undefined>> {
  const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'e2e=informer' });
  return new Map(list.items.map((cm) => [`${namespace}/${cm.metadata!.name!}`, cm.data?.['value']]));
}

/** Waits until the recorder's state equals the server's state. */
async function converges(recorder: EventRecorder, core: CoreV1Api, namespace: string, timeoutMs = 60_000): Promise<void> {
  let want = new Map<string, string | undefined>();
  await waitFor(
    'the informer state to equal the server state',
    async () => {
      want = await truth(core, namespace);
      const got = recorder.state;
      return got.size === want.size && [...want].every(([k, v]) => got.has(k) && got.get(k) === v);
    },
    timeoutMs,
    200,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; want ${JSON.stringify([...want])}, got ${JSON.stringify([...recorder.state])}`);
  });
}

/**
 * Runs `action`, retrying while it fails without an HTTP status (a pooled connection to the API server
 * from before a restart); an HTTP error is thrown at once.
 */
async function retryNetwork(what: string, action: () => Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await action();
      return;
    } catch (err) {
      if (httpStatusOf(err) !== undefined || Date.now() > deadline) {
        throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function configMap(name: string, value: string): V1ConfigMap {
  return { metadata: { name, labels: { e2e: 'informer' } }, data: { value } };
}

describe('e2e: informers over a real API server', () => {
  let kc: KubeConfig;
  let core: CoreV1Api;
  let namespace: string;
  const cleanups: (() => Promise<void> | void)[] = [];

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });

  beforeEach(async () => {
    namespace = await createTestNamespace(core, 'e2e-informer');
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await deleteNamespaceFully(core, namespace);
  });

  function newFactory(client: OrchClient, errors: InformerError[] = []): InformerFactory {
    return new InformerFactory(client, { watchNamespace: namespace, backoff: FAST_BACKOFF, onError: (e) => errors.push(e) });
  }

  function record(informer: Informer<V1ConfigMap>): EventRecorder {
    const recorder = new EventRecorder(informer);
    cleanups.push(() => recorder.subscription.unsubscribe());
    return recorder;
  }

  it('given create, update and delete, should emit added, updated and deleted with the object', async () => {
    const client = new OrchClient(kc, CLIENT_OPTIONS);
    const informer = newFactory(client).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
    const recorder = record(informer);
    await waitFor('the informer to sync', () => informer.hasSynced());
    const key = `${namespace}/one`;

    const created = await core.createNamespacedConfigMap({ namespace, body: configMap('one', 'v1') });
    await waitFor('an added event', () => recorder.of(key).length === 1);
    await core.replaceNamespacedConfigMap({ name: 'one', namespace, body: { ...created, data: { value: 'v2' } } });
    await waitFor('an updated event', () => recorder.of(key).length === 2);
    await core.deleteNamespacedConfigMap({ name: 'one', namespace });
    await waitFor('a deleted event', () => recorder.of(key).length === 3);

    const [added, updated, deleted] = recorder.of(key);
    assert.equal(added!.type, 'added');
    assert.equal(added!.object.data?.['value'], 'v1');
    assert.equal(added!.resourceVersion, created.metadata?.resourceVersion);
    assert.equal(updated!.type, 'updated');
    assert.equal(updated!.object.data?.['value'], 'v2');
    assert.equal(updated!.oldObject?.data?.['value'], 'v1');
    assert.equal(deleted!.type, 'deleted');
    assert.equal(deleted!.object.kind, 'ConfigMap');
    assert.equal(informer.get(key), undefined);
  });

  it('given two subscribers, should run one watch and replay the cache to the late one', async () => {
    const client = new CountingClient(kc, CLIENT_OPTIONS);
    const factory = newFactory(client);
    const informer = factory.informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
    assert.equal(factory.informer(ORCH_RESOURCES.configMaps), informer, 'the factory must share one informer per kind');
    await core.createNamespacedConfigMap({ namespace, body: configMap('early', 'x') });
    const first = record(informer);
    await waitFor('the first subscriber to see the object', () => first.state.size === 1);
    const second = record(informer);
    assert.deepEqual([...second.state], [...first.state], 'the late subscriber must get the cache at once');
    await core.createNamespacedConfigMap({ namespace, body: configMap('late', 'y') });
    await waitFor('both subscribers to see the new object', () => first.state.size === 2 && second.state.size === 2);
    assert.equal(client.openWatches, 1);
  });

  it('given the last subscriber unsubscribes, should abort the watch and stop', async () => {
    const client = new CountingClient(kc, CLIENT_OPTIONS);
    const informer = newFactory(client).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
    const a = informer.subscribe();
    const b = informer.subscribe();
    await waitFor('the watch to open', () => client.openWatches === 1);
    a.unsubscribe();
    assert.equal(informer.running, true, 'one subscriber is left');
    b.unsubscribe();
    assert.equal(informer.running, false);
    assert.equal(client.openWatches, 0);
    assert.equal(informer.hasSynced(), false);
  });

  it('given more objects than one list page, should list every page', async () => {
    for (let i = 0; i < 7; i++) await core.createNamespacedConfigMap({ namespace, body: configMap(`page-${i}`, String(i)) });
    const client = new CountingClient(kc, CLIENT_OPTIONS);
    const informer = new InformerFactory(client, { watchNamespace: namespace, backoff: FAST_BACKOFF, pageSize: 3 }).informer<V1ConfigMap>(
      ORCH_RESOURCES.configMaps,
    );
    const recorder = record(informer);
    await waitFor('the informer to sync', () => informer.hasSynced());
    assert.equal(informer.list().length, 7);
    assert.equal(client.listPages, 3, 'seven objects in pages of three take three requests');
    await converges(recorder, core, namespace);
  });

  it('given MESH_WATCH_NAMESPACE, should see objects of that namespace only', async () => {
    const other = await createTestNamespace(core, 'e2e-informer-other');
    cleanups.push(() => deleteNamespaceFully(core, other));
    await core.createNamespacedConfigMap({ namespace: other, body: configMap('elsewhere', 'z') });
    await core.createNamespacedConfigMap({ namespace, body: configMap('here', 'h') });
    const informer = newFactory(new OrchClient(kc, CLIENT_OPTIONS)).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
    const recorder = record(informer);
    await waitFor('the informer to sync', () => informer.hasSynced());
    assert.equal(informer.path, `/api/v1/namespaces/${namespace}/configmaps`);
    await converges(recorder, core, namespace);
    assert.ok([...recorder.state.keys()].every((k) => k.startsWith(`${namespace}/`)), [...recorder.state.keys()].join(','));
  });

  it('given allowWatchBookmarks, should move its resourceVersion on with bookmarks and emit nothing for them', async function () {
    this.timeout(120_000);
    const other = await createTestNamespace(core, 'e2e-informer-bookmark');
    cleanups.push(() => deleteNamespaceFully(core, other));
    const informer = new InformerFactory(new OrchClient(kc, CLIENT_OPTIONS), {
      watchNamespace: namespace,
      backoff: FAST_BACKOFF,
      // NOTE: the API server sends a bookmark 2 s before a watch's timeout, so a short timeout makes one soon.
      watchTimeoutSeconds: 5,
    }).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
    const recorder = record(informer);
    await waitFor('the informer to sync', () => informer.hasSynced());
    // A change in a namespace the informer does not watch moves the resourceVersion on; only a bookmark
    // can tell the informer about it.
    const elsewhere = await core.createNamespacedConfigMap({ namespace: other, body: configMap('elsewhere', 'x') });
    const target = BigInt(elsewhere.metadata!.resourceVersion!);
    await waitFor('a bookmark past the other namespace change', () => BigInt(informer.resourceVersion ?? '0') >= target, 60_000);
    assert.deepEqual(recorder.events, []);
  });

  describe('outages (harness control plane only)', () => {
    let plane: TestControlPlane;

    before(function () {
      const own = e2eCluster().controlPlane;
      if (!own) {
        console.log('    skipped: the run targets an existing cluster, whose API server the tests cannot restart');
        this.skip(); // an existing cluster: its API server cannot be restarted here (printed above)
      }
      plane = own;
    });

    it('given the API server restarts mid-watch, should converge to the final state without lost updates', async function () {
      this.timeout(300_000);
      const informer = newFactory(new OrchClient(kc, CLIENT_OPTIONS)).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
      const recorder = record(informer);
      await waitFor('the informer to sync', () => informer.hasSynced());
      for (const name of ['a', 'b', 'c']) await core.createNamespacedConfigMap({ namespace, body: configMap(name, '1') });
      await converges(recorder, core, namespace);

      await plane.restartApiServer();
      // Changes right after the restart race the informer's reconnect: none of them may be lost.
      await retryNetwork('update a', async () => {
        const a = await core.readNamespacedConfigMap({ name: 'a', namespace });
        await core.replaceNamespacedConfigMap({ name: 'a', namespace, body: { ...a, data: { value: '2' } } });
      });
      await retryNetwork('delete b', () => core.deleteNamespacedConfigMap({ name: 'b', namespace }));
      await retryNetwork('create d', () => core.createNamespacedConfigMap({ namespace, body: configMap('d', '1') }));
      for (let i = 2; i <= 5; i++) {
        const c = await core.readNamespacedConfigMap({ name: 'c', namespace });
        await core.replaceNamespacedConfigMap({ name: 'c', namespace, body: { ...c, data: { value: String(i) } } });
      }

      await converges(recorder, core, namespace);
      assert.equal(recorder.state.get(`${namespace}/c`), '5');
      assert.equal(recorder.state.has(`${namespace}/b`), false);
    });

    it('given continuous churn across an API-server restart and a forced 410 Gone, should lose no update and end equal to the API server', async function () {
      this.timeout(300_000);
      const proxy = await TcpProxy.start(Number(new URL(plane.server).port));
      cleanups.push(() => proxy.close());
      const proxied = new KubeConfig();
      proxied.loadFromString(kc.exportConfig());
      proxied.clusters = proxied.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${proxy.port}` }));
      const errors: InformerError[] = [];
      const informer = newFactory(new OrchClient(proxied, CLIENT_OPTIONS), errors).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
      const recorder = record(informer);
      await waitFor('the informer to sync', () => informer.hasSynced());

      // Churn: ten keys updated in turn, one created and one deleted every round, until told to stop.
      const keys = Array.from({ length: 10 }, (_, i) => `churn-${i}`);
      for (const k of keys) await core.createNamespacedConfigMap({ namespace, body: configMap(k, '0') });
      const churn = { stop: false, writes: 0, round: 0, retries: 0 };
      // NOTE: a writer retries any failure (an API server starting answers 503, a stale connection resets).
      const retryNetwork = async (what: string, action: () => Promise<unknown>): Promise<void> => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          try {
            await action();
            return;
          } catch (err) {
            if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
            churn.retries++;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const writer = (async () => {
        while (!churn.stop) {
          const r = ++churn.round;
          for (const k of keys) {
            await retryNetwork(`update ${k}`, async () => {
              const cm = await core.readNamespacedConfigMap({ name: k, namespace });
              if (cm.data?.['value'] === String(r)) return; // NOTE: a retried write that had landed.
              await core.replaceNamespacedConfigMap({ name: k, namespace, body: { ...cm, data: { value: String(r) } } });
            });
            churn.writes++;
          }
          await retryNetwork('create', () => core.createNamespacedConfigMap({ namespace, body: configMap(`new-${r}`, String(r)) }).catch((e: unknown) => {
            if (httpStatusOf(e) !== 409) throw e; // NOTE: a retried create that had landed.
          }));
          if (r > 1) {
            await retryNetwork('delete', () => core.deleteNamespacedConfigMap({ name: `new-${r - 1}`, namespace }).catch((e: unknown) => {
              if (httpStatusOf(e) !== 404) throw e; // NOTE: a retried delete that had landed.
            }));
          }
          churn.writes += r > 1 ? 2 : 1;
        }
      })();
      let writerError: unknown;
      writer.catch((e: unknown) => (writerError = e));
      const churning = (n: number) => (): boolean => {
        if (writerError) throw writerError as Error;
        return churn.round >= n;
      };
      await waitFor('some churn', churning(2));
      await plane.restartApiServer();
      await waitFor('churn after the restart', churning(4), 120_000);
      proxy.cut();
      const roundAtCut = churn.round;
      await waitFor('churn while the informer is cut off', churning(roundAtCut + 2), 120_000);
      await plane.compactEtcd();
      await plane.restartApiServer();
      proxy.restore();
      await waitFor('churn after the 410', churning(roundAtCut + 4), 120_000);
      churn.stop = true;
      await writer;

      await converges(recorder, core, namespace);
      for (const k of keys) assert.equal(recorder.state.get(`${namespace}/${k}`), String(churn.round), `${k} holds the last round's value`);
      const gone = errors.filter((e) => e.retryInMs === 0);
      assert.ok(gone.length >= 1, `expected a 410 Gone, got errors: ${errors.map((e) => String(e.error)).join('; ')}`);
      console.log(`      survived: ${churn.writes} writes in ${churn.round} rounds (${churn.retries} retried) across 2 API-server restarts and ${gone.length} 410 Gone; 0 lost updates, final state equal to the API server's (${recorder.state.size} objects)`);
    });

    it('given the watch expires (410 Gone) while the informer is cut off, should relist and converge', async function () {
      this.timeout(300_000);
      const proxy = await TcpProxy.start(Number(new URL(plane.server).port));
      cleanups.push(() => proxy.close());
      const proxied = new KubeConfig();
      proxied.loadFromString(kc.exportConfig());
      proxied.clusters = proxied.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${proxy.port}` }));
      const client = new CountingClient(proxied, CLIENT_OPTIONS);
      const errors: InformerError[] = [];
      const informer = newFactory(client, errors).informer<V1ConfigMap>(ORCH_RESOURCES.configMaps);
      const recorder = record(informer);
      await waitFor('the informer to sync', () => informer.hasSynced());
      for (const name of ['keep', 'change', 'remove']) await core.createNamespacedConfigMap({ namespace, body: configMap(name, '1') });
      await converges(recorder, core, namespace);

      proxy.cut();
      const change = await core.readNamespacedConfigMap({ name: 'change', namespace });
      await core.replaceNamespacedConfigMap({ name: 'change', namespace, body: { ...change, data: { value: '2' } } });
      await core.deleteNamespacedConfigMap({ name: 'remove', namespace });
      await core.createNamespacedConfigMap({ namespace, body: configMap('new', '1') });
      // Expire every older resourceVersion: compact etcd and restart the API server so its watch cache
      // starts after the informer's last resourceVersion too.
      await plane.compactEtcd();
      await plane.restartApiServer();
      proxy.restore();

      await converges(recorder, core, namespace);
      const removed = recorder.of(`${namespace}/remove`).at(-1);
      assert.equal(removed?.type, 'deleted', 'the relist must report the object deleted while cut off');
      const gone = errors.filter((e) => e.retryInMs === 0);
      assert.ok(gone.length >= 1, `expected a 410 Gone, got errors: ${errors.map((e) => String(e.error)).join('; ')}`);
    });
  });
});
