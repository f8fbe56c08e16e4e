// Proxyless gRPC (DISABLE_DATAPLANE + MESH_META_GENERATOR=grpc): the real `bin/pilot-agent proxy` with
// meshd's CA and a scripted ADS service (agent/testing/test-mesh-ca.ts). The written bootstrap is checked
// by @grpc/grpc-js-xds's own validator and used by a real grpc-js-xds client, whose ADS stream must
// reach meshd through the agent's XDS socket.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CERT_FILES } from '../../agent/index.js';
import { waitFor } from '../../agent/testing/stand-in-proxy-binary.js';
import { startTestMeshCa, type TestMeshCa } from '../../agent/testing/test-mesh-ca.js';
import { SERVER_LISTENER_TEMPLATE } from '../../xds/index.js';
import { freePorts, programEnv, REPO_ROOT, waitForHttp, type ProgramProcess } from '../testing/program-process.js';

const require = createRequire(import.meta.url);
const { validateBootstrapConfig } = require('@grpc/grpc-js-xds/build/src/xds-bootstrap.js') as { validateBootstrapConfig: (o: unknown) => unknown };

describe('pilot-agent proxy, proxyless gRPC (grpc-agent mode)', () => {
  let ca: TestMeshCa;
  let dir: string;
  let agent: ProgramProcess | undefined;
  before(async () => (ca = await startTestMeshCa()));
  after(async () => ca.close());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agent-grpc-'))));
  afterEach(async () => {
    if (agent && agent.child.exitCode === null && agent.child.signalCode === null) {
      agent.child.kill('SIGKILL');
      await agent.exited;
    }
    agent = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('given a token should write a bootstrap grpc-js-xds accepts, keep rotated certificates in files, and carry the client ADS stream to meshd', async () => {
    const [statusPort] = await freePorts(1);
    writeFileSync(join(dir, 'root-cert.pem'), ca.rootCertPem);
    mkdirSync(join(dir, 'var/run/secrets/tokens'), { recursive: true });
    writeFileSync(join(dir, 'var/run/secrets/tokens/mesh-token'), ca.token('shop', 'cart'));
    const address = ca.address.replace('127.0.0.1', 'localhost');
    const env = programEnv({
      PROXY_CONFIG: JSON.stringify({ configPath: join(dir, 'etc/mesh/proxy'), statusPort, discoveryAddress: address }),
      DISABLE_DATAPLANE: 'true', MESH_META_GENERATOR: 'grpc', MESH_META_INSTANCE_IPS: '10.9.8.7', POD_NAME: 'cart-1', POD_NAMESPACE: 'shop', SERVICE_ACCOUNT: 'cart',
      CA_ADDR: address, CA_ROOT_CA: join(dir, 'root-cert.pem'), XDS_ROOT_CA: join(dir, 'root-cert.pem'), ECC_SIGNATURE_ALGORITHM: 'ECDSA', SECRET_TTL: '4s',
    });
    const child = spawn(join(REPO_ROOT, 'bin/pilot-agent'), ['proxy', 'sidecar'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    agent = { child, stdout: () => '', stderr: () => err, exited: new Promise((res) => child.on('close', (code, sig) => res(code ?? sig ?? 'unknown'))) };
    await waitForHttp(`http://127.0.0.1:${statusPort}/healthz/ready`, agent, 20_000);

    // The bootstrap, as grpc-js-xds validates it.
    const bootstrapPath = join(dir, 'etc/mesh/proxy/grpc-bootstrap.json');
    const bootstrap = JSON.parse(readFileSync(bootstrapPath, 'utf8')) as { node: { id: string }; server_listener_resource_name_template: string; xds_servers: { server_uri: string }[] };
    validateBootstrapConfig(bootstrap);
    assert.equal(bootstrap.node.id, 'sidecar~10.9.8.7~cart-1.shop~shop.svc.cluster.local');
    assert.equal(bootstrap.server_listener_resource_name_template, SERVER_LISTENER_TEMPLATE);
    assert.equal(bootstrap.xds_servers[0]!.server_uri, `unix://${join(dir, 'etc/mesh/proxy/XDS')}`);

    // The certificate files: a leaf for the pod's identity, its key, the root; rewritten on rotation.
    const certDir = join(dir, 'var/lib/mesh/data');
    const leafOf = (): X509Certificate => new X509Certificate(readFileSync(join(certDir, CERT_FILES.chain)));
    const first = leafOf();
    assert.equal(first.subjectAltName, 'URI:spiffe://cluster.local/ns/shop/sa/cart');
    assert.ok(first.checkPrivateKey(createPrivateKey(readFileSync(join(certDir, CERT_FILES.key)))));
    assert.ok(first.verify(new X509Certificate(readFileSync(join(certDir, CERT_FILES.root))).publicKey));
    // NOTE: the chain and key files are replaced one after the other (each atomically), and SECRET_TTL 4s
    // rotates often: a reader may see a new chain beside the old key for a moment, so wait for a matching pair.
    const rotatedPair = (): boolean => {
      const leaf = leafOf();
      return leaf.serialNumber !== first.serialNumber && leaf.checkPrivateKey(createPrivateKey(readFileSync(join(certDir, CERT_FILES.key))));
    };
    await waitFor(() => existsSync(join(certDir, CERT_FILES.chain)) && rotatedPair(), 'the rotated certificate and its key in the files', 15_000);

    // A real grpc-js-xds client with only this bootstrap: its ADS stream reaches meshd through the agent.
    const streamsBefore = ca.adsStreams.length;
    // NOTE: spawned, not spawnSync: meshd (the test CA) runs in this process and must keep serving.
    const probe = spawn(process.execPath, [join(REPO_ROOT, 'dist/agent/testing/xds-client-probe.js'), 'reviews.shop.svc.cluster.local:9080', '1500'], {
      env: { ...process.env, GRPC_XDS_BOOTSTRAP: bootstrapPath },
      stdio: 'ignore',
    });
    assert.equal(await new Promise((res) => probe.on('exit', res)), 0);
    const streams = ca.adsStreams.slice(streamsBefore);
    assert.ok(streams.length >= 1, 'an ADS stream reached meshd');
    assert.equal(streams[0]!.nodeId, bootstrap.node.id);
    assert.equal(streams[0]!.authorization, `Bearer ${readFileSync(join(dir, 'var/run/secrets/tokens/mesh-token'), 'utf8')}`);
    assert.equal(streams[0]!.requests[0]!.typeUrl, 'type.googleapis.com/envoy.config.listener.v3.Listener');

    child.kill('SIGTERM');
    assert.equal(await agent.exited, 0, err);
  });
});
