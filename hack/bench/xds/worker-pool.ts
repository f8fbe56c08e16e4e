/** The client worker threads seen from the main thread: start, broadcast a command, wait for each worker's answer. */
import { Worker } from 'node:worker_threads';
import type { ClientSpec } from './bench-client.js';
import type { WorkerCommand, WorkerEvent, WorkerInit, WorkerStats } from './client-worker.js';

type EventName = WorkerEvent['ev'];
type EventOf<N extends EventName> = Extract<WorkerEvent, { ev: N }>;

class WorkerHandle {
  readonly worker: Worker;
  readonly #queue: WorkerEvent[] = [];
  readonly #waiters: (() => void)[] = [];
  error: Error | undefined;

  constructor(init: WorkerInit) {
    this.worker = new Worker(new URL('./client-worker.js', import.meta.url), { workerData: init });
    this.worker.on('message', (e: WorkerEvent) => {
      this.#queue.push(e);
      this.#wake();
    });
    this.worker.on('error', (e) => {
      this.error = e;
      this.#wake();
    });
    this.worker.on('exit', (code) => {
      this.error ??= new Error(`client worker exited with code ${code}`);
      this.#wake();
    });
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** The next event named `ev` (earlier events of other names stay queued). */
  next<N extends EventName>(ev: N, deadline: number): Promise<EventOf<N> | undefined> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        const i = this.#queue.findIndex((e) => e.ev === ev);
        if (i >= 0) {
          clearTimeout(timer);
          resolve(this.#queue.splice(i, 1)[0] as EventOf<N>);
          return;
        }
        if (this.error) {
          clearTimeout(timer);
          reject(this.error);
          return;
        }
        this.#waiters.push(attempt);
      };
      const timer = setTimeout(() => {
        const k = this.#waiters.indexOf(attempt);
        if (k >= 0) this.#waiters.splice(k, 1);
        resolve(undefined);
      }, Math.max(0, deadline - Date.now()));
      attempt();
    });
  }
}

/** Runs the clients in `workers` threads (specs dealt round-robin). */
export class WorkerPool {
  readonly #handles: WorkerHandle[];

  constructor(address: string, specs: readonly ClientSpec[], workers: number, maxConnecting: number) {
    const shares: ClientSpec[][] = Array.from({ length: workers }, () => []);
    specs.forEach((s, i) => shares[i % workers]!.push(s));
    const perWorker = Math.max(1, Math.ceil(maxConnecting / workers));
    this.#handles = shares.map((share) => new WorkerHandle({ address, specs: share, maxConnecting: perWorker }));
  }

  /** Sends a command to every worker. */
  broadcast(cmd: WorkerCommand): void {
    for (const h of this.#handles) h.worker.postMessage(cmd);
  }

  /** Each worker's next `ev` event; `undefined` in the list for a worker that did not answer by the deadline. */
  async gather<N extends EventName>(ev: N, deadline: number): Promise<(EventOf<N> | undefined)[]> {
    return Promise.all(this.#handles.map((h) => h.next(ev, deadline)));
  }

  /** Broadcasts `cmd` and gathers `ev`, failing when a worker does not answer within `timeoutMs`. */
  async ask<N extends EventName>(cmd: WorkerCommand, ev: N, timeoutMs = 30_000): Promise<EventOf<N>[]> {
    this.broadcast(cmd);
    const all = await this.gather(ev, Date.now() + timeoutMs);
    if (all.some((e) => e === undefined)) throw new Error(`a client worker did not answer "${cmd.cmd}" with "${ev}" within ${timeoutMs} ms`);
    return all as EventOf<N>[];
  }

  /** Counter snapshots of every worker, merged. */
  async stats(): Promise<WorkerStats> {
    const all = await this.ask({ cmd: 'stats' }, 'stats');
    const byType: WorkerStats['byType'] = {};
    const endReasons: Record<string, number> = {};
    let lastResponseAt = 0;
    const loop = { active: 0, idle: 0 };
    let complete = 0;
    let ended = 0;
    let refused = 0;
    for (const { stats } of all) {
      for (const [t, c] of Object.entries(stats.byType)) {
        const m = (byType[t] ??= { bytes: 0, responses: 0, resources: 0 });
        m.bytes += c.bytes;
        m.responses += c.responses;
        m.resources += c.resources;
      }
      for (const [r, n] of Object.entries(stats.endReasons)) endReasons[r] = (endReasons[r] ?? 0) + n;
      lastResponseAt = Math.max(lastResponseAt, stats.lastResponseAt);
      loop.active += stats.loop.active;
      loop.idle += stats.loop.idle;
      complete += stats.complete;
      ended += stats.ended;
      refused += stats.refused;
    }
    return { byType, endReasons, lastResponseAt, loop, complete, ended, refused };
  }

  /** Closes every client and ends the threads. */
  async close(): Promise<void> {
    await Promise.all(
      this.#handles.map(async (h) => {
        if (!h.error) {
          h.worker.postMessage({ cmd: 'close' } satisfies WorkerCommand);
          await h.next('closed', Date.now() + 10_000).catch(() => undefined);
        }
        await h.worker.terminate();
      }),
    );
  }
}
