import assert from 'node:assert/strict';
import { WaitAborted, waitFor } from './wait-for.js';

describe('e2e harness waitFor', () => {
  it('given a check that throws WaitAborted should rethrow it at once, not poll to the deadline', async () => {
    let calls = 0;
    await assert.rejects(
      waitFor('a process that exited', () => {
        calls++;
        throw new WaitAborted('meshd exited (1): address already in use');
      }, 60_000),
      (e: unknown) => e instanceof WaitAborted && e.message.includes('address already in use'),
    );
    assert.equal(calls, 1, 'one check: no polling after the abort');
  });

  it('given a check that throws another error should keep polling and name that error at the deadline', async () => {
    let calls = 0;
    await assert.rejects(
      waitFor('a port', () => {
        calls++;
        throw new Error('connect ECONNREFUSED');
      }, 250, 10),
      /timed out after 250 ms waiting for a port \(last error: connect ECONNREFUSED\)/,
    );
    assert.ok(calls > 1, `polled ${calls} times`);
  });
});
