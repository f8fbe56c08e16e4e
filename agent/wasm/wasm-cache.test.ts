// Real HTTP on 127.0.0.1 serving Wasm modules; real files in a temp directory; a manual clock for expiry.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createMetrics, ManualClock, type Metrics } from '../../core/index.js';
import { WasmCache, type WasmCacheOptions } from './wasm-cache.js';

const MODULE = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const SHA = createHash('sha256').update(MODULE).digest('hex');

describe('WasmCache', () => {
  let server: Server;
  let base: string;
  let hits: Record<string, number>;
  let failFirst = 0;
  let dir: string;
  let metrics: Metrics;
  before(async () => {
    server = createServer((req, res) => {
      hits[req.url!] = (hits[req.url!] ?? 0) + 1;
      if (req.url === '/flaky.wasm' && hits[req.url]! <= failFirst) return void res.writeHead(503).end();
      if (req.url === '/not-wasm') return void res.writeHead(200).end('<html>');
      if (req.url === '/filter.wasm' || req.url === '/flaky.wasm') return void res.writeHead(200).end(MODULE);
      res.writeHead(404).end();
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((res) => server.close(() => res())));
  beforeEach(() => {
    hits = {};
    dir = mkdtempSync(join(tmpdir(), 'wasm-'));
    metrics = createMetrics('pilot-agent', { processMetrics: false });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cache = (o: Partial<WasmCacheOptions> = {}): WasmCache =>
    new WasmCache({ dir, maxRetries: 5, requestTimeoutMs: 2000, expiryMs: 24 * 3600_000, purgeIntervalMs: 3600_000, insecureRegistries: [], retryBackoffMs: 1, metrics, logger: pino({ level: 'silent' }), ...o });

  it('given a module with its checksum should fetch it once, store it by sha256 and serve later lookups from disk', async () => {
    const c = cache();
    const path = await c.get(`${base}/filter.wasm`, SHA);
    assert.equal(path, join(dir, `${SHA}.wasm`));
    assert.deepEqual(readFileSync(path), MODULE);
    assert.equal(await c.get(`${base}/filter.wasm`, SHA), path);
    assert.equal(hits['/filter.wasm'], 1);
    const text = await metrics.text();
    assert.match(text, /^wasm_cache_lookup_count\{hit="false"\} 1$/m);
    assert.match(text, /^wasm_cache_lookup_count\{hit="true"\} 1$/m);
    assert.match(text, /^wasm_remote_fetch_count\{result="success"\} 1$/m);
    assert.match(text, /^wasm_cache_entries 1$/m);
  });

  const failures: { name: string; url: string; sha?: string; result: string; error: RegExp }[] = [
    { name: 'a checksum that does not match', url: '/filter.wasm', sha: 'ab'.repeat(32), result: 'checksum_mismatched', error: /sha256 is [0-9a-f]{64}, expected abab/ },
    { name: 'a body that is not Wasm', url: '/not-wasm', result: 'download_failure', error: /not a Wasm binary/ },
    { name: 'a module that is not there', url: '/missing.wasm', result: 'download_failure', error: /HTTP 404 \(after 6 attempts\)/ },
  ];
  for (const f of failures) {
    it(`given ${f.name} should refuse it, store nothing and count ${f.result}`, async () => {
      const c = cache();
      await assert.rejects(c.get(`${base}${f.url}`, f.sha), (e: Error & { result?: string }) => {
        assert.equal(e.result, f.result);
        assert.match(e.message, f.error);
        return true;
      });
      assert.equal(c.size, 0);
      assert.match(await metrics.text(), new RegExp(`^wasm_remote_fetch_count\\{result="${f.result}"\\} 1$`, 'm'));
    });
  }

  it('given a server failing twice should retry and succeed on the third attempt (WASM_HTTP_REQUEST_MAX_RETRIES)', async () => {
    failFirst = 2;
    await cache({ maxRetries: 2 }).get(`${base}/flaky.wasm`);
    assert.equal(hits['/flaky.wasm'], 3);
    hits = {};
    await assert.rejects(cache({ maxRetries: 1 }).get(`${base}/flaky.wasm`), /HTTP 503 \(after 2 attempts\)/);
    failFirst = 0;
  });

  it('given an entry unused past WASM_MODULE_EXPIRY should purge it at the next WASM_PURGE_INTERVAL', async () => {
    const clock = new ManualClock();
    const c = cache({ clock, expiryMs: 10_000, purgeIntervalMs: 4_000 });
    c.start();
    const path = await c.get(`${base}/filter.wasm`);
    await clock.advance(8_000);
    assert.ok(existsSync(path), 'still fresh at 8s');
    await clock.advance(4_000);
    assert.equal(existsSync(path), false, 'purged at the 12s check');
    assert.equal(c.size, 0);
    assert.match(await metrics.text(), /^wasm_cache_entries 0$/m);
    c.close();
  });
});
