import assert from 'node:assert/strict';
import { Observable } from 'rxjs';
import { CaSecretError, OrchSecretCaStore, type CaSecretMaterial } from './ca-secret-store.js';
import { OrchApiError, type OrchRequestOptions, type OrchTransport, type RawWatchEvent } from './orch-client.js';

interface Stored {
  metadata: { name: string; namespace: string; resourceVersion: string };
  type?: string;
  data: Record<string, string>;
}

/** Secrets of one namespace with the API server's create/update conflict rules (409 on exists / stale resourceVersion). */
class SecretsApi implements OrchTransport {
  readonly secrets = new Map<string, Stored>();
  #version = 0;

  request<T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/.exec(path);
    if (!m) return Promise.reject(new Error(`unexpected path ${path}`));
    const namespace = m[1]!;
    const body = options.body as Stored | undefined;
    const name = m[2] ?? body?.metadata.name ?? '';
    const existing = this.secrets.get(`${namespace}/${name}`);
    const fail = (status: number, reason: string): Promise<T> => Promise.reject(new OrchApiError(status, reason, method, path, reason));
    if (method === 'GET') return existing ? Promise.resolve(structuredClone(existing) as T) : fail(404, 'NotFound');
    if (method === 'POST') {
      if (existing) return fail(409, 'AlreadyExists');
      return Promise.resolve(this.#store(namespace, body!) as T);
    }
    if (method === 'PUT') {
      if (!existing) return fail(404, 'NotFound');
      if (body!.metadata.resourceVersion !== existing.metadata.resourceVersion) return fail(409, 'Conflict');
      return Promise.resolve(this.#store(namespace, body!) as T);
    }
    return fail(405, 'MethodNotAllowed');
  }

  watch(): Observable<RawWatchEvent> {
    return new Observable();
  }

  #store(namespace: string, body: Stored): Stored {
    const stored: Stored = { ...structuredClone(body), metadata: { ...body.metadata, namespace, resourceVersion: String(++this.#version) } };
    this.secrets.set(`${namespace}/${body.metadata.name}`, stored);
    return structuredClone(stored);
  }
}

const material = (tag: string): CaSecretMaterial => ({ caCertPem: `cert-${tag}`, caKeyPem: `key-${tag}`, certChainPem: '', rootCertPem: `root-${tag}` });

describe('OrchSecretCaStore', () => {
  it('given no Secret, should load nothing, then create it with the cacerts keys and load it back', async () => {
    const api = new SecretsApi();
    const store = new OrchSecretCaStore(api, 'mesh-system', 'mesh-ca-secret');
    assert.equal(await store.load(), undefined);
    assert.deepEqual(await store.createIfAbsent(material('a')), material('a'));
    const stored = api.secrets.get('mesh-system/mesh-ca-secret')!;
    assert.deepEqual(Object.keys(stored.data).sort(), ['ca-cert.pem', 'ca-key.pem', 'cert-chain.pem', 'root-cert.pem']);
    assert.equal(stored.type, 'mesh.io/ca-root');
    assert.deepEqual(await new OrchSecretCaStore(api, 'mesh-system', 'mesh-ca-secret').load(), material('a'));
  });

  it('given two replicas creating at once, should leave both with the material of the first', async () => {
    const api = new SecretsApi();
    const [a, b] = [new OrchSecretCaStore(api, 'ns', 'cacerts'), new OrchSecretCaStore(api, 'ns', 'cacerts')];
    assert.equal(await a.load(), undefined);
    assert.equal(await b.load(), undefined);
    const [wa, wb] = await Promise.all([a.createIfAbsent(material('a')), b.createIfAbsent(material('b'))]);
    assert.deepEqual(wa, material('a'));
    assert.deepEqual(wb, material('a'), 'the loser adopts the winner\'s root');
    assert.equal(api.secrets.get('ns/cacerts')!.type, 'Opaque');
  });

  it('given a rotation saved by another replica first, should refuse the stale save with a conflict', async () => {
    const api = new SecretsApi();
    const [a, b] = [new OrchSecretCaStore(api, 'ns', 'mesh-ca-secret'), new OrchSecretCaStore(api, 'ns', 'mesh-ca-secret')];
    await a.createIfAbsent(material('1'));
    await b.load();
    await a.save(material('2'));
    await assert.rejects(b.save(material('3')), (e: OrchApiError) => e.status === 409);
    assert.deepEqual(await b.load(), material('2'));
    await b.save(material('3'));
    assert.deepEqual(await a.load(), material('3'));
  });

  it('given a Secret with ca-key.pem but no root-cert.pem, should fail naming the Secret and the key', async () => {
    const api = new SecretsApi();
    await api.request('POST', '/api/v1/namespaces/ns/secrets', {
      body: { metadata: { name: 'cacerts' }, data: { 'ca-key.pem': Buffer.from('k').toString('base64'), 'ca-cert.pem': Buffer.from('c').toString('base64') } },
    });
    await assert.rejects(new OrchSecretCaStore(api, 'ns', 'cacerts').load(), (e: Error) => e instanceof CaSecretError && /secret ns\/cacerts: has ca-key.pem but no root-cert.pem/.test(e.message));
  });
});
