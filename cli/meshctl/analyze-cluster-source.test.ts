import assert from 'node:assert/strict';
import { EMPTY } from 'rxjs';
import { toResource, type Resource } from '../../analysis/index.js';
import { OrchApiError, type OrchTransport } from '../../controllers/index.js';
import { readClusterResources, readRemoteClusters, remoteClusterConfigs } from './analyze-cluster-source.js';

function transport(answer: (path: string, call: number) => unknown): OrchTransport & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return {
    calls,
    request: <T>(_method: string, path: string): Promise<T> => {
      const n = (calls.get(path) ?? 0) + 1;
      calls.set(path, n);
      try {
        return Promise.resolve(answer(path, n) as T);
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
    watch: () => EMPTY,
  };
}

describe('readClusterResources', () => {
  it('given lists with items without kind should give resources with apiVersion, kind and cluster origin', async () => {
    const t = transport((path) => ({ items: path === '/api/v1/services' ? [{ metadata: { name: 's', namespace: 'n' } }] : [] }));
    const got = await readClusterResources(t, 5_000);
    assert.deepEqual(
      got.map((r) => [r.apiVersion, r.kind, r.namespace, r.name, r.origin.source]),
      [['v1', 'Service', 'n', 's', 'cluster']],
    );
  });

  it('given a kind whose CRD is not installed (404) should skip it, and a 429 should be retried', async () => {
    const t = transport((path, n) => {
      if (path.includes('telemetry.mesh.io')) throw new OrchApiError(404, 'NotFound', 'GET', path, 'not found');
      if (path.includes('virtualservices') && n === 1) throw new OrchApiError(429, 'TooManyRequests', 'GET', path, 'storage is (re)initializing');
      return { items: path.includes('virtualservices') ? [{ metadata: { name: 'v', namespace: 'n' } }] : [] };
    });
    const got = await readClusterResources(t, 5_000);
    assert.deepEqual(got.map((r) => `${r.kind} ${r.name}`), ['VirtualService v']);
    assert.equal(t.calls.get('/apis/networking.mesh.io/v1alpha3/virtualservices'), 2);
  });

  it('given a forbidden list should fail with the server error', async () => {
    const t = transport((path) => {
      if (path === '/api/v1/secrets') throw new OrchApiError(403, 'Forbidden', 'GET', path, 'secrets is forbidden');
      return { items: [] };
    });
    await assert.rejects(readClusterResources(t, 5_000), /HTTP 403 Forbidden/);
  });
});

describe('remote clusters', () => {
  const kubeconfig = (cluster: string, context = true): string =>
    Buffer.from(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: cluster, cluster: { server: `https://127.0.0.1:6443/${cluster}` } }],
        users: [{ name: 'reader', user: { token: 'token' } }],
        contexts: [{ name: 'ctx', context: { cluster, user: 'reader' } }],
        ...(context ? { 'current-context': 'ctx' } : {}),
      }),
    ).toString('base64');
  const secret = (name: string, namespace: string, data: Record<string, string>, labelled = true): Resource =>
    toResource({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, labels: labelled ? { 'mesh/multiCluster': 'true' } : {} }, data }, { source: 'cluster' }, 'default');

  it('given remote secrets should read one kubeconfig per key of the labelled secrets of the mesh namespace, and name each bad entry', () => {
    const got = remoteClusterConfigs(
      [
        secret('mesh-remote-secret-west', 'mesh-system', { west: kubeconfig('west'), broken: Buffer.from('clusters: [').toString('base64'), nocontext: kubeconfig('north', false) }),
        secret('mesh-remote-secret-east', 'mesh-system', { east: kubeconfig('east'), again: kubeconfig('west'), self: kubeconfig('primary') }),
        secret('not-labelled', 'mesh-system', { south: kubeconfig('south') }, false),
        secret('other-namespace', 'default', { south: kubeconfig('south') }),
      ],
      'mesh-system',
      'primary',
    );
    assert.deepEqual(
      got.configs.map((c) => [c.cluster, c.secret, c.key, c.kubeConfig.getCurrentCluster()?.server]),
      [
        // NOTE: secrets and keys in name order: `again` (west) is read before the west secret's own key.
        ['west', 'Secret mesh-system/mesh-remote-secret-east', 'again', 'https://127.0.0.1:6443/west'],
        ['east', 'Secret mesh-system/mesh-remote-secret-east', 'east', 'https://127.0.0.1:6443/east'],
      ],
    );
    assert.deepEqual(
      got.problems.map((p) => `${p.secret} ${p.key}: ${p.message}`),
      [
        'Secret mesh-system/mesh-remote-secret-east self: names cluster "primary", the local cluster; skipped',
        'Secret mesh-system/mesh-remote-secret-west broken: not a kubeconfig: unexpected end of the stream within a flow collection (1:12)',
        'Secret mesh-system/mesh-remote-secret-west nocontext: the kubeconfig has no current context; skipped',
        'Secret mesh-system/mesh-remote-secret-west west: names cluster "west", a cluster already read; skipped',
      ],
    );
  });

  it('given remote clusters should list each one\'s Services, and report one that cannot be read without losing the others', async () => {
    const { configs } = remoteClusterConfigs([secret('remotes', 'mesh-system', { east: kubeconfig('east'), west: kubeconfig('west') })], 'mesh-system', 'primary');
    const byServer = new Map<string, OrchTransport>([
      ['https://127.0.0.1:6443/east', transport((path) => ({ items: path === '/api/v1/services' ? [{ metadata: { name: 'reviews', namespace: 'shop' }, spec: { ports: [{ port: 80 }] } }] : [] }))],
      [
        'https://127.0.0.1:6443/west',
        transport(() => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
        }),
      ],
    ]);
    const got = await readRemoteClusters(configs, (kc) => byServer.get(kc.getCurrentCluster()?.server ?? '')!, 5_000);
    assert.deepEqual(
      got.clusters.map((c) => [c.cluster, c.resources.map((r) => `${r.apiVersion} ${r.kind} ${r.namespace}/${r.name}`)]),
      [['east', ['v1 Service shop/reviews']]],
    );
    assert.deepEqual(got.problems, [{ secret: 'Secret mesh-system/remotes', key: 'west', message: 'reading remote cluster "west": connect ECONNREFUSED 127.0.0.1:6443' }]);
  });
});
