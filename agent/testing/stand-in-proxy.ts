/**
 * The stand-in data-plane proxy for tests (Envoy cannot run on these machines). Started by the agent
 * exactly as Envoy would be (`-c <bootstrap> ... --concurrency N`), it loads the bootstrap JSON and
 * serves an admin API on the bootstrap's admin address: `/ready`, `/stats/prometheus`, `/config_dump`,
 * `POST /drain_listeners`, `POST /quitquitquit`. Tests steer it with `STAND_IN_*` variables:
 *
 * - `STAND_IN_LOG`: a file each run appends JSON lines to (`start` with argv, `drain`, `sigterm`).
 * - `STAND_IN_CRASH_RUNS` + `STAND_IN_EXIT_CODE`: the first N runs (counted in the log) exit with that code.
 * - `STAND_IN_EXIT_AFTER_START`: exit with `STAND_IN_EXIT_CODE` (default 0) once the admin API is up.
 *
 * Like Envoy it asks the `sds-grpc` cluster's socket for the `default` and `ROOTCA` secrets and records
 * each one it receives (`sds` events with the leaf's serial and SAN); `/config_dump` shows them. It opens
 * ADS on the `xds-grpc` cluster's socket with the bootstrap's node, asks for clusters then listeners, ACKs
 * each response (`xds` events), counts them in `/stats` (`cluster_manager.cds.update_success`,
 * `listener_manager.lds.update_success`) and reconnects after a failed stream, with backoff.
 */
import { X509Certificate } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { decode, encode } from '../xds-protos.js';
import { ADS_STREAM_METHOD } from '../xds-proxy/xds-proxy.js';
import { openSdsStream, type SdsStream } from './sds-client.js';

