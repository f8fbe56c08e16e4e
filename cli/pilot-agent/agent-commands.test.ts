import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bufferIo, runCli } from '../framework/index.js';
import { freePorts } from '../testing/program-process.js';
import { pilotAgentCommand } from './pilot-agent-command.js';

/** A local HTTP server whose answers a test scripts; records what it was asked. */
async function scriptedServer(answer: (n: number, method: string, url: string, body: string) => [number, string]): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`.trim());
      const [status, text] = answer(seen.length, req.method ?? '', req.url ?? '', body);
      res.writeHead(status).end(text);
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

async function agent(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo();
  const code = await runCli(pilotAgentCommand(), argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('pilot-agent', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((res) => server!.close(res));
    server = undefined;
  });

  describe('wait', () => {
    it('given a URL that becomes ready on the third poll should succeed', async () => {
      const s = await scriptedServer((n) => (n < 3 ? [503, 'not yet'] : [200, 'ok']));
      server = s.server;
      const r = await agent(['wait', `--url=http://127.0.0.1:${s.port}/healthz/ready`, '--periodMillis=10', '--timeoutSeconds=30']);
      assert.equal(r.code, 0, r.err);
      assert.equal(s.seen.length, 3);
      assert.match(r.out, /Not ready yet: HTTP status code 503\n.*\nThe proxy is ready!\n$/s);
    });

    it('given a URL that never becomes ready should give up with the last error and exit 1', async () => {
      const [port] = await freePorts(1);
      const r = await agent(['wait', `--url=http://127.0.0.1:${port}/healthz/ready`, '--periodMillis=200', '--timeoutSeconds=1']);
      assert.equal(r.code, 1);
      assert.match(r.err, new RegExp(`^Error: timeout waiting for the proxy to become ready at http://127\\.0\\.0\\.1:${port}/healthz/ready\\. Last error: .*ECONNREFUSED`));
    });

    it('given a bad --url should name the flag', async () => {
      const r = await agent(['wait', '--url=not a url']);
      assert.equal(r.code, 1);
      assert.equal(r.err, 'Error: --url: "not a url" is not a URL\n');
    });
  });

  describe('request', () => {
    it('given a method, path and body should send them to --debug-port and print the answer', async () => {
      const s = await scriptedServer(() => [200, 'stats here']);
      server = s.server;
      const r = await agent(['request', 'post', '/logging?level=debug', 'payload', '--debug-port', String(s.port)]);
      assert.deepEqual(r, { code: 0, out: 'stats here\n', err: '' });
      assert.deepEqual(s.seen, ['POST /logging?level=debug payload']);
    });

    it('given an HTTP error status should print the body and exit 1 naming the status', async () => {
      const s = await scriptedServer(() => [404, 'no such page']);
      server = s.server;
      const r = await agent(['request', 'GET', 'nope', `--debug-port=${s.port}`]);
      assert.equal(r.code, 1);
      assert.equal(r.out, 'no such page\n');
      assert.equal(r.err, 'Error: GET nope: HTTP 404\n');
    });

    it('given nothing listening should say the connection was refused', async () => {
      const [port] = await freePorts(1);
      const r = await agent(['request', 'GET', '/stats', `--debug-port=${port}`]);
      assert.equal(r.code, 1);
      assert.match(r.err, /^Error: GET http:\/\/localhost:\d+\/stats: connection refused/);
    });

    it('given a missing path should print the usage', async () => {
      const r = await agent(['request', 'GET']);
      assert.equal(r.code, 1);
      assert.match(r.err, /^Error: requires at least 2 arg\(s\), only received 1\nUsage:\n {2}pilot-agent request <method> <path> \[<body>\] \[flags\]/);
    });
  });

  it('given proxy with a proxy binary that does not exist should exit 1 naming it and write nothing', async () => {
    const io = bufferIo({ PROXY_CONFIG: '{"binaryPath": "/nonexistent/dataplane", "configPath": "/nonexistent/proxy"}' });
    const code = await runCli(pilotAgentCommand(), ['proxy'], io);
    assert.deepEqual({ code, err: io.err() }, { code: 1, err: 'Error: the proxy binary /nonexistent/dataplane (ProxyConfig binaryPath) does not exist or is not executable\n' });
  });

});
