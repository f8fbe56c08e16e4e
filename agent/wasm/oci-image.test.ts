import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { c as tarCreate } from 'tar';
import { createMetrics } from '../../core/index.js';
import { freePort } from '../testing/free-port.js';
import { fetchOciWasm, parseOciUrl, type HttpAnswer } from './oci-image.js';
import { WasmCache, WasmFetchError } from './wasm-cache.js';

const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const sha = (b: Buffer | string): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const GGCR = join(process.env['MESH_TEST_BIN_DIR'] ?? join(homedir(), '.cache', 'mesh', 'test-bin'), 'ggcr-v0.22.1');
const logger = pino({ level: 'silent' });

/** A plain HTTP call for the test's own pushes. */
function http(method: string, url: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('parseOciUrl', () => {
  it('given tags, digests and none, should split registry, repository and reference; a bad digest is named', () => {
    assert.deepEqual(parseOciUrl('oci://registry:5000/filters/auth:v1'), { registry: 'registry:5000', repository: 'filters/auth', reference: 'v1' });
    assert.deepEqual(parseOciUrl('oci://registry/filters/auth'), { registry: 'registry', repository: 'filters/auth', reference: 'latest' });
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.deepEqual(parseOciUrl(`oci://registry/auth@${digest}`), { registry: 'registry', repository: 'auth', reference: digest });
    assert.throws(() => parseOciUrl('oci://registry/auth@sha256:zz'), /digest "sha256:zz" is not sha256:<64 hex digits>/);
    assert.throws(() => parseOciUrl('oci://registry'), /not oci:\/\/<registry>\/<repository>/);
  });
});

// Skipped without the go-containerregistry binaries (bash hack/oci/build.sh builds them; .ci/run does).
(existsSync(join(GGCR, 'registry')) && existsSync(join(GGCR, 'crane')) ? describe : describe.skip)('Wasm modules from a real OCI registry (go-containerregistry)', function () {
  this.timeout(60_000);
  let registry: ChildProcess;
  let host: string;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-oci-'));
    const port = await freePort();
    host = `127.0.0.1:${port}`;
    registry = spawn(join(GGCR, 'registry'), ['-port', String(port)], { stdio: 'ignore' });
    const end = Date.now() + 20_000;
    for (;;) {
      const up = await http('GET', `http://${host}/v2/`).catch(() => undefined);
      if (up?.status === 200) break;
      if (Date.now() > end) throw new Error('the registry did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    // A container image whose one layer holds plugin.wasm, pushed by crane.
    writeFileSync(join(dir, 'plugin.wasm'), WASM);
    await tarCreate({ gzip: true, file: join(dir, 'layer.tar.gz'), cwd: dir }, ['plugin.wasm']);
    const crane = spawnSync(join(GGCR, 'crane'), ['append', '--insecure', '-f', join(dir, 'layer.tar.gz'), '-t', `${host}/filters/compat:v1`], { encoding: 'utf8' });
    assert.equal(crane.status, 0, crane.stderr);
    // A Wasm artifact (the module itself as its one layer), pushed with the distribution API.
    const pushBlob = async (repo: string, body: Buffer | string): Promise<string> => {
      const start = await http('POST', `http://${host}/v2/${repo}/blobs/uploads/`);
      const location = new URL(String(start.headers['location']), `http://${host}`);
      location.searchParams.set('digest', sha(body));
      assert.equal((await http('PUT', location.href, body, { 'content-type': 'application/octet-stream' })).status, 201);
      return sha(body);
    };
    const config = '{}';
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.module.wasm.config.v1+json', digest: await pushBlob('filters/artifact', config), size: config.length },
      layers: [{ mediaType: 'application/vnd.module.wasm.content.layer.v1+wasm', digest: await pushBlob('filters/artifact', WASM), size: WASM.length }],
    });
    assert.equal((await http('PUT', `http://${host}/v2/filters/artifact/manifests/v1`, manifest, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' })).status, 201);
  });
  after(() => {
    registry?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const cache = (): WasmCache => new WasmCache({
    dir: join(dir, 'cache'), maxRetries: 0, requestTimeoutMs: 5000, expiryMs: 60_000, purgeIntervalMs: 60_000, insecureRegistries: [host],
    metrics: createMetrics('pilot-agent', { processMetrics: false }), logger,
  });

  for (const repo of ['filters/compat', 'filters/artifact']) {
    // Skipped without the go-containerregistry registry and crane binaries (hack/oci/build.sh; .ci/run builds them).
    it(`given ${repo}:v1 should fetch its module, checked against the image digest, and refuse a wrong digest`, async () => {
      const manifest = await http('GET', `http://${host}/v2/${repo}/manifests/v1`, undefined, { accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' });
      const digest = sha(manifest.body).slice('sha256:'.length);
      const path = await cache().get(`oci://${host}/${repo}:v1`, digest);
      assert.deepEqual(readFileSync(path), WASM);
      await assert.rejects(cache().get(`oci://${host}/${repo}:v1`, 'f'.repeat(64)), (e: unknown) => e instanceof WasmFetchError && e.result === 'checksum_mismatched' && /image digest is [0-9a-f]{64}, expected f+/.test(e.message));
    });
  }


  // Skipped without the go-containerregistry registry and crane binaries (hack/oci/build.sh; .ci/run builds them).
  it('given a tag the registry does not have should fail naming the answer', async () => {
    await assert.rejects(cache().get(`oci://${host}/filters/compat:nope`), (e: unknown) => e instanceof WasmFetchError && e.result === 'download_failure' && /manifest filters\/compat:nope: HTTP 404/.test(e.message));
  });
});

describe('fetchOciWasm with a registry that asks for a bearer token (a stand-in registry and token service)', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  before(async () => {
    const manifest = JSON.stringify({ schemaVersion: 2, config: { mediaType: 'application/vnd.module.wasm.config.v1+json' }, layers: [{ mediaType: 'application/vnd.module.wasm.content.layer.v1+wasm', digest: sha(WASM) }] });
    server = createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
      if (req.url?.startsWith('/token')) {
        const ok = req.headers.authorization === `Basic ${Buffer.from('puller:secret').toString('base64')}` && req.url.includes('scope=repository%3Aauth%3Apull');
        res.writeHead(ok ? 200 : 401).end(ok ? JSON.stringify({ token: 't0k3n' }) : '');
        return;
      }
      if (req.headers.authorization !== 'Bearer t0k3n') {
        res.writeHead(401, { 'www-authenticate': `Bearer realm="${base}/token",service="stand-in",scope="repository:auth:pull"` }).end();
        return;
      }
      if (req.url === '/v2/auth/manifests/v1') res.writeHead(200).end(manifest);
      else if (req.url === `/v2/auth/blobs/${sha(WASM)}`) res.writeHead(200).end(WASM);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('given basic credentials should exchange them for a token with the challenge\'s scope and fetch with it', async () => {
    const get = (url: string, headers: Readonly<Record<string, string>>): Promise<HttpAnswer> => http('GET', url, undefined, { ...headers });
    const got = await fetchOciWasm(parseOciUrl(`oci://${base.slice('http://'.length)}/auth:v1`), { get, scheme: 'http', credentials: { username: 'puller', password: 'secret' } });
    assert.deepEqual(got.wasm, WASM);
    assert.ok(seen.some((s) => s.startsWith('/token?')), 'the token service was asked');
    assert.ok(seen.some((s) => s === `/v2/auth/blobs/${sha(WASM)} Bearer t0k3n`), 'the blob was fetched with the token');
  });
});
