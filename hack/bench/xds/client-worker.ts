/**
 * Worker thread that runs a share of the benchmark's ADS clients, so the client side has its own event
 * loop. It opens clients with at most `maxConnecting` connections being set up at a time (opening
 * thousands at once gets connections reset), reports when all are complete, watches for markers and
 * answers counter snapshots. Messages are `WorkerCommand` in and `WorkerEvent` out.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { protoRoot } from '../../../xds/index.js';
import { BenchClient, now, ReferenceCache, type ClientHooks, type ClientSpec } from './bench-client.js';
import { installPooledDecoder } from './pooled-decoder.js';

/** What the worker is started with. */
export interface WorkerInit {
  readonly address: string;
  readonly specs: readonly ClientSpec[];
  readonly maxConnecting: number;
}

/** Commands from the main thread. */
export type WorkerCommand =
  | { readonly cmd: 'start' }
  | { readonly cmd: 'watch'; readonly marker: string; readonly typeUrls: readonly string[] }
  | { readonly cmd: 'collect' }
  /** Report `all-complete` now with the clients complete so far (startup deadline passed). */
  | { readonly cmd: 'complete-now' }
  | { readonly cmd: 'stats' }
  /** The server is about to restart: track each client's reconnection (answered with `rearmed`). */
  | { readonly cmd: 'rearm' }
  /** Report `reconnected` now with the clients reconnected so far (deadline passed). */
  | { readonly cmd: 'reconnected-now' }
  | { readonly cmd: 'close' };

/** Event-loop time of a worker so far (ms busy and idle). */
export interface LoopTime {
  readonly active: number;
  readonly idle: number;
}

function loopTime(): LoopTime {
  const u = performance.eventLoopUtilization();
  return { active: u.active, idle: u.idle };
}

/** Counter snapshot of a worker. */
export interface WorkerStats {
  readonly byType: Record<string, { bytes: number; responses: number; resources: number }>;
  readonly lastResponseAt: number;
  /** Event-loop time of the worker(s) so far (ms busy and idle; summed over workers). */
  readonly loop: LoopTime;
  readonly complete: number;
  /** Streams that ended with an error (each reopened after a backoff). */
  readonly ended: number;
  /** Clients the server refused for good. */
  readonly refused: number;
  readonly endReasons: Record<string, number>;
}

