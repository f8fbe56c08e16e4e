// Per-thread CPU from /proc: time spent computing on the main thread and on a worker lands under their names.
// The work is a fixed PBKDF2 run (~50-100 ms of CPU here), not a wall-clock spin: on this VM a spin of
// 80 ms can get far less CPU when the hypervisor steals time.
import assert from 'node:assert/strict';
import { pbkdf2Sync } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { readThreadCpu, threadCpuSince } from './thread-cpu.js';

const ITERATIONS = 200_000;

describe('bench:ca thread CPU', () => {
  before(function () {
    if (process.platform !== 'linux') this.skip(); // reads /proc; the bench prints no thread line elsewhere
  });

  it('given the same work on the main thread and on a worker should count each under its thread name', async () => {
    // `on`, not `once`: the listener keeps the worker alive until the second snapshot (threads that ended are not counted).
    const worker = new Worker('const { parentPort } = require("node:worker_threads"); const { pbkdf2Sync } = require("node:crypto"); parentPort.on("message", (n) => { pbkdf2Sync("mesh", "salt", n, 32, "sha256"); parentPort.postMessage("done"); });', { eval: true });
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const start = readThreadCpu();
      const done = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage(ITERATIONS);
      pbkdf2Sync('mesh', 'salt', ITERATIONS, 32, 'sha256');
      await done;
      const used = threadCpuSince(start)!;
      assert.ok((used.MainThread ?? 0) >= 0.01, `MainThread: ${used.MainThread} s`);
      assert.ok((used.WorkerThread ?? 0) >= 0.01, `WorkerThread: ${used.WorkerThread} s`);
      assert.ok((used.MainThread ?? 0) < 5, `MainThread: ${used.MainThread} s`);
    } finally {
      await worker.terminate();
    }
  });
});
