// Per-thread CPU from /proc: time spent computing on the main thread and on a worker lands under their names.
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { readThreadCpu, threadCpuSince } from './thread-cpu.js';

const spin = (ms: number): void => {
  for (const end = performance.now() + ms; performance.now() < end;);
};

describe('bench:ca thread CPU', () => {
  before(function () {
    if (process.platform !== 'linux') this.skip(); // reads /proc; the bench prints no thread line elsewhere
  });

  it('given 80 ms of work on the main thread and on a worker should count each under its thread name', async () => {
    const worker = new Worker('const { parentPort } = require("node:worker_threads"); parentPort.once("message", (ms) => { for (const end = performance.now() + ms; performance.now() < end;); parentPort.postMessage("done"); });', { eval: true });
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const start = readThreadCpu();
      const done = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage(80);
      spin(80);
      await done;
      const used = threadCpuSince(start)!;
      assert.ok((used.MainThread ?? 0) >= 0.05, `MainThread: ${used.MainThread} s`);
      assert.ok((used.WorkerThread ?? 0) >= 0.05, `WorkerThread: ${used.WorkerThread} s`);
      assert.ok((used.MainThread ?? 0) < 5, `MainThread: ${used.MainThread} s`);
    } finally {
      await worker.terminate();
    }
  });
});