/** Events to the main thread. */
export type WorkerEvent =
  | { readonly ev: 'ready' }
  | { readonly ev: 'all-complete'; readonly connectedAt: number[]; readonly completeAt: number[] }
  | { readonly ev: 'watching'; readonly marker: string; readonly loop: LoopTime }
  | { readonly ev: 'arrivals'; readonly marker: string; readonly times: number[]; readonly types: Record<string, number>; readonly missing: number; readonly loop: LoopTime }
  | { readonly ev: 'stats'; readonly stats: WorkerStats }
  | { readonly ev: 'rearmed' }
  /**
   * Every live client complete again on a new stream since `rearm` (or `reconnected-now`): per client that did,
   * its first response and its completion on the new stream; per client, the streams it opened since.
   */
  | { readonly ev: 'reconnected'; readonly reconnectedAt: number[]; readonly recompleteAt: number[]; readonly attempts: number[]; readonly missing: number }
  | { readonly ev: 'closed' };

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('client-worker must run as a worker thread');
  const init = workerData as WorkerInit;
  const post = (e: WorkerEvent): void => port.postMessage(e);
  protoRoot(); // NOTE: load the Envoy protos before the clock starts.
  if (!installPooledDecoder()) throw new Error('client-worker: grpc-js StreamDecoder.write is not where pooled-decoder.ts expects it');

  const clients: BenchClient[] = [];
  const refs = new ReferenceCache();
  let next = 0;
  let connecting = 0;
  let complete = 0;
  let ended = 0;
  let refused = 0;
  const endReasons: Record<string, number> = {};
  let lastResponseAt = 0;
  let watching: string | undefined;
  let arrived = 0;
  let reportedAll = false;
  /** While a restart is tracked: clients complete again, and whether `reconnected` was posted. */
  let recomplete = 0;
  let reconnectPending = false;
  const byType: Record<string, { bytes: number; responses: number; resources: number }> = {};

  const live = (): number => clients.length - refused;
  const maybeAllComplete = (force = false): void => {
    if (reportedAll || (!force && (next < init.specs.length || complete + refused < clients.length))) return;
    reportedAll = true;
    const done = clients.filter((c) => c.completeAt !== undefined);
    post({ ev: 'all-complete', connectedAt: done.map((c) => c.connectedAt!), completeAt: done.map((c) => c.completeAt!) });
  };
  const reportArrivals = (): void => {
    if (watching === undefined) return;
    const times: number[] = [];
    const types: Record<string, number> = {};
    for (const c of clients) {
      if (c.arrivedAt === undefined) continue;
      times.push(c.arrivedAt);
      types[c.arrivedType!] = (types[c.arrivedType!] ?? 0) + 1;
    }
    post({ ev: 'arrivals', marker: watching, times, types, missing: live() - times.length, loop: loopTime() });
    watching = undefined;
  };
  const maybeReconnected = (force: boolean): void => {
    if (!reconnectPending || (!force && recomplete < live())) return;
    reconnectPending = false;
    const done = clients.filter((c) => !c.refused && c.recompleteAt !== undefined);
    post({
      ev: 'reconnected',
      reconnectedAt: done.map((c) => c.reconnectedAt!),
      recompleteAt: done.map((c) => c.recompleteAt!),
      attempts: clients.filter((c) => !c.refused).map((c) => c.attemptsSinceRearm),
      missing: live() - done.length,
    });
  };
  const openMore = (): void => {
    while (connecting < init.maxConnecting && next < init.specs.length) {
      const c = new BenchClient(init.specs[next++]!, hooks, refs);
      clients.push(c);
      connecting++;
      c.start(init.address);
    }
  };
  const hooks: ClientHooks = {
    connected: () => {
      connecting--;
      openMore();
    },
    complete: () => {
      complete++;
      maybeAllComplete(false);
    },
    arrived: () => {
      arrived++;
      if (watching !== undefined && arrived >= live()) reportArrivals();
    },
    ended: (c, s) => {
      ended++;
      c.reconnects++;
      // NOTE: node ids and peers differ per client; drop them so equal reasons add up.
      const reason = `${s.code}: ${s.details.replace(/\b(sidecar|router)~\S+/g, '<node>').replace(/127\.0\.0\.1:\d+/g, '<peer>')}`.slice(0, 200);
      endReasons[reason] = (endReasons[reason] ?? 0) + 1;
    },
    refused: (c) => {
      refused++;
      if (c.connectedAt === undefined) {
        connecting--;
        openMore();
      }
      maybeAllComplete(false);
      if (watching !== undefined && arrived >= live()) reportArrivals();
      maybeReconnected(false);
    },
    recomplete: () => {
      recomplete++;
      maybeReconnected(false);
    },
    response: (_c, type, bytes) => {
      lastResponseAt = now();
      const t = (byType[type] ??= { bytes: 0, responses: 0, resources: 0 });
      t.bytes += bytes;
      t.responses++;
    },
  };

  port.on('message', (m: WorkerCommand) => {
    switch (m.cmd) {
      case 'start':
        openMore();
        maybeAllComplete(false);
        break;
      case 'watch': {
        const marker = Buffer.from(m.marker, 'utf8');
        arrived = 0;
        watching = m.marker;
        const types = new Set(m.typeUrls);
        for (const c of clients) c.watch(marker, types);
        post({ ev: 'watching', marker: m.marker, loop: loopTime() });
        break;
      }
      case 'collect':
        reportArrivals();
        break;
      case 'complete-now':
        maybeAllComplete(true);
        break;
      case 'stats':
        post({ ev: 'stats', stats: { byType: structuredClone(byType), lastResponseAt, loop: loopTime(), complete, ended, refused, endReasons: { ...endReasons } } });
        break;
      case 'rearm':
        for (const c of clients) c.rearm();
        recomplete = 0;
        reconnectPending = true;
        post({ ev: 'rearmed' });
        break;
      case 'reconnected-now':
        maybeReconnected(true);
        break;
      case 'close':
        for (const c of clients) c.close();
        post({ ev: 'closed' });
        port.close();
        break;
    }
  });
  post({ ev: 'ready' });
}

main();
