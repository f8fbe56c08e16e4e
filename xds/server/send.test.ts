import assert from 'node:assert/strict';
import { Connection } from './connection.js';
import { SendError, writeWithTimeout, type AdsCall } from './send.js';
import { EncodedResponse } from './wire.js';

/**
 * A stand-in for a grpc-js server call whose writes never complete: grpc-js drops a write's callback once the
 * call is cancelled, and a proxy that reads nothing never lets a large write finish.
 */
function callThatNeverFlushes(): { call: AdsCall; writes: number } {
  const state = { writes: 0 };
  const call = {
    writableLength: 0,
    writableEnded: false,
    destroyed: false,
    write: (): boolean => {
      state.writes++;
      return false;
    },
  };
  return {
    call: call as unknown as AdsCall,
    get writes() {
      return state.writes;
    },
  };
}

/** A response over the size that resolves before its flush, so the write waits for its callback. */
const LARGE = new EncodedResponse([{ length: 128 * 1024, fill: () => undefined }]);

function connection(): Connection {
  return new Connection('c1', { id: 'sidecar~10.0.0.1~a.ns~ns.svc.cluster.local', metadata: {} } as never, undefined, '127.0.0.1:1', 'delta');
}

describe('writeWithTimeout (send.ts)', () => {
  it('given a write that never completes should end the wait when the connection closes, settling once', async () => {
    const conn = connection();
    const fake = callThatNeverFlushes();
    let settled = 0;
    const wait = writeWithTimeout(fake.call, LARGE, 0, undefined, { onSettled: () => settled++, close: conn });
    assert.equal(fake.writes, 1);
    assert.equal(settled, 0, 'nothing settles before the close');
    conn.closed = true;
    await assert.rejects(wait, (e: unknown) => e instanceof SendError && /connection closed/.test(e.message));
    assert.equal(settled, 1);
    conn.closed = true;
    assert.equal(settled, 1, 'a second close settles nothing again');
  });

  it('given a connection already closed should refuse the write without writing', async () => {
    const conn = connection();
    conn.closed = true;
    const fake = callThatNeverFlushes();
    let settled = 0;
    await assert.rejects(writeWithTimeout(fake.call, LARGE, 0, undefined, { onSettled: () => settled++, close: conn }), SendError);
    assert.equal(fake.writes, 0);
    assert.equal(settled, 1);
  });

  it('given a send timeout should reject with it and stop listening for the close', async () => {
    const conn = connection();
    const fake = callThatNeverFlushes();
    let settled = 0;
    await assert.rejects(writeWithTimeout(fake.call, LARGE, 20, undefined, { onSettled: () => settled++, close: conn }), /timed out after 20ms/);
    conn.closed = true;
    assert.equal(settled, 1, 'the close after the timeout settles nothing again');
  });
});
