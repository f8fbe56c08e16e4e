// pilot-agent's files on a full disk: a tmpfs of the test's own (real ENOSPC; root mounts it), real HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { WasmCache, WasmFetchError, writeCertificateFiles, type WorkloadSecret } from '../../agent/index.js';
import { createMetrics } from '../../core/index.js';
import { Tmpfs, tmpfsBlocker } from '../testing/tmpfs.js';

/** A Wasm module of 64 KiB: the magic and version, then zeros. */
const MODULE = Buffer.concat([Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]), Buffer.alloc(64 * 1024 - 8)]);

// Skipped as a whole, the reason printed, where no tmpfs can be mounted (not root): ENOSPC must come from the kernel.
describe('pilot-agent on a full disk', () => {
  let server: Server;
  let url: string;
  let fs: Tmpfs | undefined;

  before(async function () {
    const blocker = tmpfsBlocker();
    if (blocker) {
      console.log(`      skipped: ${blocker}`);
      this.skip(); // no tmpfs here (reason printed above): the kernel's ENOSPC needs a file system of the test's own
    }
    server = createServer((_req, res) => void res.writeHead(200).end(MODULE));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/filter.wasm`;
    fs = new Tmpfs(256 * 1024, 'agent-full-');
  });
  after(async () => {
    fs?.dispose();
    if (server) await new Promise<void>((res) => server.close(() => res()));
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): the ENOSPC must be the kernel's.
  it('given no room for the module should refuse it naming the URL, the file and ENOSPC, leave nothing behind, and store it once there is room', async () => {
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    const dir = join(fs!.dir, 'wasm');
    const cache = new WasmCache({ dir, maxRetries: 0, requestTimeoutMs: 2000, expiryMs: 3600_000, purgeIntervalMs: 3600_000, insecureRegistries: [], retryBackoffMs: 1, metrics, logger: pino({ level: 'silent' }) });
    fs!.fill();
    await assert.rejects(cache.get(url), (e: unknown) => e instanceof WasmFetchError && e.result === 'download_failure' && e.message.startsWith(`${url}: cannot store it as ${dir}/`) && /ENOSPC/.test(e.message));
    assert.deepEqual(readdirSync(dir), [], 'no torn module or temporary file is left');
    assert.match(await metrics.text(), /^wasm_remote_fetch_count\{result="download_failure"\} 1$/m);

    fs!.free();
    const path = await cache.get(url);
    assert.deepEqual(readFileSync(path), MODULE);
    assert.deepEqual(readdirSync(dir), [path.slice(dir.length + 1)]);
  });

  // Skipped, the reason printed, where no tmpfs can be mounted (not root): the ENOSPC must be the kernel's.
  it('given certificate files to replace (proxyless gRPC) should refuse naming the file and ENOSPC and keep the previous certificate whole', () => {
    const dir = join(fs!.dir, 'certs');
    const secret = (n: number): WorkloadSecret => ({ certChainPem: `chain-${n}\n${'c'.repeat(8000)}`, keyPem: `key-${n}`, rootCertPem: `root-${n}`, notBeforeMs: 0, notAfterMs: 1 });
    writeCertificateFiles(dir, secret(1));
    const before = readdirSync(dir).sort();
    fs!.fill();
    assert.throws(() => writeCertificateFiles(dir, secret(2)), (e: Error) => e.message.startsWith(`cannot write ${join(dir, 'cert-chain.pem')}: ENOSPC`));
    assert.deepEqual(readdirSync(dir).sort(), before, 'no temporary file is left');
    assert.match(readFileSync(join(dir, 'cert-chain.pem'), 'utf8'), /^chain-1\n/, 'the previous chain is whole');
    fs!.free();
    writeCertificateFiles(dir, secret(2));
    assert.match(readFileSync(join(dir, 'cert-chain.pem'), 'utf8'), /^chain-2\n/);
  });
});
