/**
 * Remote Wasm in ECDS made local by the agent's xDS proxy. meshd serves no WasmPlugin yet, so a small ADS
 * server stands in for it (and says so): it answers the proxy's ECDS request with an HTTP Wasm filter whose
 * module is at an http:// URL on loopback. The agent fetches the module through its Wasm cache and hands the
 * proxy (an ADS client standing in for Envoy) the same extension config with `code.local.filename`; a module
 * that cannot be fetched is NACKed to meshd's stand-in with the reason, and the proxy gets nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createMetrics } from '../core/index.js';
import { ADS_STREAM_METHOD, convertRemoteWasm, WasmCache, XdsProxy } from '../agent/index.js';
import { decode, encode, TYPE_URL } from '../xds/protos/index.js';
import { AdsClient } from '../xds/testing/ads-client.js';
import { freePort } from '../xds/testing/free-port.js';

const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const identity = (b: Buffer): Buffer => b;

/** An ECDS response with one HTTP Wasm filter whose module is at `url`. */
function ecdsResponse(url: string, sha256: string, nonce: string): Buffer {
  const wasm = { '@type': 'type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm', config: { name: 'auth', vmConfig: { runtime: 'envoy.wasm.runtime.v8', code: { remote: { httpUri: { uri: url, cluster: 'none', timeout: { seconds: 10 } }, sha256 } } } } };
  const resource = { '@type': 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig', name: 'wasm-filter', typedConfig: wasm };
  return Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', { versionInfo: nonce, typeUrl: TYPE_URL.extensionConfig, nonce, resources: [resource] }));
}

describe('e2e: remote Wasm in ECDS made local by the agent (a stand-in for meshd, which serves no WasmPlugin yet)', function () {
  this.timeout(60_000);
  const closers: (() => unknown)[] = [];
  after(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it('given a Wasm filter at an http URL should fetch it, hand the proxy a local file, and NACK a module that cannot be fetched', async () => {
    const logger = pino({ level: process.env['TEST_LOG'] ?? 'silent' });
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    const dir = mkdtempSync(join(tmpdir(), 'e2e-wasm-ecds-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const http: Server = createServer((req, res) => (req.url === '/auth.wasm' ? res.writeHead(200).end(WASM) : res.writeHead(404).end()));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => http.close(() => r())));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    const sha = createHash('sha256').update(WASM).digest('hex');

    // The stand-in meshd: answers the first ECDS request with a good module, the first ACK with a missing one.
    const requests: { typeUrl?: string; responseNonce?: string; errorDetail?: { message?: string } }[] = [];
    const server = new grpc.Server();
    server.addService({ StreamAggregatedResources: { path: ADS_STREAM_METHOD, requestStream: true, responseStream: true, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } }, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        call.on('data', (b: Buffer) => {
          const req = decode('envoy.service.discovery.v3.DiscoveryRequest', b) as (typeof requests)[number];
          requests.push(req);
          if (req.typeUrl !== TYPE_URL.extensionConfig) return;
          if (!req.responseNonce) call.write(ecdsResponse(`${base}/auth.wasm`, sha, 'n1'));
          else if (req.responseNonce === 'n1' && !req.errorDetail) call.write(ecdsResponse(`${base}/missing.wasm`, '', 'n2'));
        });
        call.on('end', () => call.end());
      },
    });
    const upPort = await freePort();
    await new Promise<void>((res, rej) => server.bindAsync(`127.0.0.1:${upPort}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
    closers.push(() => server.forceShutdown());

    const cache = new WasmCache({ dir: join(dir, 'wasm'), maxRetries: 0, requestTimeoutMs: 5000, expiryMs: 60_000, purgeIntervalMs: 60_000, insecureRegistries: [], metrics, logger });
    closers.push(() => cache.close());
    const socketPath = join(dir, 'XDS');
    const xds = await XdsProxy.start({
      socketPath, upstream: { address: `127.0.0.1:${upPort}`, credentials: grpc.credentials.createInsecure() }, metrics, logger,
      convertExtensionConfig: (r) => convertRemoteWasm(r, cache, metrics),
    });
    closers.push(() => xds.close());
    const envoy = new AdsClient({ address: `unix:${socketPath}`, node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default' } }, autoAck: true });
    closers.push(() => envoy.close());
    envoy.subscribe(TYPE_URL.extensionConfig, ['wasm-filter']);

    const first = await envoy.waitFor('the converted extension config', () => envoy.latest(TYPE_URL.extensionConfig));
    const config = decode('envoy.config.core.v3.TypedExtensionConfig', first.resources[0]!.body) as { typedConfig: { config: { vmConfig: { code: { local?: { filename?: string }; remote?: unknown } } } } };
    const code = config.typedConfig.config.vmConfig.code;
    assert.equal(code.remote, undefined, 'no remote module left for the proxy');
    assert.deepEqual(readFileSync(code.local!.filename!), WASM, 'the local file holds the module');

    const deadline = Date.now() + 20_000;
    while (!requests.some((r) => r.typeUrl === TYPE_URL.extensionConfig && r.errorDetail?.message)) {
      if (Date.now() > deadline) assert.fail(`no NACK reached meshd's stand-in: ${JSON.stringify(requests)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const nack = requests.find((r) => r.errorDetail?.message)!;
    assert.equal(nack.responseNonce, 'n2');
    assert.match(nack.errorDetail!.message!, /Wasm module http:\/\/127\.0\.0\.1:\d+\/missing\.wasm: .*HTTP 404/);
    assert.equal(envoy.latest(TYPE_URL.extensionConfig)!.nonce, first.nonce, 'the proxy kept the last good config');
    const text = await metrics.text();
    assert.match(text, /^wasm_config_conversion_count\{result="success"\} 1$/m);
    assert.match(text, /^wasm_config_conversion_count\{result="fetch_failure"\} 1$/m);
    assert.match(text, /^wasm_config_conversion_duration_count 1$/m);
  });
});