const env = process.env;
const logPath = env['STAND_IN_LOG'];
const record = (event: Record<string, unknown>): void => {
  if (logPath) appendFileSync(logPath, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
};
const previousStarts = logPath && existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').filter((l) => l.includes('"event":"start"')).length : 0;
const argv = process.argv.slice(2);
record({ event: 'start', argv, cwd: process.cwd() });

const exitCode = Number(env['STAND_IN_EXIT_CODE'] ?? '0');
if (previousStarts < Number(env['STAND_IN_CRASH_RUNS'] ?? '0')) {
  process.stderr.write(`stand-in proxy: crashing on purpose (run ${previousStarts + 1})\n`);
  process.exit(exitCode);
}

const configIndex = argv.indexOf('-c');
if (configIndex < 0) {
  process.stderr.write('stand-in proxy: no -c <bootstrap>\n');
  process.exit(1);
}
const bootstrapPath = argv[configIndex + 1]!;
interface StaticCluster {
  name: string;
  load_assignment?: { endpoints: { lb_endpoints: { endpoint: { address: { pipe?: { path: string } } } }[] }[] };
}
const bootstrap = JSON.parse(readFileSync(bootstrapPath, 'utf8')) as {
  node: { id: string; cluster: string; metadata?: Record<string, string> };
  admin: { address: { socket_address: { address: string; port_value: number } } };
  static_resources?: { clusters?: StaticCluster[] };
};
const admin = bootstrap.admin.address.socket_address;
let draining = false;

const pipeOf = (name: string): string | undefined =>
  bootstrap.static_resources?.clusters?.find((c) => c.name === name)?.load_assignment?.endpoints[0]?.lb_endpoints[0]?.endpoint.address.pipe?.path;
const secrets: Record<string, Record<string, unknown>> = {};
const sdsStreams: SdsStream[] = [];
const sdsPath = pipeOf('sds-grpc');
if (sdsPath) {
  for (const name of ['default', 'ROOTCA']) {
    const stream = openSdsStream(sdsPath, (r) => {
      const secret = r.secrets[name];
      if (!secret) return;
      secrets[name] = secret;
      const tls = secret['tlsCertificate'] as { certificateChain: { inlineBytes: string } } | undefined;
      const leaf = tls ? new X509Certificate(Buffer.from(tls.certificateChain.inlineBytes, 'base64')) : undefined;
      record({ event: 'sds', name, version: r.versionInfo, ...(leaf ? { serial: leaf.serialNumber, san: leaf.subjectAltName } : {}) });
      stream.request([name], r);
    });
    stream.request([name]);
    sdsStreams.push(stream);
  }
}

// ADS: clusters first, then listeners, as Envoy does; ACK each response.
const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const stats = { cds: 0, lds: 0 };
const xdsPath = pipeOf('xds-grpc');
let xdsClient: grpc.Client | undefined;
function openAds(backoffMs: number): void {
  if (!xdsPath) return;
  xdsClient ??= new grpc.Client(`unix:${xdsPath}`, grpc.credentials.createInsecure());
  const id = (b: Buffer): Buffer => b;
  const call = xdsClient.makeBidiStreamRequest(ADS_STREAM_METHOD, id, id);
  const send = (typeUrl: string, ack?: { versionInfo: string; nonce: string }): void => {
    // The bootstrap's node, metadata included, as Envoy sends it on the first request.
    const metadata = { fields: Object.fromEntries(Object.entries(bootstrap.node.metadata ?? {}).map(([k, v]) => [k, { stringValue: v }])) };
    const req = { node: { id: bootstrap.node.id, cluster: bootstrap.node.cluster, metadata }, typeUrl, ...(ack ? { versionInfo: ack.versionInfo, responseNonce: ack.nonce } : {}) };
    call.write(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryRequest', req)));
  };
  let gotAny = false;
  call.on('data', (b: Buffer) => {
    gotAny = true;
    const r = decode('envoy.service.discovery.v3.DiscoveryResponse', b) as { versionInfo: string; nonce: string; typeUrl: string; resources?: unknown[] };
    if (r.typeUrl === CDS) stats.cds++;
    if (r.typeUrl === LDS) stats.lds++;
    record({ event: 'xds', typeUrl: r.typeUrl, resources: r.resources?.length ?? 0 });
    send(r.typeUrl, r);
    if (r.typeUrl === CDS && stats.cds === 1) send(LDS);
  });
  call.on('error', (e: grpc.ServiceError) => {
    record({ event: 'xds-error', code: e.code, details: e.details });
    const next = gotAny ? 200 : Math.min(backoffMs * 2, 5_000);
    setTimeout(() => openAds(next), backoffMs).unref();
  });
  send(CDS);
}
openAds(200);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://admin');
  if (req.method === 'GET' && url.pathname === '/ready') {
    res.writeHead(draining ? 503 : 200).end(draining ? 'DRAINING\n' : 'LIVE\n');
  } else if (req.method === 'GET' && url.pathname === '/stats') {
    res.writeHead(200).end(`cluster_manager.cds.update_success: ${stats.cds}\nlistener_manager.lds.update_success: ${stats.lds}\n`);
  } else if (req.method === 'GET' && url.pathname === '/stats/prometheus') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`# TYPE envoy_server_live gauge\nenvoy_server_live ${draining ? 0 : 1}\n`);
  } else if (req.method === 'GET' && url.pathname === '/config_dump') {
    const dynamicActiveSecrets = Object.entries(secrets).map(([name, secret]) => ({ name, secret }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ configs: [{ '@type': 'type.googleapis.com/envoy.admin.v3.BootstrapConfigDump', bootstrap }, { '@type': 'type.googleapis.com/envoy.admin.v3.SecretsConfigDump', dynamicActiveSecrets }] }),
    );
  } else if (req.method === 'POST' && url.pathname === '/drain_listeners') {
    draining = true;
    record({ event: 'drain', query: url.search });
    res.writeHead(200).end('OK\n');
  } else if (req.method === 'POST' && url.pathname === '/quitquitquit') {
    res.writeHead(200).end('OK\n');
    record({ event: 'quit' });
    server.close();
    process.exit(0);
  } else {
    res.writeHead(404).end('not found\n');
  }
});
server.listen(admin.port_value, admin.address, () => {
  record({ event: 'admin', port: admin.port_value });
  if (env['STAND_IN_EXIT_AFTER_START']) process.exit(exitCode);
});
process.on('SIGTERM', () => {
  record({ event: 'sigterm', draining });
  process.exit(0);
});
