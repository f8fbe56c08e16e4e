import assert from 'node:assert/strict';
import { EMPTY } from 'rxjs';
import { OrchApiError, type OrchTransport } from '../../controllers/index.js';
import { readClusterResources } from './analyze-cluster-source.js';

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
