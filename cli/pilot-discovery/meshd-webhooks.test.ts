import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedRoot } from '../../ca/index.js';
import { freePorts, programEnv, startProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

interface Review {
  response?: { allowed: boolean; patch?: string; status?: { message: string } };
}

function post(port: number, ca: string, path: string, body: unknown): Promise<{ status: number; body: Review }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca, servername: 'meshd.mesh-system.svc', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Review }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const review = (object: unknown, kind: string, group = '') => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u', kind: { group, version: 'v1', kind }, resource: { group, version: 'v1', resource: `${kind.toLowerCase()}s` }, namespace: 'app', operation: 'CREATE', object },
});
const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'app' }, spec: { containers: [{ name: 'app', image: 'app' }] } };

describe('pilot-discovery discovery: the webhooks on the HTTPS listener (process)', function () {
  this.timeout(60_000);
  let dir: string;
  let rootPem: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-webhooks-'));
    const root = await createSelfSignedRoot({ trustDomain: 'cluster.local', ttlMs: 86_400_000, rsaKeySize: 2048, now: new Date() });
    rootPem = root.certPem;
    mkdirSync(join(dir, 'cacerts'));
    for (const [file, text] of [['ca-cert.pem', root.certPem], ['ca-key.pem', root.keyPem], ['root-cert.pem', root.certPem], ['cert-chain.pem', root.certPem]] as const) writeFileSync(join(dir, 'cacerts', file), text);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function start(env: Record<string, string>): Promise<{ proc: ProgramProcess; https: number; monitoring: number }> {
    const [grpc, http, monitoring, ctrlz, secureGrpc, https] = await freePorts(6);
    const proc = startProgram('pilot-discovery', [
      'discovery',
      `--grpcAddr=127.0.0.1:${grpc}`, `--httpAddr=127.0.0.1:${http}`, `--monitoringAddr=127.0.0.1:${monitoring}`,
      '--ctrlz_address=127.0.0.1', `--ctrlz_port=${ctrlz}`,
      `--secureGRPCAddr=127.0.0.1:${secureGrpc}`, `--httpsAddr=127.0.0.1:${https}`,
      '--meshConfig=/nonexistent/mesh', '--networksConfig=/nonexistent/meshNetworks',
    ], programEnv({ ROOT_CA_DIR: join(dir, 'cacerts'), ...env }));
    await waitForHttp(`http://127.0.0.1:${http}/ready`, proc);
    return { proc, https: https!, monitoring: monitoring! };
  }
  async function stop(proc: ProgramProcess): Promise<void> {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }

  it('given a pod on /inject and an invalid VirtualService on /validate should inject the one, refuse the other naming the field, and count both', async () => {
    const m = await start({});
    try {
      const injected = await post(m.https, rootPem, '/inject', review(POD, 'Pod'));
      assert.equal(injected.status, 200);
      assert.equal(injected.body.response?.allowed, true);
      const patch = JSON.parse(Buffer.from(injected.body.response!.patch!, 'base64').toString()) as { path: string; value?: { name?: string } }[];
      assert.ok(patch.some((op) => op.path === '/spec/containers/1' && op.value?.name === 'mesh-proxy'), JSON.stringify(patch).slice(0, 400));
      const vs = { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'v', namespace: 'app' }, spec: { hosts: ['r'], http: [{ route: [{ destination: { host: '' } }] }] } };
      const refused = await post(m.https, rootPem, '/validate', review(vs, 'VirtualService', 'networking.mesh.io'));
      assert.equal(refused.body.response?.allowed, false);
      assert.match(refused.body.response?.status?.message ?? '', /spec\.http\[0\]\.route\[0\]\.destination\.host/);
      const metrics = await (await fetch(`http://127.0.0.1:${m.monitoring}/metrics`)).text();
      assert.match(metrics, /^sidecar_injection_success_total 1$/m);
      assert.match(metrics, /^webhook_validation_failed\{group="networking.mesh.io",version="v1",resource="virtualservices",reason="invalid_resource"\} 1$/m);
    } finally {
      await stop(m.proc);
    }
  });

  it('given INJECT_ENABLED=false should answer 404 on /inject and still validate', async () => {
    const m = await start({ INJECT_ENABLED: 'false' });
    try {
      assert.equal((await post(m.https, rootPem, '/inject', review(POD, 'Pod'))).status, 404);
      const vs = { apiVersion: 'networking.mesh.io/v1', kind: 'VirtualService', metadata: { name: 'v', namespace: 'app' }, spec: { hosts: ['r'], http: [{ route: [{ destination: { host: 'r' } }] }] } };
      assert.equal((await post(m.https, rootPem, '/validate', review(vs, 'VirtualService', 'networking.mesh.io'))).body.response?.allowed, true);
    } finally {
      await stop(m.proc);
    }
  });
});
