/**
 * DNS capture end to end, without the API server: meshd (MeshHarness, files) serves the name table, the
 * agent's xDS proxy asks for it on the proxy's stream and keeps it from the proxy, and the agent's DNS
 * proxy answers a real DNS query for a mesh host from it (short forms included). The downstream ADS client
 * stands in for Envoy.
 */
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createMetrics } from '../core/index.js';
import { dnsNameTable, DnsProxy, XdsProxy, type NameInfo } from '../agent/index.js';
import { freePort } from '../xds/testing/free-port.js';
import { TYPE_URL } from '../xds/server/contracts.js';
import { AdsClient } from '../xds/testing/ads-client.js';
import { MeshHarness } from '../xds/generators/testing/mesh-harness.js';

const MESH = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: api, namespace: default }
spec: { hosts: [api.example.com], addresses: [240.0.0.1], ports: [{ number: 443, name: tls, protocol: TLS }], resolution: DNS }
---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: "orch:reviews", namespace: default }
spec: { hosts: [reviews.default.svc.cluster.local], addresses: [10.96.0.10], ports: [{ number: 9080, name: http, protocol: HTTP }], resolution: STATIC, location: MESH_INTERNAL }
`;

async function until(what: string, probe: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('e2e: DNS capture with meshd\'s name table (NDS through the agent\'s xDS proxy to its DNS proxy)', function () {
  this.timeout(60_000);
  const closers: (() => unknown)[] = [];
  after(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it('given a mesh host, should answer its DNS query from the table meshd sent, and never pass the table to the proxy', async () => {
    const logger = pino({ level: 'silent' });
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    const h = await MeshHarness.start();
    closers.push(() => h.close());
    h.apply(MESH);
    const dnsPort = await freePort();
    const dns = await DnsProxy.start({ host: '127.0.0.1', port: dnsPort, upstreams: [], parallel: false, metrics, logger });
    closers.push(() => dns.close());
    const tables: Readonly<Record<string, NameInfo>>[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'e2e-nds-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const socketPath = join(dir, 'XDS');
    const xds = await XdsProxy.start({
      socketPath, upstream: { address: h.xdsAddress, credentials: grpc.credentials.createInsecure() }, metrics, logger,
      onNameTable: (t) => {
        tables.push(t);
        dns.setNameTable(dnsNameTable(t, 'default'));
      },
    });
    closers.push(() => xds.close());
    const envoy = new AdsClient({ address: `unix:${socketPath}`, node: { id: 'sidecar~10.0.0.1~productpage-1.default~default.svc.cluster.local', metadata: { NAMESPACE: 'default', DNS_CAPTURE: 'true' } }, autoAck: true });
    closers.push(() => envoy.close());
    envoy.subscribe(TYPE_URL.cluster);
    await envoy.waitFor('CDS through the agent', () => envoy.latest(TYPE_URL.cluster));
    const resolver = new Resolver({ timeout: 3000, tries: 1 });
    resolver.setServers([`127.0.0.1:${dnsPort}`]);
    const answer = async (name: string): Promise<string[]> => resolver.resolve4(name).catch(() => []);
    await until('the name table at the DNS proxy', async () => (await answer('api.example.com')).join() === '240.0.0.1');
    assert.deepEqual(await answer('reviews.default.svc.cluster.local'), ['10.96.0.10']);
    assert.deepEqual(await answer('reviews'), ['10.96.0.10'], 'the short name in the proxy\'s namespace');
    assert.deepEqual(await answer('reviews.default.svc'), ['10.96.0.10']);
    assert.equal(envoy.latest(TYPE_URL.nameTable), undefined, 'the proxy never sees the name table');

    h.apply(`${MESH}---
apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: db, namespace: default }
spec: { hosts: [db.example.com], addresses: [240.0.0.5], ports: [{ number: 5432, name: tcp, protocol: TCP }], resolution: STATIC, endpoints: [{ address: 10.2.0.1 }] }
`);
    await until('the new host answered', async () => (await answer('db.example.com')).join() === '240.0.0.5');
    assert.ok(tables.length >= 2);
    // The proxy going away is a data-plane termination, not meshd's.
    envoy.close();
    await until('the proxy stream counted as terminated', async () => /^dataplane_connection_terminations 1$/m.test(await metrics.text()));
    assert.match(await metrics.text(), /^meshd_connection_terminations 0$/m);
  });
});
