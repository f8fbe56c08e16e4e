// Real DNS: node's resolver (c-ares) and raw TCP queries against the agent's DNS proxy on 127.0.0.1,
// with a scripted upstream DNS server on 127.0.0.1 standing in for the cluster's resolver.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { connect, type AddressInfo } from 'node:net';
import pino from 'pino';
import { createMetrics, type Metrics } from '../../core/index.js';
import { freePort } from '../testing/free-port.js';
import { buildAnswer, parseQuery } from './dns-message.js';
import { DnsProxy } from './dns-proxy.js';

const logger = pino({ level: 'silent' });

/** An upstream that answers A queries for names it knows; counts what it was asked. */
async function upstream(names: Record<string, string>): Promise<{ socket: Socket; address: string; asked: string[] }> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (msg, from) => {
    const q = parseQuery(msg);
    asked.push(q.name);
    const ip = names[q.name];
    socket.send(buildAnswer(msg, q, ip ? [ip] : [], ip ? 0 : 3), from.port, from.address);
  });
  await new Promise<void>((res) => socket.bind(0, '127.0.0.1', res));
  return { socket, address: `127.0.0.1:${(socket.address() as AddressInfo).port}`, asked };
}

function tcpQuery(port: number, name: string): Promise<Buffer> {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const q = Buffer.concat([Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(q.length);
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(Buffer.concat([len, q])));
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        s.end();
        resolve(buf.subarray(2));
      }
    });
    s.on('error', reject);
  });
}

describe('DnsProxy', () => {
  let up: Awaited<ReturnType<typeof upstream>>;
  let proxy: DnsProxy | undefined;
  let metrics: Metrics;
  let resolver: Resolver;
  let port: number;
  before(async () => (up = await upstream({ 'example.org': '192.0.2.10' })));
  after(() => up.socket.close());
  beforeEach(async () => {
    metrics = createMetrics('pilot-agent', { processMetrics: false });
    port = await freePort();
    resolver = new Resolver({ timeout: 3000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it('given a mesh name in the table should answer A and AAAA from it without asking upstream', async () => {
    proxy = await DnsProxy.start({ host: '127.0.0.1', port, upstreams: [up.address], parallel: false, metrics, logger });
    proxy.setNameTable(new Map([['reviews.default.svc.cluster.local', ['10.96.1.2', 'fd00::1:2']]]));
    const asked = up.asked.length;
    assert.deepEqual(await resolver.resolve4('reviews.default.svc.cluster.local'), ['10.96.1.2']);
    assert.deepEqual(await resolver.resolve6('reviews.default.svc.cluster.local'), ['fd00::1:2']);
    assert.equal(up.asked.length, asked);
    const text = await metrics.text();
    assert.match(text, /^dns_requests_total\{request_type="A"\} 1$/m);
    assert.match(text, /^dns_requests_total\{request_type="AAAA"\} 1$/m);
    assert.doesNotMatch(text, /^dns_upstream_requests_total\{/m);
  });

  it('given another name should forward it upstream and relay the answer, over UDP and TCP', async () => {
    proxy = await DnsProxy.start({ host: '127.0.0.1', port, upstreams: [up.address], parallel: false, metrics, logger });
    assert.deepEqual(await resolver.resolve4('example.org'), ['192.0.2.10']);
    const tcp = await tcpQuery(port, 'example.org');
    assert.equal(tcp.readUInt16BE(0), 0x1234);
    assert.equal(tcp.readUInt16BE(6), 1, 'one answer');
    assert.deepEqual([...tcp.subarray(tcp.length - 4)], [192, 0, 2, 10]);
    await assert.rejects(resolver.resolve4('nope.example.org'), { code: 'ENOTFOUND' });
    const text = await metrics.text();
    assert.match(text, /^dns_upstream_requests_total\{request_type="A"\} 3$/m);
    assert.match(text, /^dns_upstream_request_duration_seconds_count 3$/m);
  });

  it('given no upstream answering should return SERVFAIL and count the failure', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    proxy = await DnsProxy.start({ host: '127.0.0.1', port, upstreams: [dead], parallel: false, timeoutMs: 200, metrics, logger });
    await assert.rejects(resolver.resolve4('example.org'), { code: 'ESERVFAIL' });
    assert.match(await metrics.text(), /^dns_upstream_failures_total\{request_type="A"\} 1$/m);
  });

  for (const parallel of [false, true]) {
    it(`given a dead first upstream and DNS_FORWARD_PARALLEL=${parallel} should still answer from the second`, async () => {
      const dead = `127.0.0.1:${await freePort()}`;
      proxy = await DnsProxy.start({ host: '127.0.0.1', port, upstreams: [dead, up.address], parallel, timeoutMs: 300, metrics, logger });
      assert.deepEqual(await resolver.resolve4('example.org'), ['192.0.2.10']);
    });
  }
});
