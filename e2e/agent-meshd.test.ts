/**
 * pilot-agent against the real thing: meshd (child process, CA and secure xDS on), a TokenRequest token
 * from the real API server, and the stand-in proxy (Envoy cannot run here) started by the agent. The agent
 * gets a certificate from meshd's CA, serves it over SDS to the stand-in, rotates it, and proxies the
 * stand-in's ADS stream to meshd and back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { standInEvents, waitFor as waitForCondition, writeStandInProxyBinary } from '../agent/testing/stand-in-proxy-binary.js';
import { freePorts, httpGet, programEnv, REPO_ROOT, type ProgramProcess } from '../cli/testing/program-process.js';
import { caSecretRoot, chainVerifiesTo, SecureMeshd, serviceAccountToken } from './ca-harness.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

describe('e2e: pilot-agent with meshd (TokenRequest token, CA, SDS to the stand-in proxy, ADS through the agent)', function () {
  this.timeout(180_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let meshNs: string;
  let appNs: string;
  let meshd: SecureMeshd;
  let root: string;
  let dir: string;
  let agent: ProgramProcess | undefined;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    meshNs = await createTestNamespace(core, 'e2e-agent-mesh');
    appNs = await createTestNamespace(core, 'e2e-agent-app');
    await core.createNamespacedServiceAccount({ namespace: appNs, body: { metadata: { name: 'reviews' } } });
    // NOTE: `localhost` in meshd's serving certificate, so the agent dials localhost and verifies the name.
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, { MESHD_CUSTOM_HOST: 'localhost' });
    root = await caSecretRoot(core, meshNs);
    dir = mkdtempSync(join(tmpdir(), 'e2e-agent-'));
  });

  after(async () => {
    if (agent && agent.child.exitCode === null && agent.child.signalCode === null) {
      agent.child.kill('SIGKILL');
      for (const e of standInEvents(join(dir, 'stand-in.log'))) if (e.event === 'start') try { process.kill(e.pid, 'SIGKILL'); } catch { /* gone */ }
      await agent.exited;
    }
    rmSync(dir, { recursive: true, force: true });
    await meshd?.stop();
    for (const ns of [appNs, meshNs]) if (ns) await deleteNamespaceFully(core, ns);
  });

  it('given a TokenRequest token should get a certificate from meshd, serve and rotate it over SDS, and carry the sidecar ADS stream to meshd and its answers back', async () => {
    const [adminPort, statusPort] = await freePorts(2);
    writeFileSync(join(dir, 'root-cert.pem'), root);
    mkdirSync(join(dir, 'var/run/secrets/tokens'), { recursive: true });
    writeFileSync(join(dir, 'var/run/secrets/tokens/mesh-token'), await serviceAccountToken(core, appNs, 'reviews', ['mesh-ca']));
    const address = `localhost:${meshd.ports.secureGrpc}`;
    const log = join(dir, 'stand-in.log');
    const env = programEnv({
      PROXY_CONFIG: JSON.stringify({ binaryPath: writeStandInProxyBinary(dir), configPath: join(dir, 'etc/mesh/proxy'), proxyAdminPort: adminPort, statusPort, discoveryAddress: address, terminationDrainDuration: '1s' }),
      POD_NAME: 'reviews-1', POD_NAMESPACE: appNs, SERVICE_ACCOUNT: 'reviews', MESH_META_INSTANCE_IPS: '10.9.8.7',
      CA_ADDR: address, CA_ROOT_CA: join(dir, 'root-cert.pem'), XDS_ROOT_CA: join(dir, 'root-cert.pem'), SECRET_TTL: '10s', STAND_IN_LOG: log,
    });
    const child = spawn(join(REPO_ROOT, 'bin/pilot-agent'), ['proxy', 'sidecar'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.on('data', (d: Buffer) => (err += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    agent = { child, stdout: () => '', stderr: () => err, exited: new Promise((res) => child.on('close', (code, sig) => res(code ?? sig ?? 'unknown'))) };

    // SDS: the stand-in gets meshd's certificate for the pod's identity, then the rotated one (SECRET_TTL 10s).
    const sds = (): { serial?: string; san?: string }[] => standInEvents(log).filter((e) => e.event === 'sds' && e.name === 'default');
    await waitForCondition(() => sds().length >= 2, `two certificates over SDS (agent output: ${err.slice(-2000)})`, 60_000);
    const [first, second] = sds();
    assert.equal(first!.san, `URI:spiffe://cluster.local/ns/${appNs}/sa/reviews`);
    assert.notEqual(second!.serial, first!.serial);
    // The chain the stand-in got verifies to meshd's root (read back through its config dump).
    const dump = JSON.parse((await httpGet(`http://127.0.0.1:${adminPort}/config_dump`)).body) as { configs: { dynamicActiveSecrets?: { name: string; secret: { tlsCertificate?: { certificateChain: { inlineBytes: string } } } }[] }[] };
    const chainB64 = dump.configs[1]!.dynamicActiveSecrets!.find((s) => s.name === 'default')!.secret.tlsCertificate!.certificateChain.inlineBytes;
    const chain = Buffer.from(chainB64, 'base64').toString().split(/(?=-----BEGIN CERTIFICATE-----)/);
    assert.ok(chainVerifiesTo(chain, root), 'the served chain verifies to meshd root');
    assert.ok(new X509Certificate(chain[0]!).validTo);

    // ADS: meshd's sidecar generators answer the stand-in's stream through the agent.
    await waitForCondition(() => standInEvents(log).some((e) => e.event === 'xds'), `a sidecar ADS response from meshd (agent output: ${err.slice(-1500)})`, 30_000);
    assert.ok(!standInEvents(log).some((e) => e.event === 'xds-error'), `no xDS error: ${JSON.stringify(standInEvents(log).filter((e) => e.event === 'xds-error'))}`);
    assert.equal(standInEvents(log).find((e) => e.event === 'xds')!.typeUrl, 'type.googleapis.com/envoy.config.cluster.v3.Cluster');
    const metrics = (await httpGet(`http://127.0.0.1:${statusPort}/stats/prometheus`)).body;
    assert.match(metrics, /^cert_expiry_seconds\{resource_name="default"\} /m);
    // Two certificates or more: as many CSRs counted, none failed, their time summed.
    assert.match(metrics, /^num_outgoing_requests\{request_type="csr"\} [2-9]/m);
    assert.doesNotMatch(metrics, /^num_failed_outgoing_requests\{request_type="csr"\} [1-9]/m);
    assert.match(metrics, /^outgoing_latency\{request_type="csr"\} [1-9]/m);
    child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, err.slice(-2000));
  });

  it('given XDS_AUTH=false (no token) should reach meshd with the workload certificate as the client certificate', async () => {
    const [adminPort, statusPort] = await freePorts(2);
    const log = join(dir, 'stand-in-cert.log');
    const address = `localhost:${meshd.ports.secureGrpc}`;
    const env = programEnv({
      PROXY_CONFIG: JSON.stringify({ binaryPath: join(dir, 'dataplane'), configPath: join(dir, 'etc/mesh/proxy3'), proxyAdminPort: adminPort, statusPort, discoveryAddress: address, terminationDrainDuration: '1s' }),
      POD_NAME: 'reviews-3', POD_NAMESPACE: appNs, SERVICE_ACCOUNT: 'reviews', MESH_META_INSTANCE_IPS: '10.9.8.9', XDS_AUTH: 'false',
      CA_ADDR: address, CA_ROOT_CA: join(dir, 'root-cert.pem'), XDS_ROOT_CA: join(dir, 'root-cert.pem'), STAND_IN_LOG: log,
    });
    const child = spawn(join(REPO_ROOT, 'bin/pilot-agent'), ['proxy', 'sidecar'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.on('data', (d: Buffer) => (err += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    agent = { child, stdout: () => '', stderr: () => err, exited: new Promise((res) => child.on('close', (code, sig) => res(code ?? sig ?? 'unknown'))) };
    // NOTE: the first stream may open before the first certificate (root-only TLS, refused); the stand-in reconnects.
    await waitForCondition(() => standInEvents(log).some((e) => e.event === 'xds'), `an ADS response from meshd without a token (agent output: ${err.slice(-1500)})`, 60_000);
    assert.equal(standInEvents(log).find((e) => e.event === 'xds')!.typeUrl, 'type.googleapis.com/envoy.config.cluster.v3.Cluster');
    child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, err.slice(-2000));
  });

  it('given a node meshd serves (GENERATOR=grpc) should carry the stand-in ADS stream to meshd and its answers back', async () => {
    const [adminPort, statusPort] = await freePorts(2);
    const log = join(dir, 'stand-in-grpc.log');
    const address = `localhost:${meshd.ports.secureGrpc}`;
    // NOTE: the node metadata says GENERATOR=grpc: meshd's proxyless generators answer it.
    const env = programEnv({
      PROXY_CONFIG: JSON.stringify({ binaryPath: join(dir, 'dataplane'), configPath: join(dir, 'etc/mesh/proxy2'), proxyAdminPort: adminPort, statusPort, discoveryAddress: address, terminationDrainDuration: '1s' }),
      POD_NAME: 'reviews-2', POD_NAMESPACE: appNs, SERVICE_ACCOUNT: 'reviews', MESH_META_INSTANCE_IPS: '10.9.8.8', MESH_META_GENERATOR: 'grpc',
      CA_ADDR: address, CA_ROOT_CA: join(dir, 'root-cert.pem'), XDS_ROOT_CA: join(dir, 'root-cert.pem'), STAND_IN_LOG: log,
    });
    const child = spawn(join(REPO_ROOT, 'bin/pilot-agent'), ['proxy', 'sidecar'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.on('data', (d: Buffer) => (err += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    agent = { child, stdout: () => '', stderr: () => err, exited: new Promise((res) => child.on('close', (code, sig) => res(code ?? sig ?? 'unknown'))) };
    await waitForCondition(() => standInEvents(log).some((e) => e.event === 'xds'), `an ADS response from meshd (agent output: ${err.slice(-1500)})`, 60_000);
    const first = standInEvents(log).find((e) => e.event === 'xds')!;
    assert.equal(first.typeUrl, 'type.googleapis.com/envoy.config.cluster.v3.Cluster');
    const metrics = (await httpGet(`http://127.0.0.1:${statusPort}/stats/prometheus`)).body;
    assert.match(metrics, /^xds_proxy_requests [1-9]/m);
    assert.match(metrics, /^xds_proxy_responses [1-9]/m);
    assert.match(metrics, /^meshd_connection_failures 0$/m);
    child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, err.slice(-2000));
  });
});
