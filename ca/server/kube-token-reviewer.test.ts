// KubeTokenReviewer against a stub API server on 127.0.0.1: checks the TokenReview request it sends and
// how it reads the answer. (The real API server is exercised by the Kubernetes issue's e2e tests.)
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeTokenReviewer } from './kube-token-reviewer.js';

describe('KubeTokenReviewer', () => {
  let server: Server;
  let requests: { url: string; auth: string | undefined; body: { spec?: { token?: string; audiences?: string[] } } }[];
  let reviewer: KubeTokenReviewer;

  before(async () => {
    requests = [];
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { spec?: { token?: string; audiences?: string[] } };
        requests.push({ url: `${req.method} ${req.url}`, auth: req.headers.authorization, body });
        const ok = body.spec?.token === 'good';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: body.spec,
          status: ok
            ? { authenticated: true, audiences: body.spec?.audiences, user: { username: 'system:serviceaccount:ns:sa', extra: { 'authentication.kubernetes.io/node-name': ['n1'] } } }
            : { authenticated: false, error: 'invalid bearer token' },
        }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // NOTE: a stand-in for the orchestrator client (its credentials are tested with it in controllers/orch).
    reviewer = new KubeTokenReviewer({
      request: async <T>(method: string, path: string, options?: { body?: unknown }): Promise<T> => {
        const res = await fetch(base + path, { method, headers: { authorization: 'Bearer meshd-token', 'content-type': 'application/json' }, body: JSON.stringify(options?.body) });
        return (await res.json()) as T;
      },
    });
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('given a good token should POST a TokenReview with the audiences and read user, audiences and extra', async () => {
    const got = await reviewer.review('good', ['mesh-ca']);
    assert.deepEqual(got, {
      authenticated: true, error: undefined, username: 'system:serviceaccount:ns:sa', audiences: ['mesh-ca'],
      extra: { 'authentication.kubernetes.io/node-name': ['n1'] },
    });
    const req = requests.at(-1)!;
    assert.equal(req.url, 'POST /apis/authentication.k8s.io/v1/tokenreviews');
    assert.equal(req.auth, 'Bearer meshd-token');
    assert.deepEqual(req.body.spec, { token: 'good', audiences: ['mesh-ca'] });
  });

  it('given a bad token without audiences should send no audiences and report the error', async () => {
    const got = await reviewer.review('bad', undefined);
    assert.equal(got.authenticated, false);
    assert.equal(got.error, 'invalid bearer token');
    assert.deepEqual(requests.at(-1)!.body.spec, { token: 'bad' });
  });
});
