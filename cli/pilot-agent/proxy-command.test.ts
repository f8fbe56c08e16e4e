// NOTE: the data-plane proxy cannot run here. These tests run the real `bin/pilot-agent proxy` with the
// stand-in proxy (agent/testing/stand-in-proxy.ts) as ProxyConfig binaryPath: it loads the bootstrap the
// agent wrote and serves an admin API on the bootstrap's admin port, as Envoy would.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdirSync } from 'node:fs';
import { standInEvents, waitFor, writeStandInProxyBinary, type StandInEvent } from '../../agent/testing/stand-in-proxy-binary.js';
import { startTestMeshCa, type TestMeshCa } from '../../agent/testing/test-mesh-ca.js';
import { bufferIo, runCli } from '../framework/index.js';
import { freePorts, httpGet, programEnv, REPO_ROOT, runProgram, waitForHttp, type ProgramProcess } from '../testing/program-process.js';
import { pilotAgentCommand } from './pilot-agent-command.js';

/** Starts `bin/pilot-agent proxy ...` in `cwd` (the agent's paths are relative to it, as in a pod). */
function startAgent(args: string[], cwd: string, env: Record<string, string>): ProgramProcess {
  const child = spawn(join(REPO_ROOT, 'bin', 'pilot-agent'), ['proxy', ...args], { cwd, env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((res) => child.on('close', (code, signal) => res(code ?? signal ?? 'unknown')));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The stand-in's events without its SDS and ADS traffic (which runs alongside, in no fixed order). */
const lifeEvents = (log: string): string[] => standInEvents(log).filter((e) => !['sds', 'xds', 'xds-error'].includes(e.event)).map((e) => e.event);
const sdsEvents = (log: string, name: string): StandInEvent[] => standInEvents(log).filter((e) => e.event === 'sds' && e.name === name);

describe('pilot-agent proxy (with the stand-in proxy and meshd CA)', () => {
  let dir: string;
  let agent: ProgramProcess | undefined;
  let ca: TestMeshCa;
  before(async () => (ca = await startTestMeshCa()));
  after(async () => ca.close());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agent-proxy-'))));
  afterEach(async () => {
    if (agent && agent.child.exitCode === null && agent.child.signalCode === null) {
      agent.child.kill('SIGKILL');
      // NOTE: a stand-in left behind by the killed agent holds its stdout open; end it by its pid.
      for (const e of standInEvents(join(dir, 'stand-in.log'))) if (e.event === 'start') try { process.kill(e.pid, 'SIGKILL'); } catch { /* already gone */ }
      await agent.exited;
    }
    agent = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function setup(extra: Record<string, unknown> = {}): Promise<{ env: Record<string, string>; adminPort: number; statusPort: number; log: string }> {
    const [adminPort, statusPort] = await freePorts(2);
    const log = join(dir, 'stand-in.log');
    const proxyConfig = {
      binaryPath: writeStandInProxyBinary(dir), configPath: join(dir, 'etc/mesh/proxy'), proxyAdminPort: adminPort, statusPort, terminationDrainDuration: '1s', drainDuration: '20s',
      discoveryAddress: ca.address.replace('127.0.0.1', 'localhost'), ...extra,
    };
    writeFileSync(join(dir, 'root-cert.pem'), ca.rootCertPem);
    mkdirSync(join(dir, 'var/run/secrets/tokens'), { recursive: true });
    writeFileSync(join(dir, 'var/run/secrets/tokens/mesh-token'), ca.token('shop', 'cart'));
    return {
      adminPort: adminPort!,
      statusPort: statusPort!,
      log,
      env: {
        PROXY_CONFIG: JSON.stringify(proxyConfig), STAND_IN_LOG: log, POD_NAME: 'app-1', POD_NAMESPACE: 'shop', SERVICE_ACCOUNT: 'cart',
        MESH_META_INSTANCE_IPS: '10.9.8.7', MESH_META_APP: 'cart', CA_ADDR: ca.address.replace('127.0.0.1', 'localhost'), CA_ROOT_CA: join(dir, 'root-cert.pem'),
        ECC_SIGNATURE_ALGORITHM: 'ECDSA', XDS_ROOT_CA: join(dir, 'root-cert.pem'),
      },
    };
  }

  it('given a stand-in proxy should start it on the written bootstrap, then on SIGTERM drain it and exit 0', async () => {
    const s = await setup();
    agent = startAgent(['sidecar', '--concurrency=3', '--proxyLogLevel=info,upstream:debug'], dir, s.env);
    await waitFor(() => standInEvents(s.log).some((e) => e.event === 'admin'), 'the stand-in admin API', 15_000);
    const start = standInEvents(s.log).find((e) => e.event === 'start')!;
    const bootstrapPath = join(dir, 'etc/mesh/proxy/dataplane-rev.json');
    assert.deepEqual(start.argv, [
      '-c', bootstrapPath, '--drain-time-s', '20', '--drain-strategy', 'immediate', '--local-address-ip-version', 'v4', '--file-flush-interval-msec', '1000',
      '--disable-hot-restart', '--allow-unknown-static-fields', '-l', 'info', '--component-log-level', 'upstream:debug', '--concurrency', '3',
    ]);
    const bootstrap = JSON.parse(readFileSync(bootstrapPath, 'utf8')) as { node: { id: string; metadata: Record<string, string> } };
    assert.equal(bootstrap.node.id, 'sidecar~10.9.8.7~app-1.shop~shop.svc.cluster.local');
    assert.equal(bootstrap.node.metadata['APP'], 'cart');
    assert.equal((await httpGet(`http://127.0.0.1:${s.adminPort}/ready`)).status, 200);
    // The status server: merged metrics.
    const metrics = await httpGet(`http://127.0.0.1:${s.statusPort}/stats/prometheus`);
    assert.match(metrics.body, /^mesh_build\{component="pilot-agent"/m);
    assert.match(metrics.body, /^envoy_server_live 1$/m);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
    assert.deepEqual(lifeEvents(s.log), ['start', 'admin', 'drain', 'sigterm']);
    assert.equal(standInEvents(s.log).find((e) => e.event === 'drain')!.query, '?inboundonly&graceful');
    assert.equal(standInEvents(s.log).find((e) => e.event === 'sigterm')!.draining, true);
  });

  it('given meshd answering ADS should proxy the stand-in\'s stream with the token and node, and become ready once it has clusters and listeners', async () => {
    const s = await setup();
    const streamsBefore = ca.adsStreams.length;
    agent = startAgent([], dir, s.env);
    const ready = `http://127.0.0.1:${s.statusPort}/healthz/ready`;
    await waitForHttp(ready, agent, 20_000);
    const xds = standInEvents(s.log).filter((e) => e.event === 'xds').map((e) => [e.typeUrl, e.resources]);
    assert.deepEqual(xds.slice(0, 2), [['type.googleapis.com/envoy.config.cluster.v3.Cluster', 1], ['type.googleapis.com/envoy.config.listener.v3.Listener', 1]]);
    const stream = ca.adsStreams[streamsBefore]!;
    assert.equal(stream.nodeId, 'sidecar~10.9.8.7~app-1.shop~shop.svc.cluster.local');
    assert.equal(stream.authorization, `Bearer ${readFileSync(join(dir, 'var/run/secrets/tokens/mesh-token'), 'utf8')}`);
    // `wait` against the readiness the status server computes, `request` against the stand-in's admin API.
    const waited = await runProgram('pilot-agent', ['wait', `--url=${ready}`, '--timeoutSeconds=10']);
    assert.deepEqual([waited.code, waited.stdout.trim().split('\n').pop()], [0, 'The proxy is ready!'], waited.stderr);
    const asked = await runProgram('pilot-agent', ['request', 'GET', '/ready', `--debug-port=${s.adminPort}`]);
    assert.deepEqual(asked, { code: 0, stdout: 'LIVE\n', stderr: '' });
    const metrics = (await httpGet(`http://127.0.0.1:${s.statusPort}/stats/prometheus`)).body;
    assert.match(metrics, /^xds_proxy_requests [3-9]/m, 'CDS, LDS and the ACKs went up');
    assert.match(metrics, /^xds_proxy_responses [2-9]/m);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
  });

  it('given meshd unreachable should count connection failures and keep the proxy not ready', async () => {
    const [closed] = await freePorts(1);
    const s = await setup({ discoveryAddress: `localhost:${closed}` });
    agent = startAgent([], dir, s.env);
    await waitFor(() => standInEvents(s.log).filter((e) => e.event === 'xds-error').length >= 2, 'two failed ADS streams', 20_000);
    assert.deepEqual(await httpGet(`http://127.0.0.1:${s.statusPort}/healthz/ready`), { status: 503, body: 'config not received from meshd (no CDS and LDS update yet)\n' });
    assert.match((await httpGet(`http://127.0.0.1:${s.statusPort}/stats/prometheus`)).body, /^meshd_connection_failures [2-9]/m);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
  });

  it('given MESH_META_DNS_CAPTURE should serve the DNS proxy at DNS_PROXY_ADDR (UDP and TCP)', async () => {
    const s = await setup();
    const [dnsPort] = await freePorts(1);
    agent = startAgent([], dir, { ...s.env, MESH_META_DNS_CAPTURE: 'true', DNS_PROXY_ADDR: `127.0.0.1:${dnsPort}` });
    await waitForHttp(`http://127.0.0.1:${s.statusPort}/healthz/ready`, agent, 20_000);
    // NOTE: no query is sent: it would be forwarded to this machine's resolvers (agent/dns tests cover answers).
    await new Promise<void>((res, rej) => connect(dnsPort!, '127.0.0.1', function (this: Socket) { this.end(); res(); }).on('error', rej));
    const udp = createSocket('udp4');
    await assert.rejects(new Promise<void>((res, rej) => udp.bind(dnsPort, '127.0.0.1', res).once('error', rej)), { code: 'EADDRINUSE' });
    udp.close();
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
  });

  it('given a stand-in proxy that crashes on its first two runs should restart it until it serves its admin API', async () => {
    const s = await setup();
    agent = startAgent([], dir, { ...s.env, STAND_IN_CRASH_RUNS: '2', STAND_IN_EXIT_CODE: '3' });
    await waitFor(() => standInEvents(s.log).some((e) => e.event === 'admin'), 'the third run serving its admin API', 15_000);
    assert.deepEqual(lifeEvents(s.log), ['start', 'start', 'start', 'admin']);
    assert.equal((await httpGet(`http://127.0.0.1:${s.adminPort}/ready`)).status, 200);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
  });

  it('given POST /quitquitquit on the status port should drain the proxy and exit 0', async () => {
    const s = await setup();
    agent = startAgent([], dir, { ...s.env, MESH_KUBE_APP_PROBERS: JSON.stringify({ '/app-health/app/livez': { tcpSocket: { port: s.adminPort } } }) });
    await waitFor(() => standInEvents(s.log).some((e) => e.event === 'admin'), 'the stand-in admin API', 15_000);
    assert.deepEqual(await httpGet(`http://127.0.0.1:${s.statusPort}/app-health/app/livez`), { status: 200, body: 'connected\n' });
    const quit = await new Promise<number>((res, rej) => {
      const req = request({ host: '127.0.0.1', port: s.statusPort, path: '/quitquitquit', method: 'POST' }, (r) => (r.resume(), res(r.statusCode ?? 0)));
      req.on('error', rej);
      req.end();
    });
    assert.equal(quit, 200);
    assert.equal(await agent.exited, 0, agent.stderr());
    assert.deepEqual(lifeEvents(s.log), ['start', 'admin', 'drain', 'sigterm']);
  });

  it('given a stand-in proxy that exits cleanly should exit 0 without restarting it', async () => {
    const s = await setup();
    agent = startAgent([], dir, { ...s.env, STAND_IN_EXIT_AFTER_START: '1', STAND_IN_EXIT_CODE: '0' });
    assert.equal(await agent.exited, 0, agent.stderr());
    assert.deepEqual(lifeEvents(s.log).slice(0, 2), ['start', 'admin']);
    assert.equal(lifeEvents(s.log).filter((e) => e === 'start').length, 1);
  });

  it('given a token meshd CA accepts should serve the workload certificate over SDS to the stand-in and push the rotated one', async () => {
    const s = await setup();
    // SECRET_TTL 4s with the grace ratio 0.5: a new certificate every ~2s.
    agent = startAgent([], dir, { ...s.env, SECRET_TTL: '4s' });
    await waitFor(() => sdsEvents(s.log, 'default').length >= 2 && sdsEvents(s.log, 'ROOTCA').length >= 1, 'two certificates and the root over SDS', 20_000);
    const [first, second] = sdsEvents(s.log, 'default');
    assert.equal(first!.san, 'URI:spiffe://cluster.local/ns/shop/sa/cart');
    assert.equal(second!.san, first!.san);
    assert.notEqual(second!.serial, first!.serial);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, agent.stderr());
  });

  const refused: { name: string; env?: (d: string) => Record<string, string>; args?: (d: string) => string[]; err: RegExp }[] = [
    { name: 'a bad PROXY_CONFIG field', env: () => ({ PROXY_CONFIG: 'drainDuration: forever' }), err: /^Error: PROXY_CONFIG: drainDuration: "forever" is not a duration/ },
    { name: 'a bad env value', env: () => ({ SECRET_TTL: 'a day' }), err: /^Error: SECRET_TTL="a day": not a Duration/ },
    { name: 'a grace period ratio out of range', env: () => ({ SECRET_GRACE_PERIOD_RATIO: '1.5' }), err: /^Error: SECRET_GRACE_PERIOD_RATIO=1\.5: use a number between 0 and 1\n$/ },
    { name: 'an unknown CA_PROVIDER', env: () => ({ CA_PROVIDER: 'CloudCAS' }), err: /^not implemented yet: CA_PROVIDER="CloudCAS"/ },
    { name: 'a missing service-account token', env: () => ({ PROV_CERT: '' }), args: (d) => (rmSync(join(d, 'var/run/secrets/tokens/mesh-token')), []), err: /^Error: no service-account token at \.\/var\/run\/secrets\/tokens\/mesh-token/ },
    { name: 'an unreadable CA root', env: (d) => ({ CA_ROOT_CA: join(d, 'nope.pem') }), err: /^Error: the CA root certificate \(CA_ROOT_CA\) .*nope\.pem cannot be read: ENOENT/ },
    { name: 'USE_EXTERNAL_WORKLOAD_SDS without the socket', env: () => ({ USE_EXTERNAL_WORKLOAD_SDS: 'true' }), err: /^Error: USE_EXTERNAL_WORKLOAD_SDS is true but there is no SDS socket at \.\/var\/run\/secrets\/workload-spiffe-uds\/socket\n$/ },
    { name: 'bad MESH_KUBE_APP_PROBERS', env: () => ({ MESH_KUBE_APP_PROBERS: '{"/x": {}}' }), err: /^Error: MESH_KUBE_APP_PROBERS: "\/x" is not \/app-health/ },
    { name: 'a bad DNS_PROXY_ADDR', env: () => ({ MESH_META_DNS_CAPTURE: 'true', DNS_PROXY_ADDR: 'localhost' }), err: /^Error: DNS_PROXY_ADDR="localhost" is not host:port\n$/ },
    { name: '--stsPort (the security token service needs a cloud token exchange)', args: () => ['--stsPort=15463'], err: /^not implemented yet: --stsPort=15463: the security token service \(token manager plugin CloudTokenExchange\)\n$/ },
    { name: 'an unknown proxy type', args: () => ['gateway'], err: /^Error: proxy: "gateway" is not a proxy type \(sidecar or router\)\n$/ },
    { name: 'a bad --proxyLogLevel', args: () => ['--proxyLogLevel=loud'], err: /^Error: --proxyLogLevel: "loud" is not a level/ },
    {
      name: 'a --templateFile that is not a valid Bootstrap',
      args: (d) => {
        writeFileSync(join(d, 'bad.json'), '{"admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 99999}}}}');
        return [`--templateFile=${join(d, 'bad.json')}`];
      },
      err: /^Error: bootstrap from template file .*\/bad\.json: envoy\.config\.bootstrap\.v3\.Bootstrap is invalid: admin\.address\.socketAddress\.portValue: /,
    },
  ];
  for (const c of refused) {
    it(`given ${c.name} should exit 1 naming it and not start the proxy`, async () => {
      const s = await setup();
      const io = bufferIo({ ...s.env, ...(c.env?.(dir) ?? {}) });
      const code = await runCli(pilotAgentCommand(), ['proxy', ...(c.args?.(dir) ?? [])], io);
      assert.equal(code, 1);
      assert.match(io.err(), c.err);
      assert.deepEqual(standInEvents(s.log), []);
    });
  }
});
