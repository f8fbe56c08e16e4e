/**
 * Proxyless gRPC with pilot-agent (Istio's grpc-agent mode): two `pilot-agent proxy` processes with
 * DISABLE_DATAPLANE and GENERATOR=grpc, one per workload identity, each get a certificate from meshd's CA
 * with a TokenRequest token, write the gRPC xDS bootstrap and the certificate files, and carry the xDS
 * stream to meshd. A real @grpc/grpc-js-xds server and client use nothing but those bootstraps and files,
 * and talk mTLS by the mesh config meshd reads from the API server (STRICT PeerAuthentication, MESH_MUTUAL).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { CoreV1Api } from '@kubernetes/client-node';
import { OrchClient } from '../controllers/index.js';
import { renderCrds } from '../crds/index.js';
import { programEnv, REPO_ROOT } from '../cli/testing/program-process.js';
import { callOnce, ECHO_SERVICE, until } from '../xds/generators/testing/mesh-harness.js';
import { freePort } from '../xds/testing/free-port.js';
import { caSecretRoot, SecureMeshd, serviceAccountToken } from './ca-harness.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

interface Agent {
  readonly child: ChildProcess;
  readonly dir: string;
  output: string;
  readonly exited: Promise<number | string>;
}

describe('e2e: proxyless gRPC mTLS with pilot-agent (grpc-agent mode: bootstrap and certificate files only)', function () {
  this.timeout(240_000);
  let core: CoreV1Api;
  let client: OrchClient;
  let meshNs: string;
  let ns: string;
  let meshd: SecureMeshd;
  let root: string;
  let dir: string;
  const agents: Agent[] = [];
  const closers: (() => unknown)[] = [];

  before(async () => {
    xds.register();
    core = e2eCluster().kubeConfig().makeApiClient(CoreV1Api);
    client = new OrchClient(e2eCluster().kubeConfig(), { qps: 50, burst: 100, contentType: 'json' });
    await applyCrds(client, renderCrds());
    meshNs = await createTestNamespace(core, 'e2e-pxl-mesh');
    ns = await createTestNamespace(core, 'e2e-pxl-app');
    for (const name of ['echo', 'client']) await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    // NOTE: `localhost` in meshd's serving certificate, so the agents dial localhost and verify the name.
    meshd = await SecureMeshd.start(e2eCluster().kubeconfigPath, meshNs, { MESHD_CUSTOM_HOST: 'localhost' });
    root = await caSecretRoot(core, meshNs);
    dir = mkdtempSync(join(tmpdir(), 'e2e-pxl-'));
  });

  after(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    for (const a of agents) {
      if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
      await a.exited;
    }
    await meshd?.stop();
    for (const n of [ns, meshNs]) if (n) await deleteNamespaceFully(core, n);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts `pilot-agent proxy sidecar` without a data plane for `serviceAccount`, in a folder of its own. */
  async function startAgent(serviceAccount: string, podName: string, ip: string): Promise<Agent> {
    const home = join(dir, serviceAccount);
    mkdirSync(join(home, 'var/run/secrets/tokens'), { recursive: true });
    writeFileSync(join(home, 'root-cert.pem'), root);
    writeFileSync(join(home, 'var/run/secrets/tokens/mesh-token'), await serviceAccountToken(core, ns, serviceAccount, ['mesh-ca']));
    const address = `localhost:${meshd.ports.secureGrpc}`;
    const env = programEnv({
      PROXY_CONFIG: JSON.stringify({ configPath: join(home, 'etc/mesh/proxy'), statusPort: await freePort(), discoveryAddress: address }),
      DISABLE_DATAPLANE: 'true', MESH_META_GENERATOR: 'grpc',
      POD_NAME: podName, POD_NAMESPACE: ns, SERVICE_ACCOUNT: serviceAccount, MESH_META_INSTANCE_IPS: ip,
      CA_ADDR: address, CA_ROOT_CA: join(home, 'root-cert.pem'), XDS_ROOT_CA: join(home, 'root-cert.pem'),
    });
    const child = spawn(join(REPO_ROOT, 'bin/pilot-agent'), ['proxy', 'sidecar'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const agent: Agent = { child, dir: home, output: '', exited: new Promise((res) => child.on('close', (code, sig) => res(code ?? sig ?? 'unknown'))) };
    child.stdout!.on('data', (d: Buffer) => (agent.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (agent.output += d.toString()));
    agents.push(agent);
    return agent;
  }

  /** The agent's bootstrap, once it and the certificate files it names exist. */
  async function bootstrapOf(agent: Agent): Promise<string> {
    const path = join(agent.dir, 'etc/mesh/proxy/grpc-bootstrap.json');
    await until(() => {
      if (!existsSync(path)) return false;
      const files = (JSON.parse(readFileSync(path, 'utf8')) as { certificate_providers: { default: { config: Record<string, string> } } }).certificate_providers.default.config;
      return ['certificate_file', 'private_key_file', 'ca_certificate_file'].every((k) => existsSync(files[k]!));
    }, `the bootstrap and certificates of ${agent.dir} (agent output: ${agent.output.slice(-1500)})`, 60_000);
    return readFileSync(path, 'utf8');
  }

  it('given two agents, should give a gRPC server and client mTLS with meshd-issued identities, using only the agents\' bootstraps and files; plaintext is refused', async () => {
    const host = `echo.${ns}.svc.cluster.local`;
    const port = await freePort();
    const apply = (path: string, body: unknown): Promise<unknown> => client.request('POST', path, { body });
    const net = `/apis/networking.mesh.io/v1/namespaces/${ns}`;
    await apply(`${net}/serviceentries`, { apiVersion: 'networking.mesh.io/v1', kind: 'ServiceEntry', metadata: { name: 'echo' }, spec: { hosts: [host], location: 'MESH_INTERNAL', ports: [{ number: 50051, name: 'grpc', protocol: 'GRPC' }], resolution: 'STATIC', workloadSelector: { labels: { app: 'echo' } } } });
    await apply(`${net}/workloadentries`, { apiVersion: 'networking.mesh.io/v1', kind: 'WorkloadEntry', metadata: { name: 'echo-1' }, spec: { address: '127.0.0.1', ports: { grpc: port }, labels: { app: 'echo' }, serviceAccount: 'echo' } });
    await apply(`${net}/destinationrules`, { apiVersion: 'networking.mesh.io/v1', kind: 'DestinationRule', metadata: { name: 'echo' }, spec: { host, trafficPolicy: { tls: { mode: 'MESH_MUTUAL' } } } });
    await apply(`/apis/security.mesh.io/v1/namespaces/${ns}/peerauthentications`, { apiVersion: 'security.mesh.io/v1', kind: 'PeerAuthentication', metadata: { name: 'default' }, spec: { mtls: { mode: 'STRICT' } } });

    // NOTE: meshd's watches may be throttled (429) and retried, so it can see the config a second late. A
    // grpc-js-xds 1.14.1 XdsServer whose listener goes from plaintext (PERMISSIVE) to mTLS throws an uncaught
    // TypeError in its listener comparison (server-listener.js), so the server starts after meshd holds all four.
    await until(async () => {
      const held = await meshd.debug<{ kind: string; metadata: { namespace: string } }[]>('/debug/configz');
      return held.filter((c) => c.metadata.namespace === ns).length === 4;
    }, 'meshd holding the ServiceEntry, WorkloadEntry, DestinationRule and PeerAuthentication', 60_000);

    const serverAgent = await startAgent('echo', 'echo-1', '127.0.0.1');
    const clientAgent = await startAgent('client', 'client-1', '127.0.0.2');
    const serverBootstrap = await bootstrapOf(serverAgent);
    const clientBootstrap = await bootstrapOf(clientAgent);

    const server = new xds.XdsServer({ 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': serverBootstrap } as grpc.ServerOptions);
    server.addService(ECHO_SERVICE, { Call: (_c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from('echo-1')) });
    await new Promise<void>((res, rej) => server.bindAsync(`127.0.0.1:${port}`, new xds.XdsServerCredentials(grpc.ServerCredentials.createInsecure()), (e) => (e ? rej(e) : res())));
    closers.push(() => new Promise<void>((res) => server.tryShutdown(() => res())));

    const secure = new grpc.Client(`xds:///${host}:50051`, new xds.XdsChannelCredentials(grpc.credentials.createInsecure()), { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': clientBootstrap });
    closers.push(() => secure.close());
    await until(async () => (await callOnce(secure)).ok, `an mTLS call (server agent: ${serverAgent.output.slice(-800)}; client agent: ${clientAgent.output.slice(-800)})`, 60_000);

    const plain = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    closers.push(() => plain.close());
    assert.equal((await callOnce(plain, undefined, 2000)).ok, false, 'a plaintext client is refused by the STRICT listener');

    for (const a of agents) a.child.kill('SIGTERM');
    for (const a of agents) assert.equal(await a.exited, 0, a.output.slice(-1500));
  });
});
