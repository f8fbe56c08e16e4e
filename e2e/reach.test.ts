import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { directDialer, parsePodTarget, podHttpGet, portForwardDialer, ReachError, resolvePod } from '../inspect/index.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

/** Creates a pod and, when `phase` is given, writes that phase into its status (no kubelet runs here). */
export async function createPod(client: OrchClient, ns: string, name: string, labels: Record<string, string>, phase?: string): Promise<void> {
  await client.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  });
  if (phase === undefined) return;
  const pod = await client.request<Record<string, unknown>>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  await client.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
    body: { ...pod, status: { phase, podIP: '10.0.0.9', conditions: [{ type: 'Ready', status: 'True' }] } },
  });
}

describe('e2e: reaching pods through a real API server', function () {
  this.timeout(120_000);
  let kc: KubeConfig;
  let client: OrchClient;
  let ns: string;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, { qps: 100, burst: 200, contentType: 'json' });
    ns = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-reach');
    await createPod(client, ns, 'reviews-v1-a', { app: 'reviews', version: 'v1' }, 'Running');
    await createPod(client, ns, 'reviews-v1-b', { app: 'reviews', version: 'v1' }, 'Pending');
    await createPod(client, ns, 'ratings-0', { app: 'ratings' }, 'Pending');
    const svc = (name: string, selector?: Record<string, string>): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns },
      spec: { ...(selector ? { selector } : {}), ports: [{ name: 'http', port: 9080 }] },
    });
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: svc('reviews', { app: 'reviews' }) });
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: svc('ratings', { app: 'ratings' }) });
    await client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: svc('details', { app: 'details' }) });
    await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'reviews-v1', namespace: ns },
        spec: {
          selector: { matchLabels: { app: 'reviews' }, matchExpressions: [{ key: 'version', operator: 'In', values: ['v1'] }] },
          template: { metadata: { labels: { app: 'reviews', version: 'v1' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
        },
      },
    });
  });

  after(async () => {
    if (ns) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), ns);
  });

  const resolve = async (text: string): Promise<string> => {
    const p = await resolvePod(client, parsePodTarget(text, ns));
    return `${p.name}.${p.namespace}`;
  };

  it('given a pod name should find the pod, in the default namespace or the one the target names', async () => {
    assert.equal(await resolve('reviews-v1-b'), `reviews-v1-b.${ns}`);
    assert.equal(await resolve(`pod/ratings-0.${ns}`), `ratings-0.${ns}`);
  });
  it('given a service or deployment should pick its running pod (the API server matches the selector)', async () => {
    assert.equal(await resolve('svc/reviews'), `reviews-v1-a.${ns}`);
    assert.equal(await resolve(`deploy/reviews-v1.${ns}`), `reviews-v1-a.${ns}`);
  });
  const errors: { target: string; want: (ns: string) => string }[] = [
    { target: 'foo', want: (n) => `pod foo.${n} not found` },
    { target: 'svc/nope', want: (n) => `service nope.${n} not found` },
    { target: 'deployment/nope', want: (n) => `deployment nope.${n} not found` },
    { target: 'svc/details', want: (n) => `no pods match service details.${n}` },
    { target: 'svc/ratings', want: (n) => `no running pod matches service ratings.${n} (1 matching, phase Pending)` },
  ];
  for (const c of errors) {
    it(`given ${c.target} should fail with a clear ReachError`, async () => {
      await assert.rejects(resolve(c.target), (e: unknown) => e instanceof ReachError && e.message === c.want(ns));
    });
  }

  it('given the API server port-forward dialer and a pod no kubelet runs should fail naming the pod and port', async () => {
    const dial = portForwardDialer(kc);
    await assert.rejects(dial({ namespace: ns, name: 'reviews-v1-a' }, 15000), (e: unknown) => e instanceof ReachError && e.message.startsWith(`port-forward to pod reviews-v1-a.${ns} port 15000 through the API server failed: `));
  });

  describe('HTTP to the resolved pod', () => {
    // NOTE: no kubelet runs behind this API server, so a direct dialer maps the resolved pod to a local server
    // standing in for its admin port; the lookup before it is real.
    let server: Server;
    before(async () => {
      server = createServer((req, res) => res.end(`admin of the stand-in: ${req.url}`));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    });
    after(async () => {
      await new Promise<void>((r) => server.close(() => r()));
    });
    it('given svc/reviews should GET from the pod the service picked', async () => {
      const port = (server.address() as AddressInfo).port;
      const dial = directDialer((pod, p) => (pod.name === 'reviews-v1-a' && p === 15000 ? { host: '127.0.0.1', port } : undefined));
      const pod = await resolvePod(client, parsePodTarget('svc/reviews', ns));
      assert.equal(await podHttpGet(dial, pod, 15000, '/server_info'), 'admin of the stand-in: /server_info');
    });
  });
});
