/**
 * Sidecar ingress TLS end to end between meshd and pilot-agent: meshd (in process, ENABLE_TLS_ON_SIDECAR_INGRESS)
 * sends a sidecar over real gRPC ADS a virtualInbound whose TLS chain names its certificates by SDS
 * names; the agent's real SDS server (Unix socket, file secrets) is asked for exactly those names, as
 * Envoy would, and serves the certificate, key and CA read from the files the Sidecar points at.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { FileSecrets, SdsServer, SecretCache } from '../agent/index.js';
import { openSdsStream, type SdsStream } from '../agent/testing/sds-client.js';
import { createMetrics } from '../core/index.js';
import { decode, protoRoot, TYPE_URL, typeNameOf } from '../xds/index.js';
import { MeshHarness } from '../xds/generators/testing/mesh-harness.js';
import { AdsClient } from '../xds/testing/ads-client.js';
import { waitFor } from './harness/index.js';

type Obj = Record<string, unknown>;
const logger = pino({ level: 'silent' });

/** The SDS secret names under an object (objects with `name` and `sdsConfig`). */
function sdsNames(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) sdsNames(x, out);
  else if (v && typeof v === 'object') {
    const o = v as Obj;
    if (typeof o['name'] === 'string' && o['sdsConfig'] !== undefined) out.push(o['name']);
    for (const x of Object.values(o)) sdsNames(x, out);
  }
  return out;
}

describe('e2e: Sidecar ingress TLS certificates named by meshd are served by the agent over SDS', function () {
  this.timeout(60_000);
  let dir: string;
  let h: MeshHarness | undefined;
  let client: AdsClient | undefined;
  let sds: SdsServer | undefined;
  let cache: SecretCache | undefined;
  let files: FileSecrets | undefined;
  let stream: SdsStream | undefined;

  before(() => protoRoot());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mesh-ingress-tls-'))));
  afterEach(async () => {
    stream?.close();
    client?.close();
    await h?.close();
    await sds?.close();
    cache?.close();
    files?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('given tls MUTUAL with file paths on a DISABLE port, every SDS name of the chain should be served with the files\' contents', async () => {
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    const ca = join(dir, 'ca.crt');
    writeFileSync(cert, 'CHAIN');
    writeFileSync(key, 'KEY');
    writeFileSync(ca, 'CA');
    h = await MeshHarness.start({ tlsOnSidecarIngress: true });
    h.apply(`apiVersion: networking.mesh.io/v1
kind: Sidecar
metadata: { name: app, namespace: shop }
spec:
  workloadSelector: { labels: { app: cart } }
  ingress:
  - port: { number: 8443, protocol: HTTPS, name: https }
    defaultEndpoint: 127.0.0.1:8080
    tls: { mode: MUTUAL, serverCertificate: ${cert}, privateKey: ${key}, caCertificates: ${ca} }
---
apiVersion: security.mesh.io/v1
kind: PeerAuthentication
metadata: { name: cart, namespace: shop }
spec: { selector: { matchLabels: { app: cart } }, mtls: { mode: STRICT }, portLevelMtls: { 8443: { mode: DISABLE } } }
`);
    client = new AdsClient({ address: h.xdsAddress, node: { id: 'sidecar~10.1.0.1~cart-0.shop~shop.svc.cluster.local', metadata: { NAMESPACE: 'shop', LABELS: { app: 'cart' } } }, autoAck: true });
    client.subscribe(TYPE_URL.listener);
    const chain = await waitFor('virtualInbound with the TLS chain of 8443', async () => {
      const r = client!.latest(TYPE_URL.listener);
      const vi = r?.resources.map((x) => decode(typeNameOf(r.typeUrl), x.body) as Obj).find((l) => l['name'] === 'virtualInbound');
      return ((vi?.['filterChains'] as Obj[] | undefined) ?? []).find((c) => c['name'] === 'inbound|8443||-tls');
    }, 20_000, 50);
    const names = sdsNames(chain['transportSocket']);
    assert.deepEqual(names, [`file-cert:${cert}~${key}`, `file-root:${ca}`]);

    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    cache = new SecretCache({ provider: { name: 'never', issue: () => new Promise(() => undefined), close: () => undefined }, gracePeriodRatio: 0.5, logger, metrics });
    files = new FileSecrets({ logger, metrics });
    sds = await SdsServer.start(join(dir, 'sds.sock'), cache, logger, files);
    stream = openSdsStream(sds.socketPath);
    stream.request(names);
    await waitFor('the secrets', async () => stream!.responses.length > 0, 10_000, 20);
    const served = stream.responses[0]!.secrets;
    assert.deepEqual(Object.keys(served).sort(), [...names].sort());
    const text = (b: unknown): string => Buffer.from(b as string, 'base64').toString();
    const tc = served[names[0]!]!['tlsCertificate'] as { certificateChain: { inlineBytes: string }; privateKey: { inlineBytes: string } };
    assert.deepEqual([text(tc.certificateChain.inlineBytes), text(tc.privateKey.inlineBytes)], ['CHAIN', 'KEY']);
    const vc = served[names[1]!]!['validationContext'] as { trustedCa: { inlineBytes: string } };
    assert.equal(text(vc.trustedCa.inlineBytes), 'CA');
  });
});
