import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createMetrics, type Metrics } from '../core/index.js';
import { applyPatch, type JsonPatchOperation } from './json-patch.js';
import { defaultInjectorSettings, injectorSettingsFrom, SidecarInjector } from './sidecar-injector.js';
import { createWebhookHandler } from './webhook-handler.js';

interface Answer {
  status: number;
  body: { response?: { uid: string; allowed: boolean; patch?: string; patchType?: string; status?: { message: string } } };
}

const pod = (annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { generateName: 'web-', namespace: 'app', labels: { app: 'web' }, annotations },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
});
const review = (object: unknown, kind = { group: '', version: 'v1', kind: 'Pod' }, resource = { group: '', version: 'v1', resource: 'pods' }) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', kind, resource, namespace: 'app', operation: 'CREATE', object } });

describe('webhook handler (/inject, /validate) over HTTP', () => {
  let server: Server;
  let metrics: Metrics;
  let injector: SidecarInjector | undefined;
  let port: number;

  beforeEach(async () => {
    metrics = createMetrics('pilot-discovery', { processMetrics: false });
    injector = new SidecarInjector(defaultInjectorSettings());
    const handler = createWebhookHandler({ injector: () => injector, metrics, logger: pino({ level: 'silent' }) });
    server = createServer((req, res) => {
      if (!handler(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  const post = (path: string, body: string, method = 'POST'): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Answer['body'] }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const count = async (name: string): Promise<number> => {
    const m = await metrics.registry.getSingleMetric(name)!.get();
    return m.values.reduce((s, v) => s + v.value, 0);
  };
  const patched = (a: Answer, original: unknown): Record<string, unknown> => {
    const ops = JSON.parse(Buffer.from(a.body.response!.patch!, 'base64').toString()) as JsonPatchOperation[];
    return applyPatch(original, ops) as Record<string, unknown>;
  };

  it('given a pod should answer a JSONPatch that adds mesh-proxy and mesh-init, and count a success', async () => {
    const a = await post('/inject', review(pod()));
    assert.equal(a.status, 200);
    assert.equal(a.body.response?.uid, 'u-1');
    assert.equal(a.body.response?.allowed, true);
    assert.equal(a.body.response?.patchType, 'JSONPatch');
    const out = patched(a, pod()) as { spec: { containers: { name: string }[]; initContainers: { name: string }[] } };
    assert.deepEqual(out.spec.containers.map((c) => c.name), ['web', 'mesh-proxy']);
    assert.deepEqual(out.spec.initContainers.map((c) => c.name), ['mesh-init']);
    assert.equal(await count('sidecar_injection_requests_total'), 1);
    assert.equal(await count('sidecar_injection_success_total'), 1);
  });

  it('given the injected pod again should allow it without a patch (idempotent) and count a skip', async () => {
    const first = patched(await post('/inject', review(pod())), pod());
    const again = await post('/inject', review(first));
    assert.equal(again.body.response?.allowed, true);
    assert.equal(again.body.response?.patch, undefined);
    assert.equal(await count('sidecar_injection_skip_total'), 1);
  });

  it('given sidecar.mesh.io/inject: "false" should allow the pod unchanged', async () => {
    const a = await post('/inject', review(pod({ 'sidecar.mesh.io/inject': 'false' })));
    assert.equal(a.body.response?.allowed, true);
    assert.equal(a.body.response?.patch, undefined);
  });

  it('given the path form /inject/cluster/c1/net/n1 should set the cluster and network of the proxy', async () => {
    const out = patched(await post('/inject/cluster/c1/net/n1', review(pod())), pod()) as { spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] } };
    const env = out.spec.containers.find((c) => c.name === 'mesh-proxy')!.env!;
    assert.equal(env.find((e) => e.name === 'MESH_META_CLUSTER_ID')?.value, 'c1');
    assert.equal(env.find((e) => e.name === 'MESH_META_NETWORK')?.value, 'n1');
  });

  const bad = [
    { name: 'malformed JSON', path: '/inject', body: '{"kind": "AdmissionRev', status: 400, want: /not JSON/ },
    // NOTE: a regression seed found by fuzzing: the refusal said "kind is undefined".
    { name: 'a body without kind', path: '/inject', body: '{}', status: 400, want: /^kind is missing, want "AdmissionReview"$/ },
    { name: 'an object whose kind is an object', path: '/inject', body: review({ ...pod(), kind: {} }), status: 200, want: /^request.object has kind \{\}, not "Pod"$/ },
    { name: 'a Deployment instead of a pod', path: '/inject', body: review({ kind: 'Deployment' }, { group: 'apps', version: 'v1', kind: 'Deployment' }), status: 200, want: /core\/v1 Pods, not apps\/Deployment/ },
    { name: 'a review without an object', path: '/inject', body: review(undefined), status: 200, want: /request.object is missing/ },
    { name: 'an unknown path parameter', path: '/inject/zone/a', body: review(pod()), status: 200, want: /unknown parameter zone/ },
    { name: 'a template that fails', path: '/inject', body: review(pod({ 'inject.mesh.io/templates': 'broken' })), status: 200, want: /template "broken": .*boom/ },
    { name: 'an unknown template', path: '/inject', body: review(pod({ 'inject.mesh.io/templates': 'nope' })), status: 200, want: /template "nope" \(annotation inject.mesh.io\/templates\) is not defined/ },
    // NOTE: fuzz findings: names of Object.prototype's members were looked up as aliases ("template undefined").
    { name: 'the template "valueOf"', path: '/inject', body: review(pod({ 'inject.mesh.io/templates': 'valueOf' })), status: 200, want: /template "valueOf" \(annotation inject.mesh.io\/templates\) is not defined/ },
    { name: 'the template "constructor"', path: '/inject', body: review(pod({ 'inject.mesh.io/templates': 'constructor' })), status: 200, want: /template "constructor" \(annotation inject.mesh.io\/templates\) is not defined/ },
    // NOTE: these said only "URI malformed" (decodeURIComponent's message), naming neither the parameter nor its text.
    { name: 'a bad percent-escape in the net parameter', path: '/inject/net/%ZZ', body: review(pod()), status: 200, want: /^path \/inject\/net\/%ZZ: the value of parameter net "%ZZ" is not valid percent-encoding/ },
    { name: 'a cut UTF-8 escape in the cluster parameter', path: '/inject/cluster/%E0%A4%A/net/n1', body: review(pod()), status: 200, want: /parameter cluster "%E0%A4%A" is not valid percent-encoding/ },
    { name: 'an unparsable proxy.mesh.io/config', path: '/inject', body: review(pod({ 'proxy.mesh.io/config': '{a: [' })), status: 200, want: /annotation proxy.mesh.io\/config: not valid YAML/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should refuse with an AdmissionReview naming the problem and count a failure`, async () => {
      injector = new SidecarInjector(injectorSettingsFrom({ config: 'templates:\n  broken: \'{{ fail "boom" }}\'\n' }));
      const a = await post(c.path, c.body);
      assert.equal(a.status, c.status);
      assert.equal(a.body.response?.allowed, false);
      assert.match(a.body.response?.status?.message ?? '', c.want);
      assert.equal(await count('sidecar_injection_failure_total'), 1);
    });
  }

  it('given a bad percent-escape in the query (?timeout=%ZZ; the API server adds ?timeout=10s) should ignore the query as istiod does and inject', async () => {
    const a = await post('/inject?timeout=%ZZ&x=%E0%A4%A', review(pod()));
    assert.equal(a.body.response?.allowed, true);
    assert.equal(typeof a.body.response?.patch, 'string');
  });

  const notPaths = ['//', '///', '//['];
  for (const target of notPaths) {
    it(`given the request target ${JSON.stringify(target)}, which is no URL path, should answer 400 naming it (it threw in the listener and ended the process)`, async () => {
      const a = (await post(target, review(pod())).catch((e: Error) => e)) as Answer | Error;
      assert.ok(!(a instanceof Error), `an answer, not ${String(a)}`);
      assert.equal(a.status, 400);
      assert.equal((a.body as { error?: string }).error, `the request target ${JSON.stringify(target)} is not a URL path`);
    });
  }

  it('given a body over the size limit should answer 413 with an AdmissionReview saying so', async () => {
    const a = await post('/inject', `{"pad": "${'x'.repeat(9 * 1024 * 1024)}"}`);
    assert.equal(a.status, 413);
    assert.match(a.body.response?.status?.message ?? '', /larger than 8388608 bytes/);
    assert.equal(await count('sidecar_injection_failure_total'), 1);
  });

  it('given injection turned off should answer 404 on /inject', async () => {
    injector = undefined;
    assert.equal((await post('/inject', review(pod()))).status, 404);
  });

  it('given an invalid VirtualService should refuse it naming the field and count webhook_validation_failed', async () => {
    const vs = { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'r', namespace: 'app' }, spec: { hosts: ['reviews'], http: [{ route: [{ destination: { host: '' } }] }] } };
    const a = await post('/validate', review(vs, { group: 'networking.mesh.io', version: 'v1', kind: 'VirtualService' }, { group: 'networking.mesh.io', version: 'v1', resource: 'virtualservices' }));
    assert.equal(a.body.response?.allowed, false);
    assert.match(a.body.response?.status?.message ?? '', /spec\.http\[0\]\.route\[0\]\.destination\.host/);
    const failed = await metrics.registry.getSingleMetric('webhook_validation_failed')!.get();
    assert.deepEqual(failed.values.map((v) => v.labels), [{ group: 'networking.mesh.io', version: 'v1', resource: 'virtualservices', reason: 'invalid_resource' }]);
  });

  it('given a valid VirtualService should allow it and count webhook_validation_passed', async () => {
    const vs = { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'r', namespace: 'app' }, spec: { hosts: ['reviews'], http: [{ route: [{ destination: { host: 'reviews' } }] }] } };
    const a = await post('/validate', review(vs, { group: 'networking.mesh.io', version: 'v1', kind: 'VirtualService' }, { group: 'networking.mesh.io', version: 'v1', resource: 'virtualservices' }));
    assert.equal(a.body.response?.allowed, true);
    assert.equal(await count('webhook_validation_passed'), 1);
  });

  it('given a GET on /validate should answer 405 and count webhook_validation_http_error', async () => {
    assert.equal((await post('/validate', '', 'GET')).status, 405);
    assert.equal(await count('webhook_validation_http_error'), 1);
  });
});
