import assert from 'node:assert/strict';
import { createLogging, createMetrics, DEFAULT_LOG_OPTIONS, Lifecycle, loadEnv, SCOPES } from '../../core/index.js';
import { startMeshdServer } from './meshd-server.js';

describe('meshd listeners', () => {
  it('given start-up not finished or sources not synced should answer /ready with 503 saying why, then 200', async () => {
    const lifecycle = new Lifecycle();
    const logging = createLogging({ ...DEFAULT_LOG_OPTIONS, outputLevels: 'all:none' }, SCOPES['pilot-discovery']);
    try {
      const server = await startMeshdServer(
        {
          grpcAddr: '127.0.0.1:0',
          httpAddr: '127.0.0.1:0',
          monitoringAddr: '127.0.0.1:0',
          ctrlz: { address: '127.0.0.1', port: 0 },
          keepalive: { intervalMs: 30_000, timeoutMs: 10_000, maxServerConnectionAgeMs: Infinity },
          maxRecvMsgSize: 4 << 20,
          maxConcurrentStreams: 100,
          shutdownMs: 1000,
        },
        { logging, metrics: createMetrics('pilot-discovery', { processMetrics: false }), env: loadEnv('pilot-discovery', {}), lifecycle },
      );
      const url = `http://127.0.0.1:${server.http.address.port}/ready`;
      const before = await fetch(url);
      assert.equal(before.status, 503);
      assert.match(await before.text(), /starting/);
      let waiting = 'waiting for the first sync of crd-config';
      server.setReadiness(() => waiting || undefined);
      const syncing = await fetch(url);
      assert.equal(syncing.status, 503);
      assert.equal(await syncing.text(), 'not ready: waiting for the first sync of crd-config\n');
      waiting = '';
      assert.equal((await fetch(url)).status, 200);
    } finally {
      await lifecycle.close(5000);
    }
  });
});
