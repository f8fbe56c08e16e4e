import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { bufferIo, runCli } from '../framework/index.js';
import { meshctlCommand } from './meshctl-command.js';
import { FIXTURE_KEY_BYTES, proxyDumpFixture, type ProxyDumpFixture } from './testing/proxy-dump-fixture.js';

describe('meshctl proxy-config -f (a config dump file from meshctl x translate)', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let fixture: ProxyDumpFixture;

  before(async () => {
    fixture = await proxyDumpFixture();
    dir = mkdtempSync(join(tmpdir(), 'pc-test-'));
    file = join(dir, 'productpage.json');
    writeFileSync(file, JSON.stringify(fixture.dump));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const pc = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const io = bufferIo({ TERM: 'dumb' });
    const code = await runCli(meshctlCommand(), ['proxy-config', ...args], io);
    return { code, out: io.out(), err: io.err() };
  };
  const lines = (text: string): string[][] => text.trimEnd().split('\n').map((l) => l.split(/\s{2,}/));

  const tables: { name: string; args: string[]; want: string[][] }[] = [
    {
      name: 'given cluster --fqdn reviews --subset v should list the subset clusters with their DestinationRule',
      args: ['cluster', '--fqdn', 'reviews', '--subset', 'v'],
      want: [
        ['SERVICE FQDN', 'PORT', 'SUBSET', 'DIRECTION', 'TYPE', 'DESTINATION RULE'],
        ['reviews.default.svc.cluster.local', '9080', 'v1', 'outbound', 'EDS', 'reviews.default'],
        ['reviews.default.svc.cluster.local', '9080', 'v2', 'outbound', 'EDS', 'reviews.default'],
        ['reviews.default.svc.cluster.local', '9080', 'v3', 'outbound', 'EDS', 'reviews.default'],
      ],
    },
    {
      name: 'given cluster --direction outbound --port 3306 should list the database cluster alone',
      args: ['clusters', '--direction', 'outbound', '--port', '3306'],
      want: [['SERVICE FQDN', 'PORT', 'SUBSET', 'DIRECTION', 'TYPE', 'DESTINATION RULE'], ['mysqldb.data.svc.cluster.local', '3306', '-', 'outbound', 'EDS']],
    },
    {
      name: 'given listener --port 15006 should describe each inbound filter chain match and destination',
      args: ['listener', '--port', '15006'],
      want: [
        ['ADDRESSES', 'PORT', 'MATCH', 'DESTINATION'],
        ['0.0.0.0', '15006', 'DstPort: 9080; Trans: tls; App: mesh-peer-exchange,mesh', 'Inline Route: inbound|9080||'],
        ['0.0.0.0', '15006', 'Trans: tls; App: mesh-peer-exchange,mesh', 'Cluster: InboundPassthroughCluster'],
      ],
    },
    {
      name: 'given listener --type TCP --verbose=false should list the TCP listeners by type',
      args: ['l', '--type', 'TCP', '--verbose=false'],
      want: [['ADDRESSES', 'PORT', 'TYPE'], ['10.96.0.30', '3306', 'TCP'], ['0.0.0.0', '15001', 'TCP']],
    },
    {
      name: 'given routes --name 9080 should show each route with its match and VirtualService',
      args: ['routes', '--name', '9080'],
      want: [
        ['NAME', 'VHOST NAME', 'DOMAINS', 'MATCH', 'VIRTUAL SERVICE'],
        ['9080', 'productpage.default.svc.cluster.local:9080', 'productpage', '/*'],
        ['9080', 'ratings.default.svc.cluster.local:9080', 'ratings', '/*'],
        ['9080', 'reviews.default.svc.cluster.local:9080', 'reviews', '/* (end-user=jason)', 'reviews.default'],
        ['9080', 'reviews.default.svc.cluster.local:9080', 'reviews', '/*', 'reviews.default'],
        ['9080', 'allow_any', '*', '/*'],
      ],
    },
    {
      name: 'given endpoint --cluster of the v2 subset should show its one endpoint',
      args: ['ep', '--cluster', 'outbound|9080|v2|reviews.default.svc.cluster.local'],
      want: [['ENDPOINT', 'STATUS', 'OUTLIER CHECK', 'CLUSTER'], ['10.0.1.2:9080', 'HEALTHY', 'OK', 'outbound|9080|v2|reviews.default.svc.cluster.local']],
    },
    {
      name: 'given endpoint --address --port should keep the matching endpoints',
      args: ['endpoints', '--address', '10.0.3.1', '--port', '3306'],
      want: [['ENDPOINT', 'STATUS', 'OUTLIER CHECK', 'CLUSTER'], ['10.0.3.1:3306', 'HEALTHY', 'OK', 'outbound|3306||mysqldb.data.svc.cluster.local']],
    },
  ];
  for (const c of tables) {
    it(c.name, async () => {
      const r = await pc(...c.args, '-f', file);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(lines(r.out), c.want);
    });
  }

  it('given secret should show serial, validity and trust domain, never key bytes', async () => {
    const r = await pc('secret', '-f', file);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(lines(r.out), [
      ['RESOURCE NAME', 'TYPE', 'STATUS', 'VALID CERT', 'SERIAL NUMBER', 'NOT AFTER', 'NOT BEFORE', 'TRUST DOMAIN'],
      ['default', 'Cert Chain', 'ACTIVE', 'true', fixture.serialHex, '2036-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'cluster.local'],
      ['ROOTCA', 'CA', 'ACTIVE', 'true', fixture.serialHex, '2036-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'cluster.local'],
    ]);
    for (const args of [['secret', '-o', 'json'], ['secret', '-o', 'yaml'], ['all', '-o', 'json']]) {
      const s = await pc(...args, '-f', file);
      assert.equal(s.code, 0, s.err);
      assert.ok(!s.out.includes(FIXTURE_KEY_BYTES), `${args.join(' ')} shows key bytes`);
      assert.ok(s.out.includes('[redacted]'), `${args.join(' ')} does not mark the key redacted`);
    }
  });

  it('given cluster -o json should print the filtered clusters as Envoy JSON, and -o yaml the same', async () => {
    const j = await pc('cluster', '--fqdn', 'ratings', '-o', 'json', '-f', file);
    const y = await pc('cluster', '--fqdn', 'ratings', '-o', 'yaml', '-f', file);
    const clusters = JSON.parse(j.out) as { name: string }[];
    assert.deepEqual(clusters.map((c) => c.name), ['outbound|9080||ratings.default.svc.cluster.local']);
    assert.deepEqual(parse(y.out), clusters);
  });

  it('given bootstrap should print the bootstrap section', async () => {
    const r = await pc('bootstrap', '-f', file, '-o', 'yaml');
    assert.equal(r.code, 0, r.err);
    assert.equal((parse(r.out) as { bootstrap: { node: { cluster: string } } }).bootstrap.node.cluster, 'productpage.default');
  });

  it('given all should print the cluster, listener, route, endpoint and secret tables', async () => {
    const r = await pc('all', '-f', file);
    assert.equal(r.code, 0, r.err);
    const headers = r.out.split('\n').filter((l) => /^(SERVICE FQDN|ADDRESSES|NAME|ENDPOINT|RESOURCE NAME)\s/.test(l)).map((l) => l.split(/\s{2,}/)[0]);
    assert.deepEqual(headers, ['SERVICE FQDN', 'ADDRESSES', 'NAME', 'ENDPOINT', 'RESOURCE NAME']);
  });

  const errors: { name: string; content: string | undefined; args: string[]; want: RegExp }[] = [
    { name: 'given a file that is not JSON should name the file', content: '{not json', args: ['cluster'], want: /bad\.json: not JSON: / },
    { name: 'given JSON that is not a config dump should say so', content: '{"x":1}', args: ['listener'], want: /bad\.json: not an Envoy config dump \(no "configs" list\)/ },
    { name: 'given a dump without bootstrap should say the section is missing', content: '{"configs":[]}', args: ['bootstrap'], want: /bad\.json: no bootstrap in the config dump/ },
    { name: 'given a missing file should name it', content: undefined, args: ['cluster'], want: /--file .*bad\.json: ENOENT/ },
    { name: 'given an unknown output format should name the flag', content: '{"configs":[]}', args: ['cluster', '-o', 'xml'], want: /--output: unknown format "xml"/ },
  ];
  for (const c of errors) {
    it(c.name, async () => {
      const bad = join(dir, 'bad.json');
      rmSync(bad, { force: true });
      if (c.content !== undefined) writeFileSync(bad, c.content);
      const r = await pc(...c.args, '-f', bad);
      assert.notEqual(r.code, 0);
      assert.match(r.err, c.want);
    });
  }
});
