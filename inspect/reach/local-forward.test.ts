import assert from 'node:assert/strict';
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { directDialer } from './pod-dialer.js';
import { forwardLocalPort } from './local-forward.js';
import { ReachError } from './reach-error.js';

describe('forwardLocalPort', () => {
  // NOTE: a local echo server stands in for the pod's port; the direct dialer maps pod p.ns to it.
  let echo: Server;
  before(async () => {
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await new Promise<void>((r) => echo.close(() => r()));
  });
  const dial = directDialer((pod) => (pod.name === 'p' ? { host: '127.0.0.1', port: (echo.address() as AddressInfo).port } : undefined));

  const roundTrip = (port: number, text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port }, () => s.end(text));
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString()));
      s.on('close', () => resolve(got));
      s.on('error', reject);
    });

  it('given port 0 should pick a port and pipe each connection to the pod', async () => {
    const f = await forwardLocalPort(dial, { namespace: 'ns', name: 'p' }, 80, { address: '127.0.0.1', port: 0 });
    try {
      assert.notEqual(f.port, 0);
      assert.deepEqual(await Promise.all([roundTrip(f.port, 'one'), roundTrip(f.port, 'two')]), ['one', 'two']);
    } finally {
      await f.close();
    }
  });
  it('given a pod the dialer cannot reach should report the dial error and close the connection', async () => {
    const f = await forwardLocalPort(dial, { namespace: 'ns', name: 'other' }, 80, { address: '127.0.0.1', port: 0 });
    const errors: string[] = [];
    f.onDialError((e) => errors.push(e.message));
    try {
      assert.equal(await roundTrip(f.port, 'x'), '');
      assert.deepEqual(errors, ['cannot reach pod other.ns port 80: no address known for it']);
    } finally {
      await f.close();
    }
  });
  it('given a port in use should fail naming the address and port', async () => {
    const taken = (echo.address() as AddressInfo).port;
    await assert.rejects(forwardLocalPort(dial, { namespace: 'ns', name: 'p' }, 80, { address: '127.0.0.1', port: taken }), (e: unknown) => e instanceof ReachError && e.message.startsWith(`cannot listen on 127.0.0.1 port ${taken}: 127.0.0.1: `));
  });
});
