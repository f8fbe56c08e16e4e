// node dist/hack/bench/xds/testing/reference-server.js --configDir DIR --grpcAddr 127.0.0.1:PORT [--rescanIntervalMs 5000]
// A bare xDS server for checking the benchmark itself and for comparison with meshd: the config-dir
// source, the model and the proxyless generator with the transport (xds/ MeshDiscovery) on one
// insecure gRPC port, options from the same environment variables meshd reads, and nothing else
// (no CA, no debug HTTP, no monitoring). Plug it in with
//   --server-cmd "node dist/hack/bench/xds/testing/reference-server.js --configDir {configDir} --grpcAddr {grpcAddr}"
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { fileConfigSource } from '../../../../controllers/index.js';
import { closeGrpcServer, createMetrics, loadEnv } from '../../../../core/index.js';
import { MeshDiscovery, meshDiscoveryOptionsFromEnv } from '../../../../xds/index.js';

function flagValue(argv: readonly string[], name: string, fallback?: string): string {
  const i = argv.indexOf(name);
  const v = i >= 0 ? argv[i + 1] : fallback;
  if (!v) throw new Error(`reference-server: missing ${name} (usage: --configDir DIR --grpcAddr HOST:PORT)`);
  return v;
}

async function main(argv: readonly string[]): Promise<void> {
  const configDir = flagValue(argv, '--configDir');
  const grpcAddr = flagValue(argv, '--grpcAddr');
  // NOTE: 0 turns the config source's periodic full rescan off, to see the push path without it.
  const rescanIntervalMs = Number(flagValue(argv, '--rescanIntervalMs', '5000'));
  if (!Number.isInteger(rescanIntervalMs) || rescanIntervalMs < 0) throw new Error(`reference-server: --rescanIntervalMs: expected an integer >= 0`);
  const env = loadEnv('pilot-discovery');
  const log = pino({ level: 'warn' });
  const metrics = createMetrics('pilot-discovery');
  const discovery = new MeshDiscovery(meshDiscoveryOptionsFromEnv(env, 'cluster.local', metrics, { ads: log, delta: log }));
  const server = new grpc.Server({ 'grpc.max_send_message_length': -1, 'grpc.max_concurrent_streams': 100_000 });
  discovery.ads.register(server);
  const sub = discovery.connect(
    fileConfigSource({ dir: configDir, defaultNamespace: 'mesh-system', rescanIntervalMs, onRejected: (r) => log.warn({ rejected: r.message }, 'config rejected') }),
  );
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(grpcAddr, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())),
  );
  log.warn({ grpcAddr, configDir }, 'reference server listening');
  const stop = (): void => {
    sub.unsubscribe();
    discovery.ads.close();
    void closeGrpcServer(server, 2000).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
